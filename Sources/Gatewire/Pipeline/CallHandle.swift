/// A started call, to cancel it. Safe to use from any thread, any number of times.
public final class CallHandle: Sendable {
    private let loop: EventLoop
    private let call = Lock<Call?>(nil)

    init(loop: EventLoop) { self.loop = loop }

    func attach(_ call: Call) { self.call.withLock { $0 = call } }

    /// Cancels the call: the attempt in flight or the pending retry delay stops at once, no
    /// attempt starts after it, and the completion runs exactly once with kind `cancelled`
    /// (unless the call had already completed). Returns at once; the completion runs on the
    /// event-loop thread.
    public func cancel() {
        loop.execute { [self] in
            let current = call.withLock { $0 }
            current?.stop(.cancelled)
        }
    }
}
