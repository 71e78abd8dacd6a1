@testable import Gatewire
import GatewireBase
import GatewireRedis
import GatewireTransport
import Testing

/// A client's shared breaker hears the fleet's channel: another client's operations (the
/// test's own, run as the breaker script) open and close the fleet's breaker, and this
/// client's breaker knows it without an operation of its own, against a real redis-server.
@Suite(.timeLimit(.minutes(1))) struct SharedBreakerPushTests {
    /// A store and one breaker of it, made and used on the loop thread only.
    private final class Client: @unchecked Sendable {
        let store: RedisBreakerStore
        let breaker: SharedCircuitBreaker

        init(_ store: RedisBreakerStore, _ breaker: SharedCircuitBreaker) {
            self.store = store
            self.breaker = breaker
        }
    }

    @Test("another client's batch opens the breaker: this one refuses its next call without asking; a trial's success elsewhere closes it; another fleet's channel or breaker changes nothing")
    func pushed() async throws {
        let redis = try await ScriptRedis()
        let policy = CircuitBreakerPolicy(failureRatio: 0.5, minimumThroughput: 4, samplingDuration: 30, breakDuration: 6)
        var configured = SharedStateSettings(server: .single(redis.endpoint))
        configured.keyPrefix = "push:"
        let settings = configured
        let loop = redis.loop
        let client: Client = await ScriptRedis.onLoop(loop) { done in
            let store = RedisBreakerStore(settings: settings, loop: loop)
            done(Client(store, store.breaker(host: "127.0.0.1:9", policy: policy) as! SharedCircuitBreaker))
        }
        let channel = "push:breakers:0"
        let state = client.breaker.stateKey
        let keys = [state, String(state.dropLast("state".count)) + "trial"]
        let arguments = ["0.5", "4", "30000", "6000", channel]
        func known() async -> SharedCircuitBreaker.Known {
            await ScriptRedis.onLoop(loop) { done in done(client.breaker.known) }
        }
        func wait(_ condition: (SharedCircuitBreaker.Known) -> Bool) async -> SharedCircuitBreaker.Known {
            for _ in 0..<500 {
                let now = await known()
                if condition(now) { return now }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return await known()
        }
        var subscribers: RedisReply?
        for _ in 0..<500 where subscribers != .array([.bulk(Array(channel.utf8)), .integer(1)]) {
            subscribers = try? await redis.send("PUBSUB", "NUMSUB", channel).get()
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(subscribers == .array([.bulk(Array(channel.utf8)), .integer(1)]))

        // Not ours: another prefix's breaker on this channel, and another channel.
        _ = await redis.send("PUBLISH", channel, "open 1000 push:{other|0000000000000000}:state")
        _ = await redis.send("PUBLISH", "elsewhere:breakers:0", "open 1000 \(state)")
        let record = ScriptRedis.Step.script(keys: keys, ["record"] + arguments + ["4", "4"])
        let opened = await redis.run([record])
        #expect(opened == [.success(.array([.integer(1), .integer(6000), .integer(1)]))])
        let first = await wait { $0 != .closed }
        guard case let .open(until) = first else { Issue.record("not opened: \(first)"); return }
        // Open for what is left of the 6 s break, from the moment the message came (a loaded
        // machine may take a while to run this check; the opening itself is what shows).
        let left = until - MonotonicClock.now()
        #expect(left <= 6.0)

        // The break ends; another client runs the trial, which succeeds: closed for this one too.
        try await Task.sleep(for: .milliseconds(6_100))
        let trial = await redis.run([.script(keys: keys, ["claim"] + arguments + ["t"]),
                                     .script(keys: keys, ["trial"] + arguments + ["t", "success"])])
        #expect(trial.last == .success(.array([.integer(0), .integer(0), .integer(1)])))
        #expect(await wait { $0 == .closed } == .closed)

        // Opened again by the fleet: the next call is refused, for the break's remaining time.
        let reopened = MonotonicClock.now()
        #expect(await redis.run([record]) == opened)
        _ = await wait { $0 != .closed }
        let (permission, asked): (CircuitBreaker.Permission, Double) = await ScriptRedis.onLoop(loop) { done in
            let now = MonotonicClock.now()
            done((client.breaker.acquire(now: now), now))
        }
        guard case let .rejected(retryIn) = permission else { Issue.record("allowed: \(permission)"); return }
        #expect(retryIn <= 6.0)
        // Refused for a time left while the break runs; a loaded machine that asks only after
        // it ended sees the trial being claimed instead (refused, no time left).
        #expect(retryIn > 0 || asked - reopened >= 6.0, "refused for \(retryIn) s, \(asked - reopened) s after the opening")
        await redis.stop()
    }
}
