/// A call started by ``Client/start(_:completion:)``, to cancel it (or resume its paused
/// body). Safe to use from any thread, any number of times.
// @unchecked: `call` is written (by `attach`, from the job that starts the call) and read
// (by the job `cancel` queues) on the loop thread only, so it needs no lock; the queue runs
// jobs in order, so a cancel always sees the call its start job attached.
public final class CallHandle: @unchecked Sendable {
    private let loop: EventLoop
    private var call: Call?

    init(loop: EventLoop) { self.loop = loop }

    /// Loop thread only.
    func attach(_ call: Call) { self.call = call }

    /// Cancels the call: the attempt in flight or the pending retry delay stops at once, no
    /// attempt starts after it, and the completion runs exactly once with kind `cancelled`
    /// (unless the call had already completed). Returns at once; the completion runs on the
    /// event-loop thread.
    public func cancel() {
        loop.execute { [self] in call?.stop(.cancelled) }
    }

    /// Lets a call whose chunk consumer paused its body (``ChunkVerdict/pause``) take bytes
    /// again: the consumer gets the chunk it refused, then the rest. Returns at once; the
    /// consumer runs on the event-loop thread. Nothing when the call is not paused.
    public func resumeBody() {
        loop.execute { [self] in call?.resumeBody() }
    }
}
