@testable import Gatewire
import Glibc
import Testing

/// The worker pool's own locking, through its internal API: what a job's captures do when
/// they are released must never run under the pool's mutex.
@Suite(.serialized) struct WorkerPoolLockTests {
    /// Calls `action` from its deinit (the last release of a job's capture).
    final class ReleaseProbe: @unchecked Sendable {
        let action: () -> Void
        init(_ action: @escaping () -> Void) { self.action = action }
        deinit { action() }
    }

    /// A job holding the last reference to something whose deinit uses the pool (as a call
    /// holding a response whose tree goes home to this worker) once deadlocked the worker on
    /// its own mutex: the job was released after the worker took the lock again.
    @Test func aJobsCapturesAreReleasedOutsideThePoolLock() throws {
        let pool = WorkerPool.lease()
        let reached = Lock(false)
        // The job's capture list makes the only reference to the probe.
        pool.submit { [probe = ReleaseProbe { pool.submit { _ in reached.withLock { $0 = true } } }] _ in
            _ = probe
        }
        let limit = MonotonicNow.seconds + 10
        while !reached.withLock({ $0 }) && MonotonicNow.seconds < limit { usleep(1_000) }
        let ok = reached.withLock { $0 }
        #expect(ok, "the job submitted from a released capture never ran: the worker is stuck on the pool lock")
        if ok { WorkerPool.returnLease(pool) }  // a stuck worker could never be joined
    }
}
