import Gatewire
import Glibc
import Testing

/// The event loop's close observers: how work that waits outside the loop (a credential's
/// refresh, a mapping on the worker pool) learns that the loop closed and its answer, refused
/// by `execute`, will never come. A real loop on its own thread; no transfer.
@Suite struct EventLoopCloseObserverTests {
    /// Polls `condition` every millisecond for at most 5 seconds; whether it came true.
    static func eventually(_ condition: () -> Bool) -> Bool {
        let end = MonotonicNow.seconds + 5
        while !condition() {
            if MonotonicNow.seconds > end { return false }
            usleep(1_000)
        }
        return true
    }

    @Test func observersRunOnceOnTheLoopThreadAfterTheTimersUnlessRemoved() {
        let loop = EventLoop()
        let log = Lock<[String]>([])
        let ready = Lock(false)
        _ = loop.execute {
            _ = loop.schedule(after: 3_600) { fired in log.withLock { $0.append("timer fired=\(fired)") } }
            _ = loop.onClose { log.withLock { $0.append("first on the loop thread=\(loop.isCurrentThread)") } }
            let removed = loop.onClose { log.withLock { $0.append("removed before the close") } }
            let second = Lock(0)
            _ = loop.onClose {
                log.withLock { $0.append("second") }
                loop.removeCloseObserver(second.withLock { $0 })  // its wait ended: it must not run
                _ = loop.onClose { log.withLock { $0.append("added while closing") } }
            }
            second.withLock { $0 = loop.onClose { log.withLock { $0.append("removed while closing") } } }
            loop.removeCloseObserver(removed)
            loop.removeCloseObserver(removed)  // an id already removed is ignored
            ready.withLock { $0 = true }
        }
        #expect(Self.eventually { ready.withLock { $0 } })
        loop.shutdown()
        let expected = ["timer fired=false", "first on the loop thread=true", "second", "added while closing"]
        #expect(log.withLock { $0 } == expected)
        loop.shutdown()  // idempotent: nothing runs twice
        #expect(log.withLock { $0 } == expected)
    }

    @Test func anObserverRemovedBeforeTheCloseNeverRuns() {
        let loop = EventLoop()
        let runs = Lock(0)
        let removed = Lock(false)
        _ = loop.execute {
            let id = loop.onClose { runs.withLock { $0 += 1 } }
            // The answer came back on the loop: the wait is over before the close.
            _ = loop.execute {
                loop.removeCloseObserver(id)
                removed.withLock { $0 = true }
            }
        }
        #expect(Self.eventually { removed.withLock { $0 } })
        loop.shutdown()
        #expect(runs.withLock { $0 } == 0)
    }
}
