import GatewireBase
import Glibc

/// Threads that parse and map large response bodies off the clients' event-loop threads.
///
/// **One pool per process**, shared by every client: as many pthreads (no Foundation, no
/// Dispatch) as `sysconf(_SC_NPROCESSORS_ONLN)` reports, so N clients never start N x cores
/// threads. The pool is leased: an ``EventLoop`` takes a lease the first time it offloads a
/// job (``lease()``) and returns it when it drains at close (``returnLease(_:)``); the pool's
/// threads start with the first lease and are stopped and joined when the last lease is
/// returned. A client that never offloads never starts a thread; a later client starts a new
/// pool.
///
/// Jobs run in FIFO order on whichever worker is free, and get that worker's index. They
/// must not block on an event loop: they hand their result back with
/// ``EventLoop/execute(_:)``, which never blocks. Jobs still queued when the pool stops are
/// dropped without running: only loops that hold a lease queue jobs, and a loop returns its
/// lease after its drain has completed every call (a call whose mapping is pending completes
/// there as `cancelled`).
///
/// **Trees go home to be freed.** The Jansson trees a worker builds live in that worker's
/// malloc arena (glibc gives each thread its own). Freed on the loop thread (where callers
/// drop their responses), each of their ~20,000 `free`s takes the worker's arena lock while
/// the worker allocates the next tree: measured, the lock contention and the arena heap
/// growing and shrinking doubled the CPU per call and left the second core idle. So the
/// roots a worker hands out know their ``Home``: their last release is queued back to that
/// worker (``release(on:_:)``), which runs it before it takes its next job. Once the pool has
/// stopped, the release happens in place. The pool itself knows nothing of JSON: a release
/// is a closure (the pipeline joins the two, `WorkerPool+JSONTreeHome`).
package final class WorkerPool: Sendable {
    /// Bodies at least this large are parsed and mapped on the pool; smaller ones on the loop
    /// thread, where the hand-off (a queue, a wake-up, a second loop job) would cost more than
    /// it saves. 16 KiB: Jansson parses it in about 0.3 ms here. When the process may run on
    /// one CPU only (its affinity mask, read once), nothing is offloaded: the pool could not
    /// run in parallel with the loop and the hand-off cost 8% more CPU per call (measured).
    /// `GATEWIRE_OFFLOAD_BYTES` in the environment overrides it (0: every body).
    package static let offloadThreshold: Int = {
        if let text = getenv("GATEWIRE_OFFLOAD_BYTES"), let value = Int(String(cString: text)) { return value }
        return usableCPUs > 1 ? 16 * 1024 : Int.max
    }()

    /// The CPUs this process may run on (its affinity mask: `Cpus_allowed` in
    /// /proc/self/status, as `sched_getaffinity`, which Swift's Glibc module does not export),
    /// or the cores online when that cannot be read.
    static var usableCPUs: Int {
        guard let file = fopen("/proc/self/status", "r") else { return threadCount }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("Cpus_allowed:") else { continue }
            let count = text.dropFirst("Cpus_allowed:".count).reduce(0) { count, character in
                count + (character.hexDigitValue?.nonzeroBitCount ?? 0)
            }
            return count > 0 ? count : threadCount
        }
        return threadCount
    }

    /// The number of worker threads: the cores online (at least 1).
    static var threadCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Where a tree was built: the worker whose arena holds it.
    package struct Home: Sendable {
        package let pool: WorkerPool
        package let worker: Int
    }

    private let state: PoolState
    private let threads = Lock<[pthread_t]>([])

    private init(threads count: Int) {
        state = PoolState(workers: count)
        var started: [pthread_t] = []
        for index in 0..<count {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(WorkerContext(state: state, index: index)).toOpaque()
            let rc = pthread_create(&thread, nil, { context in
                let worker = Unmanaged<WorkerContext>.fromOpaque(context!).takeRetainedValue()
                worker.state.work(worker: worker.index)
                return nil
            }, context)
            precondition(rc == 0, "pthread_create failed: \(rc)")
            started.append(thread)
        }
        threads.withLock { $0 = started }
    }

    /// Queues `job` to run on a free worker, with that worker's index. Safe from any thread.
    package func submit(_ job: @escaping @Sendable (_ worker: Int) -> Void) { state.push(job) }

    /// Queues `release` to run on worker `worker` before that worker's next job (freeing there
    /// what that worker allocated). Returns false, dropping `release` without running it, once
    /// the pool has stopped (the caller releases in place). Safe from any thread.
    package func release(on worker: Int, _ release: @escaping @Sendable () -> Void) -> Bool {
        state.pushRelease(release, worker: worker)
    }

    // MARK: Leases

    private static let shared = Lock<(pool: WorkerPool?, leases: Int)>((nil, 0))

    /// The process's pool, started if no lease is out. Pair with ``returnLease(_:)``.
    package static func lease() -> WorkerPool {
        shared.withLock { state in
            let pool = state.pool ?? WorkerPool(threads: threadCount)
            state.pool = pool
            state.leases += 1
            return pool
        }
    }

    /// Returns a lease; the last one stops the pool: queued jobs are dropped, a running job
    /// finishes, queued releases are done, and the threads are joined (this waits for them).
    package static func returnLease(_ pool: WorkerPool) {
        let last = shared.withLock { state -> Bool in
            guard state.pool === pool else { return false }
            state.leases -= 1
            guard state.leases == 0 else { return false }
            state.pool = nil
            return true
        }
        guard last else { return }
        let dropped = pool.state.close()
        _ = dropped  // released here, outside the pool's lock
        let started = pool.threads.withLock { threads -> [pthread_t] in
            defer { threads.removeAll() }
            return threads
        }
        for thread in started { pthread_join(thread, nil) }
    }
}

/// What a worker thread starts with.
private final class WorkerContext: Sendable {
    let state: PoolState
    let index: Int
    init(state: PoolState, index: Int) {
        self.state = state
        self.index = index
    }
}

/// The pool's queues under one pthread mutex, with a condition variable per worker
/// (heap-allocated: pthread objects must not move).
private final class PoolState: @unchecked Sendable {
    // @unchecked: every `var` below is read and written only with `mutex` held; the mutex
    // and condition pointers are set once in init and freed in deinit, after every worker
    // (each holds a reference through its WorkerContext) has returned.
    typealias Job = @Sendable (_ worker: Int) -> Void
    typealias Release = @Sendable () -> Void
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let conditions: UnsafeMutablePointer<pthread_cond_t>
    private let workers: Int
    private var jobs = FIFO<Job>()
    private var releases: [[Release]]
    private var waiting: [Bool]
    private var closed = false

    init(workers: Int) {
        self.workers = workers
        conditions = .allocate(capacity: workers)
        releases = Array(repeating: [], count: workers)
        waiting = Array(repeating: false, count: workers)
        pthread_mutex_init(mutex, nil)
        for index in 0..<workers { pthread_cond_init(conditions + index, nil) }
    }

    deinit {
        for index in 0..<workers { pthread_cond_destroy(conditions + index) }
        pthread_mutex_destroy(mutex)
        conditions.deallocate()
        mutex.deallocate()
    }

    func push(_ job: @escaping Job) {
        pthread_mutex_lock(mutex)
        if !closed {
            jobs.push(job)
            if let idle = waiting.firstIndex(of: true) {
                waiting[idle] = false  // the next job wakes another worker
                pthread_cond_signal(conditions + idle)
            }
        }
        pthread_mutex_unlock(mutex)
    }

    func pushRelease(_ release: @escaping Release, worker: Int) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !closed else { return false }
        releases[worker].append(release)
        if waiting[worker] {
            waiting[worker] = false
            pthread_cond_signal(conditions + worker)
        }
        return true
    }

    /// Stops the workers: each finishes its running job and its queued releases, then exits.
    /// Returns the jobs still queued, for the caller to drop outside the lock.
    func close() -> [Job] {
        pthread_mutex_lock(mutex)
        closed = true
        let dropped = jobs.removeAll()
        for index in 0..<workers { pthread_cond_signal(conditions + index) }
        pthread_mutex_unlock(mutex)
        return dropped
    }

    /// Worker `index`'s loop: its releases first (frees before the next tree is allocated),
    /// then a job, until ``close()``.
    func work(worker index: Int) {
        pthread_mutex_lock(mutex)
        while true {
            if !releases[index].isEmpty {
                let batch = releases[index]
                releases[index].removeAll(keepingCapacity: true)
                pthread_mutex_unlock(mutex)
                for release in batch { release() }
                pthread_mutex_lock(mutex)
                continue
            }
            if closed { break }
            if !jobs.isEmpty {
                var job = jobs.pop()  // the one reference, dropped below before the lock
                pthread_mutex_unlock(mutex)
                job?(index)
                // Dropped before the lock is taken again: the job may hold the last reference
                // to a call whose response tree lives here, and that tree's release queues
                // itself with `pushRelease`, which takes this (non-recursive) mutex.
                job = nil
                pthread_mutex_lock(mutex)
                continue
            }
            waiting[index] = true
            pthread_cond_wait(conditions + index, mutex)
            waiting[index] = false
        }
        pthread_mutex_unlock(mutex)
    }
}
