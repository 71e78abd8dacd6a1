@testable import Gatewire
import Glibc
import Testing

/// What Gatewire releases while it holds one of its own locks could run arbitrary deinit code
/// (a call, a response tree, a user's closure captures) that takes the same lock again: these
/// internal-API tests make sure such releases happen after the lock is dropped.
@Suite(.serialized) struct ReleaseOutsideLockTests {
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

    /// Removing an observer releases its closure; a capture whose deinit registers another
    /// callback on the same registry must not find the registry's lock still held.
    @Test func aRemovedEntryIsReleasedOutsideTheRegistryLock() async throws {
        let registry = CallbackRegistry<@Sendable () -> Void>()
        let probe = ReleaseProbe { _ = registry.add {} }
        let token = registry.add { [probe] in _ = probe }
        _ = consume probe
        let removed = Lock(false)
        Task.detached { _ = registry.remove(token); removed.withLock { $0 = true } }
        let limit = MonotonicNow.seconds + 10
        while !removed.withLock({ $0 }) && MonotonicNow.seconds < limit { usleep(1_000) }
        let returned = removed.withLock { $0 }
        #expect(returned, "remove never returned: the entry was released under the registry's lock")
        if returned { #expect(registry.snapshot.count == 1) }  // the one the deinit added (a stuck lock would hang here)
    }
}
