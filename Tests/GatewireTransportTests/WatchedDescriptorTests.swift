import GatewireTransport
import Glibc
import Synchronization
import Testing

/// The event loop polls file descriptors of other protocols (``EventLoop/watch(_:events:_:)``)
/// in the same `curl_multi_poll` as libcurl's, and runs their handlers on the loop thread.
@Suite(.timeLimit(.minutes(1))) struct WatchedDescriptorTests {
    @Test("a pipe's read end: the handler runs on the loop thread when a byte arrives, not while its events are empty, never after unwatch")
    func pipeReadiness() async throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { fds.forEach { close($0) } }
        let (reader, writer) = (fds[0], fds[1])
        let loop = EventLoop()
        defer { loop.shutdown() }
        let calls = Mutex<[(DescriptorEvents, Bool)]>([])
        let id = await withCheckedContinuation { continuation in
            loop.execute {
                continuation.resume(returning: loop.watch(reader, events: [.readable]) { events in
                    var byte: UInt8 = 0
                    _ = read(reader, &byte, 1)
                    calls.withLock { $0.append((events, loop.isCurrentThread)) }
                })
            }
        }
        #expect(write(writer, "a", 1) == 1)
        try await waitFor { calls.withLock { $0.count } == 1 }
        #expect(calls.withLock { $0[0].0 } == .readable)
        #expect(calls.withLock { $0[0].1 })

        // Nothing wanted: a byte waits unread (the poll does not include the descriptor).
        await withCheckedContinuation { continuation in
            loop.execute { loop.setEvents(id, []); continuation.resume() }
        }
        #expect(write(writer, "b", 1) == 1)
        try await Task.sleep(for: .milliseconds(200))
        #expect(calls.withLock { $0.count } == 1)
        await withCheckedContinuation { continuation in
            loop.execute { loop.setEvents(id, [.readable]); continuation.resume() }
        }
        try await waitFor { calls.withLock { $0.count } == 2 }

        await withCheckedContinuation { continuation in
            loop.execute { loop.unwatch(id); continuation.resume() }
        }
        #expect(write(writer, "c", 1) == 1)
        try await Task.sleep(for: .milliseconds(200))
        #expect(calls.withLock { $0.count } == 2)
    }

    /// Polls `condition` every 10 ms for at most 10 s.
    private func waitFor(_ condition: () -> Bool) async throws {
        for _ in 0..<1000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        #expect(condition())
    }
}
