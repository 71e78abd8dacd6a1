@testable import Gatewire
import Testing

/// The breaker around the shared store (``StoreHealth``), without a socket: when the client's
/// breakers and rate limits decide in process, and the one announcement of each degradation
/// and recovery that becomes the client's event (``CallEvent/Kind/sharedStateDegraded``).
@Suite struct StoreHealthTests {
    /// What the health announced, in order: `degraded` or `recovered`.
    final class Heard {
        var kinds: [String] = []
    }

    @Test("local from the first failure; after 3 in a row one degradation, one recovery at the next success, none more")
    func announcedOnce() {
        let heard = Heard()
        let health = StoreHealth(server: "redis://127.0.0.1:1") { degraded, message in
            heard.kinds.append(degraded ? "degraded" : "recovered")
            #expect(message.hasPrefix("shared state: redis://127.0.0.1:1 "))
        }
        #expect(!health.decidesLocally)
        health.failed("timeout", now: 10)
        #expect(health.decidesLocally && health.allows(now: 10) && heard.kinds.isEmpty)
        health.failed("timeout", now: 10)
        health.failed("timeout", now: 10)
        #expect(heard.kinds == ["degraded"] && !health.allows(now: 10.5) && health.allows(now: 11))
        health.failed("timeout", now: 11)  // the probe failed: the same outage
        #expect(heard.kinds == ["degraded"])
        health.succeeded()
        health.succeeded()
        #expect(heard.kinds == ["degraded", "recovered"] && !health.decidesLocally)
        health.failed("timeout", now: 12)
        health.succeeded()  // a failure or two is no outage: nothing to announce
        #expect(heard.kinds == ["degraded", "recovered"])
    }

    @Test("the store's events belong to no call: call_id 0, the log's sentence as message")
    func eventJSON() {
        let event = CallEvent(storeDegraded: true, message: "shared state: down")
        #expect(event.kind == .sharedStateDegraded && event.callID == 0)
        #expect(event.serializedJSON() == #"{"event":"shared_state_degraded","call_id":0,"message":"shared state: down"}"#)
        #expect(CallEvent(storeDegraded: false, message: "up").kind.rawValue == "shared_state_recovered")
    }
}
