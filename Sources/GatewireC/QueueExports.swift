import CGatewireABI
import Gatewire
import Glibc

// Completion queues: see the "Completion queues" section of gatewire.h.

/// The object behind a `gw_queue *`: finished results and their tags, guarded by a pthread
/// mutex; a waiter sleeps on a condition variable, signalled only when someone waits.
/// Every queued call's completion retains the queue, so it outlives `gw_queue_free` until the
/// last call has pushed; results never taken are freed with it.
final class CompletionQueue: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var results: [OpaquePointer] = []
    private var tags: [UInt64] = []
    private var head = 0
    private var waiters = 0
    private var notify: gw_queue_notify_fn?
    private var notifyUserData: UnsafeMutableRawPointer?

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        for index in head..<results.count { release(results[index], as: ResultBox.self) }
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Pushes a finished result; when the queue held none, tells the notify function (outside
    /// the mutex, so it may take the results at once), which makes one notice per batch.
    func push(_ result: OpaquePointer, tag: UInt64) {
        pthread_mutex_lock(mutex)
        let wasEmpty = results.count == head
        results.append(result)
        tags.append(tag)
        let wake = waiters > 0
        let notice = wasEmpty ? notify : nil
        let userData = notifyUserData
        pthread_mutex_unlock(mutex)
        if wake { pthread_cond_signal(condition) }
        // The gw_queue * the caller holds is this object's address (box).
        notice?(OpaquePointer(Unmanaged.passUnretained(self).toOpaque()), userData)
    }

    func setNotify(_ function: gw_queue_notify_fn?, userData: UnsafeMutableRawPointer?) {
        pthread_mutex_lock(mutex)
        notify = function
        notifyUserData = userData
        pthread_mutex_unlock(mutex)
    }

    var count: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return results.count - head
    }

    /// Moves up to `capacity` results out; blocks while empty for up to `timeout` seconds
    /// (< 0 or +infinity: without limit, 0: not at all; not NaN, which `gw_queue_wait` refuses).
    func take(timeout: Double, into outResults: UnsafeMutablePointer<OpaquePointer?>,
              tags outTags: UnsafeMutablePointer<UInt64>?, capacity: Int) -> Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if results.count == head && timeout != 0 {
            let unlimited = timeout < 0 || timeout == .infinity
            var deadline = unlimited ? timespec() : Self.monotonicTime(after: timeout)
            waiters += 1
            while results.count == head {
                if unlimited {
                    pthread_cond_wait(condition, mutex)
                } else if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT {
                    break
                }
            }
            waiters -= 1
        }
        let taken = min(capacity, results.count - head)
        for offset in 0..<taken {
            outResults[offset] = results[head + offset]
            outTags?[offset] = tags[head + offset]
        }
        head += taken
        if head == results.count {
            results.removeAll(keepingCapacity: true)
            tags.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024 && head * 2 > results.count {
            results.removeFirst(head)
            tags.removeFirst(head)
            head = 0
        }
        return taken
    }

    /// The longest finite wait, in seconds (about 31.7 years): a longer one waits this long,
    /// so the deadline's seconds always fit `time_t` and no conversion can overflow.
    static let longestWait = 1e9

    /// `CLOCK_MONOTONIC`'s time `seconds` from now (finite and > 0; capped at ``longestWait``).
    private static func monotonicTime(after seconds: Double) -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        let wait = min(seconds, longestWait)
        let whole = wait.rounded(.down)
        let nanoseconds = time.tv_nsec + Int((wait - whole) * 1e9)
        time.tv_sec += Int(whole) + nanoseconds / 1_000_000_000
        time.tv_nsec = nanoseconds % 1_000_000_000
        return time
    }
}

@_cdecl("gw_queue_new")
public func gw_queue_new(_ outQueue: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let outQueue else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_queue_new: out_queue is NULL") }
    outQueue.pointee = box(CompletionQueue())
    return GW_OK
}

@_cdecl("gw_queue_free")
public func gw_queue_free(_ queue: OpaquePointer?) {
    guard let queue else { return }
    release(queue, as: CompletionQueue.self)
}

@_cdecl("gw_call_async_queued")
public func gw_call_async_queued(_ client: OpaquePointer?, _ options: UnsafePointer<gw_call_options>?,
                                 _ queue: OpaquePointer?, _ tag: UInt64,
                                 _ outCall: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    outCall?.pointee = nil
    guard let queue else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_call_async_queued: queue is NULL") }
    if let options, case let version = UnsafeRawPointer(options).load(as: UInt32.self), !CallOptionsReader.supports(version) {
        return LastError.fail(GW_ERROR_VERSION, "gw_call_async_queued: unsupported gw_call_options version \(version)")
    }
    var status = GW_OK
    guard let (owner, request) = prepareCall("gw_call_async_queued", client, options, status: &status) else { return status }
    let target = unbox(queue, as: CompletionQueue.self)  // retained by the completion below
    let handle = owner.client.start(request) { result in
        target.push(box(ResultBox(result)), tag: tag)
    }
    outCall?.pointee = box(handle)
    return GW_OK
}

@_cdecl("gw_queue_wait")
public func gw_queue_wait(_ queue: OpaquePointer?, _ timeout: Double, _ outResults: UnsafeMutablePointer<OpaquePointer?>?,
                          _ outTags: UnsafeMutablePointer<UInt64>?, _ capacity: Int,
                          _ outCount: UnsafeMutablePointer<Int>?) -> Int32 {
    outCount?.pointee = 0
    guard let queue, let outResults, let outCount else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_queue_wait: queue, out_results or out_count is NULL")
    }
    if let problem = SizeArgument.problem(capacity, field: "gw_queue_wait: capacity", minimum: 1) {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, problem)
    }
    guard !timeout.isNaN else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT,
                              "gw_queue_wait: timeout_seconds is NaN (0 = do not wait, < 0 or infinity = no limit)")
    }
    // A poll (timeout 0) does not wait; a queue may hold calls of any client, so any loop.
    if timeout != 0, let problem = Client.waitProblem(waitingOn: nil) {
        return LastError.fail(GW_ERROR_WOULD_DEADLOCK,
                              "gw_queue_wait: \(problem); poll with timeout 0 or wait on another thread")
    }
    outCount.pointee = unbox(queue, as: CompletionQueue.self).take(timeout: timeout, into: outResults, tags: outTags,
                                                                   capacity: capacity)
    return GW_OK
}

@_cdecl("gw_queue_set_notify")
public func gw_queue_set_notify(_ queue: OpaquePointer?, _ notify: gw_queue_notify_fn?,
                                _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let queue else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_queue_set_notify: queue is NULL") }
    unbox(queue, as: CompletionQueue.self).setNotify(notify, userData: userData)
    return GW_OK
}

@_cdecl("gw_queue_count")
public func gw_queue_count(_ queue: OpaquePointer?) -> Int {
    queue.map { unbox($0, as: CompletionQueue.self).count } ?? 0
}
