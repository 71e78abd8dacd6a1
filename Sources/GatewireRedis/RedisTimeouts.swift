import GatewireBase
import GatewireTransport

/// The timeouts of a connection's (or a cluster's) commands, on one loop timer: a min-heap
/// of deadlines, the timer armed for the earliest. Loop thread only.
///
/// One loop timer per command would not scale: the loop keeps its timers in a flat array
/// (``EventLoop/schedule(after:_:)`` appends, ``EventLoop/cancelTimer(_:)`` and each poll's
/// earliest-timer search scan it), so 100,000 pipelined commands would cost 10^10 steps.
/// Here a command costs O(log n) to add, nothing when its reply comes (the heap drops
/// answered entries as they reach its top), and the loop sees one timer.
final class RedisTimeouts {
    private struct Entry {
        let deadline: Double
        let request: RedisRequest
    }

    private let loop: EventLoop
    /// The error a request gets at its deadline (its command and timeout in the message).
    private let expired: (RedisRequest) -> RedisError
    private var heap: [Entry] = []
    private var timer: Int?
    /// The deadline `timer` is armed for.
    private var armedFor = Double.infinity

    init(loop: EventLoop, expired: @escaping (RedisRequest) -> RedisError) {
        self.loop = loop
        self.expired = expired
    }

    /// Fails `request` with the `expired` error after `seconds`, unless it finished before.
    func add(_ request: RedisRequest, after seconds: Double) {
        let deadline = MonotonicClock.now() + max(0, seconds)
        heap.append(Entry(deadline: deadline, request: request))
        siftUp(heap.count - 1)
        if deadline < armedFor { arm() }
    }

    /// Drops every deadline and the timer (the owner closed and failed its requests itself).
    func removeAll() {
        heap.removeAll()
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        armedFor = .infinity
    }

    private func fire(_ fired: Bool) {
        timer = nil
        armedFor = .infinity
        let now = MonotonicClock.now()
        // A loop that closes fires its timers with `fired == false`: every request left ends.
        while let top = heap.first, !fired || top.deadline <= now {
            popTop()
            top.request.finish(.failure(fired ? expired(top.request)
                : RedisError(.closed, "the event loop closed before the reply")))
        }
        if fired { arm() }
    }

    /// Drops answered requests from the top, then arms the timer for the earliest deadline.
    private func arm() {
        while let top = heap.first, !top.request.isPending { popTop() }
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        armedFor = .infinity
        guard let top = heap.first else { return }
        armedFor = top.deadline
        timer = loop.schedule(after: top.deadline - MonotonicClock.now()) { [weak self] fired in self?.fire(fired) }
    }

    private func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count, heap[left + 1].deadline < heap[left].deadline { smallest = left + 1 }
            guard heap[smallest].deadline < heap[parent].deadline else { return }
            heap.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
