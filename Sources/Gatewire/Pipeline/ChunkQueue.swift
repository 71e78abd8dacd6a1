import GatewireBase

/// The chunks of a ``BodyStream`` between the event loop (``offer(_:)``, ``finish(_:)``) and
/// its consumer (``next(resume:)``), under one lock (`Lock`, a pthread mutex, which
/// ThreadSanitizer can follow, unlike `Mutex`). The loop side never waits: past the
/// high-water mark it answers ``ChunkVerdict/pause``, and the consumer resumes the call once
/// it has taken the queue below the low-water mark.
final class ChunkQueue: Sendable {
    private struct State {
        var chunks: [[UInt8]] = []
        var head = 0
        var queuedBytes = 0
        var paused = false
        var result: Result<Response, GatewireError>?
        /// The consumer waiting for a chunk or the end.
        var waiting: CheckedContinuation<Void, Never>?
    }

    private let state = Lock(State())
    private let highWater: Int
    private let lowWater: Int

    /// A queue that pauses its call past `bufferBytes` queued (at least 64 KiB).
    init(bufferBytes: Int) {
        highWater = max(bufferBytes, 64 << 10)
        lowWater = highWater / 4
    }

    /// The chunk consumer of the call (loop thread): queue a copy, or pause past the mark.
    func offer(_ bytes: UnsafeRawBufferPointer) -> ChunkVerdict {
        let waiting = state.withLock { state -> CheckedContinuation<Void, Never>?? in
            guard state.queuedBytes < highWater else {
                state.paused = true
                return .none
            }
            state.chunks.append(Array(bytes))
            state.queuedBytes += bytes.count
            defer { state.waiting = nil }
            return .some(state.waiting)
        }
        guard let waiting else { return .pause }
        waiting?.resume()
        return .proceed
    }

    /// The call completed (loop thread).
    func finish(_ result: Result<Response, GatewireError>) {
        let waiting = state.withLock { state in
            state.result = result
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }

    /// The next chunk, nil after the last of a successful call.
    /// - Throws: the call's ``GatewireError`` after the last chunk of a failed call.
    func next(resume handle: CallHandle) async throws(GatewireError) -> [UInt8]? {
        while true {
            enum Step { case chunk([UInt8], resume: Bool), end(Result<Response, GatewireError>), wait }
            let step = state.withLock { state -> Step in
                if state.head < state.chunks.count {
                    let chunk = state.chunks[state.head]
                    state.head += 1
                    state.queuedBytes -= chunk.count
                    if state.head == state.chunks.count {
                        state.chunks.removeAll(keepingCapacity: true)
                        state.head = 0
                    }
                    let resume = state.paused && state.queuedBytes <= lowWater
                    if resume { state.paused = false }
                    return .chunk(chunk, resume: resume)
                }
                if let result = state.result { return .end(result) }
                return .wait
            }
            switch step {
            case .chunk(let chunk, let resume):
                if resume { handle.resumeBody() }
                return chunk
            case .end(let result):
                _ = try result.get()
                return nil
            case .wait:
                await withCheckedContinuation { continuation in
                    let ready = state.withLock { state -> Bool in
                        guard state.head == state.chunks.count, state.result == nil else { return true }
                        state.waiting = continuation
                        return false
                    }
                    if ready { continuation.resume() }
                }
            }
        }
    }

    /// Waits for the call's outcome.
    func outcome() async -> Result<Response, GatewireError> {
        while true {
            if let result = state.withLock({ $0.result }) { return result }
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    guard state.result == nil else { return true }
                    state.waiting = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }
}
