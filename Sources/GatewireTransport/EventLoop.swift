import CCurl
import GatewireBase
import Glibc
import Synchronization

/// One libcurl multi event loop on its own thread: every transfer, timer and piece of call
/// logic of a client runs here, so call state needs no locks.
///
/// Other threads talk to the loop only through ``execute(_:)``: the job goes on a queue and
/// `curl_multi_wakeup` (the one libcurl call that is safe from any thread) interrupts
/// `curl_multi_poll`. Backoff delays are ``schedule(after:_:)`` timers on the same loop,
/// never sleeping threads. Connections are kept alive and reused by the multi handle, within
/// the ``ConnectionLimits`` it was made with: a transfer beyond them waits in the loop's
/// ``AdmissionQueue`` and reaches libcurl when it can run.
///
/// Every transfer gets a new easy handle (`curl_easy_init`), cleaned up once it is done: an
/// easy handle that already received a response is never used again. libcurl 7.88.1, as
/// Debian 12 ships it, keeps a pointer to the previous response's last header field in the
/// handle (curl_easy_reset does not clear it) and follows it when the next response's first
/// field line starts with a space or tab (obsolete line folding): a use-after-free that any
/// server can trigger (curl issue #11101, fixed in 8.1.0 by curl PR #11103). What the reuse
/// saved stays where it lives: connections and the DNS cache in the multi handle, TLS
/// sessions in a share (`CURL_LOCK_DATA_SSL_SESSION`) that every handle of the loop joins.
package final class EventLoop: Sendable {
    private struct Handle: @unchecked Sendable {
        let multi: UnsafeMutableRawPointer
        /// TLS session IDs, shared by the loop's handles so a new connection can resume one.
        /// The loop thread is its only user, so it needs no lock callbacks.
        let share: UnsafeMutableRawPointer
    }

    /// A delayed job; `fired` is false when the loop shut down before its time.
    package typealias TimerAction = (_ fired: Bool) -> Void

    /// A queued job. The closure sits in a struct so that the job arrays keep it as it is:
    /// an array of bare closures stores each behind a reabstraction thunk (one allocation
    /// per job).
    private struct Job {
        let run: @Sendable () -> Void
    }

    /// State only the loop thread touches (so not checked for exclusive access at run time:
    /// `@exclusivity(unchecked)`, as ``Call`` and ``Transfer``).
    private final class LoopState: @unchecked Sendable {
        /// The slots with a transfer in flight (each knows its index here).
        @exclusivity(unchecked) var active: [Slot] = []
        /// Slots kept for the next transfers, with their buffers (at most
        /// ``EventLoop/idleSlotLimit``).
        @exclusivity(unchecked) var idle: [Slot] = []
        /// An empty job array with storage, swapped with the inbox's by `runJobs`.
        @exclusivity(unchecked) var spareJobs: [Job] = []
        @exclusivity(unchecked) var timers: [(due: Double, id: Int, action: TimerAction)] = []
        @exclusivity(unchecked) var nextTimerID = 1
        /// The close observers, in the order they were added (``onClose(_:)``).
        @exclusivity(unchecked) var closeObservers: [(id: Int, action: () -> Void)] = []
        @exclusivity(unchecked) var nextCloseObserverID = 1
        /// The worker pool's lease, taken on the first ``offload(_:)`` and returned in `drain`.
        @exclusivity(unchecked) var pool: WorkerPool?
        /// When `expireQueued` next looks at the transfers in flight (``MonotonicClock``).
        @exclusivity(unchecked) var nextQueueSweep = 0.0
        /// What libcurl gets now, and the transfers that wait for it.
        let admission: AdmissionQueue
        /// The file descriptors polled besides libcurl's (``watch(_:events:_:)``).
        let descriptors = WatchedDescriptors()

        init(limits: ConnectionLimits) { admission = AdmissionQueue(limits: limits) }
    }

    /// One transfer in flight, its easy handle and its buffers, found from the handle through
    /// `CURLOPT_PRIVATE` (no lookup table). Loop thread only. The slot (its buffers) is kept
    /// for the next transfer; the handle is not (see the type's comment).
    private final class Slot {
        /// The easy handle of the transfer in flight; nil while idle.
        @exclusivity(unchecked) var easy: UnsafeMutableRawPointer?
        /// The transfer in flight; nil while idle.
        @exclusivity(unchecked) var transfer: Transfer?
        /// The slot's index in `LoopState.active` while a transfer is in flight.
        @exclusivity(unchecked) var activeIndex = 0
        /// The origin the transfer in flight was admitted to (``AdmissionQueue``).
        @exclusivity(unchecked) var origin: AdmissionQueue.Origin?
        /// The error buffer and header fields, lent to each transfer in the slot.
        let buffers = HandleBuffers()
    }

    private let handle: Handle
    private let state: LoopState
    private let inbox = Lock<(jobs: [Job], closed: Bool)>(([], false))
    private let stopping = Atomic<Bool>(false)
    private let thread = Lock<pthread_t?>(nil)
    private let threadID = Atomic<UInt>(0)
    private let finalJob = Lock<(@Sendable () -> Void)?>(nil)
    /// The cookie jar every transfer shares, or nil (cookies off). Loop thread only once the
    /// loop runs (so `nonisolated(unsafe)`: the share has no lock callbacks, see ``CookieEngine``).
    nonisolated(unsafe) private let cookieEngine: CookieEngine?
    private static let idleSlotLimit = 64

    /// A loop whose multi handle keeps to `limits`, with the jar of `cookies` shared by its
    /// transfers (nil: no cookie engine).
    package init(limits: ConnectionLimits = ConnectionLimits(), cookies: CookieEngineSetup? = nil) {
        _ = curlGlobalInit
        handle = Handle(multi: curl_multi_init(), share: curl_share_init())
        state = LoopState(limits: limits)
        _ = gw_multi_setopt_long(handle.multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        _ = gw_multi_setopt_long(handle.multi, CURLMOPT_MAX_HOST_CONNECTIONS, limits.maxConnectionsPerHost)
        _ = gw_multi_setopt_long(handle.multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, limits.maxConnections)
        _ = gw_multi_setopt_long(handle.multi, CURLMOPT_MAX_CONCURRENT_STREAMS, limits.maxConcurrentStreams)
        _ = gw_multi_setopt_long(handle.multi, CURLMOPT_MAXCONNECTS, limits.idleConnections)
        _ = gw_share_setopt_long(handle.share, CURLSHOPT_SHARE, Int(CURL_LOCK_DATA_SSL_SESSION.rawValue))
        let share = handle.share
        cookieEngine = cookies.map { CookieEngine(share: share, setup: $0) }
        var created = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&created, nil, { context in
            let loop = Unmanaged<EventLoop>.fromOpaque(context!).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        thread.withLock { $0 = created }
    }

    deinit {
        cookieEngine?.close()  // its handle is in the share too
        curl_multi_cleanup(handle.multi)
        curl_share_cleanup(handle.share)  // after every handle that joined it is cleaned up (drain)
    }

    /// Whether the caller runs on this loop's thread (where blocking would deadlock).
    package var isCurrentThread: Bool { threadID.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Queues `job` to run on the loop thread. Returns false, without running it, once the
    /// loop is shutting down. Safe from any thread.
    ///
    /// Wakes the loop (`curl_multi_wakeup`, a write to libcurl's socket pair) only when the
    /// queue was empty and the caller is another thread: jobs queued behind a pending one ride
    /// on its wakeup (the loop takes the whole queue at once), and a job queued on the loop
    /// thread is seen before the loop next polls. So N calls started in a row cost one wakeup,
    /// and a call started from a completion costs none.
    @discardableResult
    package func execute(_ job: @escaping @Sendable () -> Void) -> Bool {
        let (accepted, first) = inbox.withLock { box -> (Bool, Bool) in
            guard !box.closed else { return (false, false) }
            box.jobs.append(Job(run: job))
            return (true, box.jobs.count == 1)
        }
        if first, !isCurrentThread { curl_multi_wakeup(handle.multi) }
        return accepted
    }

    // MARK: Loop-thread API

    /// Starts `transfer`: hands it to libcurl when its origin and the connection limits let
    /// it run, else queues it (``AdmissionQueue``; its wait counts in
    /// ``TransferTimings/queued`` and against its timeout). Loop thread only. Its completion
    /// runs on the loop thread.
    package func start(_ transfer: Transfer) {
        guard !isStopping else {
            return transfer.complete(failure: TransportError(kind: .cancelled, curlCode: 0, message: "the client was closed"))
        }
        let origin = state.admission.origin(of: transfer)
        guard state.admission.admit(transfer, to: origin) else {
            transfer.addedAt = MonotonicClock.now()
            return state.admission.enqueue(transfer, in: origin)
        }
        if !handOver(transfer, origin) { admitWaiting() }
    }

    /// Hands the admitted `transfer` to libcurl; false (the transfer completed with the
    /// failure, its admission released) when its handle could not be set up.
    private func handOver(_ transfer: Transfer, _ origin: AdmissionQueue.Origin) -> Bool {
        // A transfer that never reached libcurl gives its admission back, then completes.
        func refuse(_ failure: TransportError) -> Bool {
            state.admission.finished(transfer, origin, easy: nil, code: CURLE_OK)
            transfer.complete(failure: failure)
            return false
        }
        // A transfer that waited in the queue past its attempt timeout is not sent with what
        // is left of it clamped to 1 ms: a loop that was busy (a slow completion or monitor)
        // until a connection freed up admits it before the sweep below could end it.
        if transfer.addedAt > 0, Self.waitedPastTimeout(transfer, now: MonotonicClock.now()) {
            return refuse(Self.queueTimeout(transfer))
        }
        guard let easy = curl_easy_init() else {
            return refuse(TransportError(kind: .network, curlCode: 0,
                                         message: "libcurl could not make an easy handle (out of memory)"))
        }
        let slot = state.idle.popLast() ?? Slot()
        slot.easy = easy  // a new handle for every transfer (see the type's comment)
        if let failure = transfer.configure(easy, buffers: slot.buffers) {
            recycle(slot)
            return refuse(failure)
        }
        _ = gw_easy_setopt_ptr(easy, CURLOPT_PRIVATE, Unmanaged.passUnretained(slot).toOpaque())
        _ = gw_easy_setopt_ptr(easy, CURLOPT_SHARE, handle.share)
        cookieEngine?.enable(on: easy)
        _ = state.admission.watchConnections(of: origin, easy)
        let now = MonotonicClock.now()
        if transfer.addedAt == 0 {
            transfer.addedAt = now
        } else if let timeout = transfer.options.timeout {
            // libcurl's timeout starts now; the attempt's started when it was queued.
            // Clamped: an infinite or huge timeout (a Swift program may set one) is no limit
            // (0), not a trap in the conversion to Int.
            let left = (timeout - (now - transfer.addedAt)) * 1000
            let milliseconds = left.isFinite && left < Double(Int32.max) ? Int(max(1, left.rounded(.up))) : 0
            _ = gw_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, milliseconds)
        }
        activate(slot, transfer)
        slot.origin = origin
        let code = curl_multi_add_handle(handle.multi, easy)
        if code != CURLM_OK {
            deactivate(slot)
            recycle(slot)
            return refuse(TransportError(kind: .network, curlCode: 0, message: String(cString: curl_multi_strerror(code))))
        }
        return true
    }

    /// Hands libcurl every queued transfer that may run now.
    private func admitWaiting() {
        guard state.admission.backlog > 0, !isStopping else { return }
        while let (transfer, origin) = state.admission.next() { _ = handOver(transfer, origin) }
    }

    /// Aborts `transfer` at once, in flight or still queued (then libcurl never sees it), and
    /// completes it with `failure`. Loop thread only.
    package func abort(_ transfer: Transfer, with failure: TransportError) {
        guard let easy = transfer.easy, let slot = slot(of: easy), slot.transfer === transfer else {
            if state.admission.cancel(transfer) { transfer.complete(failure: failure) }
            return
        }
        let origin = slot.origin
        deactivate(slot)
        curl_multi_remove_handle(handle.multi, easy)
        recycle(slot)
        if let origin { state.admission.finished(transfer, origin, easy: nil, code: CURLE_OK) }
        transfer.complete(failure: failure)
        admitWaiting()
    }

    /// The slot of a handle in flight (set in ``start(_:)`` as `CURLOPT_PRIVATE`).
    private func slot(of easy: UnsafeMutableRawPointer) -> Slot? {
        var pointer: UnsafeMutablePointer<CChar>?
        guard gw_easy_getinfo_str(easy, CURLINFO_PRIVATE, &pointer) == CURLE_OK, let pointer else { return nil }
        return Unmanaged<Slot>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    /// Puts `slot` in the active list with `transfer` in flight on it.
    private func activate(_ slot: Slot, _ transfer: Transfer) {
        slot.transfer = transfer
        slot.activeIndex = state.active.count
        state.active.append(slot)
    }

    /// Takes `slot` out of the active list (the last one moves into its place).
    private func deactivate(_ slot: Slot) {
        let last = state.active.removeLast()
        if last !== slot {
            last.activeIndex = slot.activeIndex
            state.active[slot.activeIndex] = last
        }
        slot.transfer = nil
        slot.origin = nil
    }

    /// The cookies of the jar (``CookieJar``), or nil when the loop has none. Loop thread only.
    package func cookies() -> [Cookie]? { cookieEngine?.cookies() }

    /// Runs `job` on the process's ``WorkerPool`` (leased on the first call, returned when the
    /// loop drains). Loop thread only. The job runs on another thread: it must touch no
    /// loop-thread state and hands its result back with ``execute(_:)``, which refuses once
    /// the loop is closing: whoever waits for that result registers an ``onClose(_:)``
    /// observer, which the drain runs instead.
    package func offload(_ job: @escaping @Sendable (_ home: WorkerPool.Home) -> Void) {
        let pool = state.pool ?? WorkerPool.lease()
        state.pool = pool
        pool.submit { worker in job(WorkerPool.Home(pool: pool, worker: worker)) }
    }

    /// Runs `action(true)` on the loop thread after `delay` seconds. Loop thread only.
    /// Returns an id for ``cancelTimer(_:)``.
    package func schedule(after delay: Double, _ action: @escaping TimerAction) -> Int {
        let id = state.nextTimerID
        state.nextTimerID += 1
        state.timers.append((MonotonicClock.now() + max(0, delay), id, action))
        return id
    }

    /// Drops a pending timer without running it. Loop thread only.
    package func cancelTimer(_ id: Int) {
        state.timers.removeAll { $0.id == id }
    }

    /// Polls `fd` (a socket of a protocol libcurl does not speak, such as a Redis
    /// connection's) with libcurl's own descriptors, in the same `curl_multi_poll`, and runs
    /// `handler` on the loop thread with what it found whenever one of `events` is ready.
    /// Loop thread only. Returns the watch's id for ``setEvents(_:_:)`` and ``unwatch(_:)``.
    ///
    /// Empty `events` keeps the watch without polling the descriptor. The caller owns `fd`:
    /// it calls ``unwatch(_:)`` before closing it (a closed or reused descriptor would wake
    /// the loop for nothing, or for another owner), and learns that the loop closes through
    /// ``onClose(_:)``, after which the loop drops every watch.
    package func watch(_ fd: Int32, events: DescriptorEvents, _ handler: @escaping (DescriptorEvents) -> Void) -> Int {
        state.descriptors.add(fd, events: events, handler: handler)
    }

    /// Sets what the watch `id` waits for (hiredis's adapters flip reading and writing as
    /// its buffers fill and drain). Loop thread only; false when the watch is gone.
    @discardableResult
    package func setEvents(_ id: Int, _ events: DescriptorEvents) -> Bool {
        state.descriptors.setEvents(id, events)
    }

    /// Stops polling the watch `id` (an id already removed is ignored). Loop thread only.
    package func unwatch(_ id: Int) {
        state.descriptors.remove(id)
    }

    /// Runs `action` once, on the loop thread, when the loop closes (in ``shutdown(then:)``'s
    /// drain, after the transfers and timers have ended), unless ``removeCloseObserver(_:)``
    /// came first. Loop thread only. Returns the observer's id.
    ///
    /// For work that waits outside the loop (a credential's refresh, a mapping on the worker
    /// pool): its answer comes back through ``execute(_:)``, which a closing loop refuses, so
    /// this is how the waiting side learns that the answer will never come. Observers added
    /// during the drain (by another observer) run in the same drain.
    package func onClose(_ action: @escaping () -> Void) -> Int {
        let id = state.nextCloseObserverID
        state.nextCloseObserverID += 1
        state.closeObservers.append((id, action))
        return id
    }

    /// Drops a close observer without running it (the wait it covered has ended). Loop
    /// thread only; an id already run or removed is ignored.
    package func removeCloseObserver(_ id: Int) {
        state.closeObservers.removeAll { $0.id == id }
    }

    /// Stops the loop: queued jobs still run, in-flight transfers end as cancelled, pending
    /// timers fire with `fired == false`, the close observers run, the worker-pool lease is
    /// returned (the last one joins the pool's threads), then `cleanup` runs (on the loop
    /// thread) and the thread exits. Waits for the thread unless called on it (then it detaches). Idempotent.
    package func shutdown(then cleanup: (@Sendable () -> Void)? = nil) {
        let first = inbox.withLock { box -> Bool in
            defer { box.closed = true }
            return !box.closed
        }
        guard first else { return }
        finalJob.withLock { $0 = cleanup }
        stopping.store(true, ordering: .releasing)
        curl_multi_wakeup(handle.multi)
        guard let thread = thread.withLock({ $0 }) else { return }
        if isCurrentThread { pthread_detach(thread) } else { pthread_join(thread, nil) }
    }

    // MARK: The loop

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        LoopThread.markCurrent()
        while !stopping.load(ordering: .acquiring) {
            runJobs()
            runDueTimers()
            var running: Int32 = 0
            curl_multi_perform(handle.multi, &running)
            collectFinished()
            expireQueued()
            // Jobs queued on this thread since `runJobs` (a call started from a completion)
            // sent no wakeup: go round again instead of sleeping in the poll.
            if hasJobs { continue }
            poll()
        }
        drain()
    }

    /// Waits in `curl_multi_poll` for libcurl's descriptors and the watched ones, then runs
    /// the handlers of the watched descriptors that are ready. With no descriptor watched,
    /// the poll is libcurl's alone, as it would be without this API.
    private func poll() {
        let descriptors = state.descriptors
        let timeout = pollTimeout()
        if descriptors.isEmpty {
            curl_multi_poll(handle.multi, nil, 0, timeout, nil)
        } else {
            descriptors.poll { curl_multi_poll(handle.multi, $0, $1, timeout, nil) }
        }
    }

    /// Runs every queued job. The queue's array is swapped with an empty spare (both keep
    /// their storage), so taking the jobs allocates nothing.
    private func runJobs() {
        var jobs: [Job] = []
        swap(&jobs, &state.spareJobs)
        inbox.withLock { box in swap(&box.jobs, &jobs) }
        for job in jobs { job.run() }
        jobs.removeAll(keepingCapacity: true)
        state.spareJobs = jobs
    }

    /// Whether a job is queued (one queued on the loop thread sent no wakeup).
    private var hasJobs: Bool { inbox.withLock { !$0.jobs.isEmpty } }

    private func runDueTimers() {
        let now = MonotonicClock.now()
        while let index = state.timers.indices.min(by: { state.timers[$0].due < state.timers[$1].due }),
              state.timers[index].due <= now {
            let timer = state.timers.remove(at: index)
            timer.action(true)
        }
    }

    private func pollTimeout() -> Int32 {
        // While transfers are in flight, wake up for the next queue sweep (`expireQueued`).
        let limit = state.active.isEmpty && state.admission.backlog == 0 ? 1000.0 : Self.queueSweepInterval * 1000
        guard let due = state.timers.map(\.due).min() else { return Int32(limit) }
        let wait = (due - MonotonicClock.now()) * 1000
        return Int32(max(0, min(limit, wait.rounded(.up))))
    }

    /// How often, in seconds, `expireQueued` looks for queued transfers past their timeout.
    private static let queueSweepInterval = 0.1

    /// Ends every transfer still waiting for a connection past its attempt timeout: those in
    /// the ``AdmissionQueue``, and those libcurl queued (its `CURLOPT_TIMEOUT` counts from the
    /// hand-over, set to what was left of the attempt's). libcurl 7.88 checks a queued
    /// (pending) transfer's timeout only once it leaves the queue (curl issues #6744 and
    /// #13227, fixed in 8.8.0 by curl PR #13276), so without this sweep a call behind a
    /// connection limit would time out only when a connection freed up. Runs after
    /// `curl_multi_perform`, which has already failed every expired transfer libcurl itself
    /// runs (resolving, connecting, sending): one found here that never sent was queued. At
    /// most every ``queueSweepInterval`` (a scan of the transfers in flight).
    private func expireQueued() {
        let now = MonotonicClock.now()
        guard now >= state.nextQueueSweep else { return }
        state.nextQueueSweep = now + Self.queueSweepInterval
        var expired: [Transfer] = []
        for slot in state.active {
            guard let transfer = slot.transfer, !transfer.hasSent, Self.waitedPastTimeout(transfer, now: now) else { continue }
            expired.append(transfer)
        }
        state.admission.forEachWaiting { transfer in
            if Self.waitedPastTimeout(transfer, now: now) { expired.append(transfer) }
        }
        for transfer in expired { abort(transfer, with: Self.queueTimeout(transfer)) }
    }

    /// Whether `transfer`'s attempt timeout has passed since it was handed to the loop
    /// (`addedAt`) at `now`; never without a timeout.
    private static func waitedPastTimeout(_ transfer: Transfer, now: Double) -> Bool {
        guard let timeout = transfer.options.timeout else { return false }
        return now - transfer.addedAt >= timeout
    }

    /// The failure of `transfer`, which waited for a connection past its attempt timeout: a
    /// `connect` failure (it was never sent, so any call may retry it).
    private static func queueTimeout(_ transfer: Transfer) -> TransportError {
        TransportError(kind: .connect, curlCode: Int32(CURLE_OPERATION_TIMEDOUT.rawValue),
                       message: "no connection became free within the attempt timeout (\(transfer.options.timeout ?? 0) s): "
                           + "the attempt waited for one behind maxConnectionsPerHost or maxConnections")
    }

    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(handle.multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            curl_multi_remove_handle(handle.multi, easy)
            guard let slot = slot(of: easy), let transfer = slot.transfer else { continue }
            let origin = slot.origin
            deactivate(slot)
            // Before the completion, so that a call it starts finds the transfer's place free.
            if let origin { state.admission.finished(transfer, origin, easy: easy, code: code) }
            transfer.finish(code)
            recycle(slot)
        }
        state.admission.endRound()
        admitWaiting()
    }

    /// Cleans up the slot's handle (its connection stays in the multi's cache) and keeps the
    /// slot's buffers for a next transfer.
    private func recycle(_ slot: Slot) {
        if let easy = slot.easy { curl_easy_cleanup(easy) }
        slot.easy = nil
        if state.idle.count < Self.idleSlotLimit { state.idle.append(slot) }
    }

    /// Completes everything still pending exactly once, then frees the handles.
    private func drain() {
        runJobs()  // jobs queued before `closed` was set (their transfers see the loop closing)
        let cancelled = TransportError(kind: .cancelled, curlCode: 0, message: "the client was closed")
        let active = state.active
        state.active.removeAll()
        for slot in active {
            if let easy = slot.easy { curl_multi_remove_handle(handle.multi, easy) }
            let transfer = slot.transfer
            slot.transfer = nil
            transfer?.complete(failure: cancelled)
            if let easy = slot.easy { curl_easy_cleanup(easy) }
            slot.easy = nil
        }
        for transfer in state.admission.removeAllWaiting() { transfer.complete(failure: cancelled) }
        let timers = state.timers
        state.timers.removeAll()
        for timer in timers { timer.action(false) }
        // One at a time, so that an observer removed by an earlier one (its wait ended) does
        // not run, and one added meanwhile does.
        while !state.closeObservers.isEmpty {
            state.closeObservers.removeFirst().action()
        }
        state.descriptors.removeAll()  // their owners have heard of the close just now
        state.idle.removeAll()
        cookieEngine?.close()  // writes the jar's file once no transfer can change it
        // Every call has completed: a worker still mapping for this loop finds `execute`
        // refused. The last lease out stops the pool (joins its threads).
        if let pool = state.pool {
            state.pool = nil
            WorkerPool.returnLease(pool)
        }
        finalJob.withLock { $0 }?()
    }

    /// Whether the loop is shutting down (loop thread: no new transfers should start).
    package var isStopping: Bool { stopping.load(ordering: .acquiring) }
}

/// `curl_global_init` exactly once per process, before the first multi handle.
private let curlGlobalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
