/// One thing a started call reports to its ``CallTask/events``.
@available(*, deprecated, message: "set CallOptions.onEvent and CallOptions.onProgress")
public enum CallUpdate: Sendable {
    /// A step of the call's life (``CallEvent``: started, attempt started and finished, retry
    /// scheduled with its delay, finished).
    case event(CallEvent)
    /// An attempt's transfer progress (``ProgressHandler`` says how often).
    case progress(TransferProgress)
}

/// A started call whose events and progress can be iterated and whose result awaited.
///
/// Deprecated: a second async form of a call. ``Client/send(_:)`` awaits the result and
/// cancels the call with its task; the call's events and progress reach
/// ``CallOptions/onEvent`` and ``CallOptions/onProgress``.
///
/// ```swift
/// let call = client.start(Request(.get, "/drip", parameters: ["numbytes": "1000"]))
/// for await update in call.events {
///     if case .progress(let progress) = update { print(progress.bytesReceived) }
/// }
/// let response = try await call.result
/// ```
///
/// Safe to use from any thread.
@available(*, deprecated, message: "use Client.send(_:) with CallOptions.onEvent and CallOptions.onProgress")
public final class CallTask: Sendable {
    /// The call's updates in order: `callStarted`, then per attempt `attemptStarted`, its
    /// progress, its final progress report and `attemptFinished`, a `retryScheduled` before
    /// each delay, and `callFinished`; the sequence ends after `callFinished` (a call that
    /// could not be built ends it with no update). Every update is kept until it is read (a
    /// progress report at most ten times a second per attempt), so reading it is optional.
    /// One reader: a second iteration shares the same updates.
    public let events: AsyncStream<CallUpdate>
    private let outcome = Lock<(result: Result<Response, GatewireError>?,
                                waiters: [CheckedContinuation<Result<Response, GatewireError>, Never>])>((nil, []))
    /// The started call, and whether ``cancel()`` came before it was known.
    private let handle = Lock<(call: CallHandle?, cancelled: Bool)>((nil, false))

    init(events: AsyncStream<CallUpdate>) { self.events = events }

    /// The call's response, once it completes (any number of readers, any time).
    /// Cancelling the awaiting task cancels the call (kind `cancelled`), as ``cancel()`` does.
    /// - Throws: ``GatewireError``.
    public var result: Response {
        get async throws(GatewireError) {
            let result = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let done = outcome.withLock { state -> Result<Response, GatewireError>? in
                        if state.result == nil { state.waiters.append(continuation) }
                        return state.result
                    }
                    if let done { continuation.resume(returning: done) }
                }
            } onCancel: {
                cancel()
            }
            return try result.get()
        }
    }

    /// Cancels the call (``CallHandle/cancel()``). Returns at once.
    public func cancel() {
        handle.withLock { state -> CallHandle? in
            state.cancelled = true
            return state.call
        }?.cancel()
    }

    func attach(_ started: CallHandle) {
        let cancelled = handle.withLock { state -> Bool in
            state.call = started
            return state.cancelled
        }
        if cancelled { started.cancel() }
    }

    /// The completion: stores `result` and wakes every reader of ``result``.
    func complete(_ result: Result<Response, GatewireError>) {
        let waiters = outcome.withLock { state in
            defer { state.waiters = [] }
            state.result = result
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }
}

extension Client {
    /// Starts a call and returns at once with its ``CallTask``: its events and progress as an
    /// `AsyncSequence`, and its result to await. The request's own ``CallOptions/onEvent``
    /// and ``CallOptions/onProgress`` still run, before the update is queued.
    @available(*, deprecated, message: "use send(_:) with CallOptions.onEvent and CallOptions.onProgress")
    public func start(_ request: Request) -> CallTask {
        let (events, updates) = AsyncStream.makeStream(of: CallUpdate.self, bufferingPolicy: .unbounded)
        let task = CallTask(events: events)
        var request = request
        let onEvent = request.options.onEvent
        request.options.onEvent = { event in
            defer { updates.yield(.event(event)) }
            try onEvent?(event)  // what it throws is reported as any monitor's
        }
        let onProgress = request.options.onProgress
        request.options.onProgress = { progress in
            onProgress?(progress)
            updates.yield(.progress(progress))
        }
        task.attach(start(request) { result in
            updates.finish()
            task.complete(result)
        })
        return task
    }
}
