@testable import Gatewire
import GatewireBase
import GatewireRedis
import Testing

/// The shared breaker's rules, as the script runs them in a real Redis (whose clock alone
/// decides): the window's threshold, the window sliding, exactly one trial per break,
/// transitions announced once and published on the fleet's channel, and an expiry on every key. The waits pass a duration with a
/// margin; the steps between them have a window (30 s) or a break (1.5 s) far longer than they take.
@Suite(.timeLimit(.minutes(1))) struct BreakerScriptTests {
    /// ratio 0.5, at least 4 outcomes, a window (ms), a 1500 ms break; the channel.
    let policy: [String]
    static let channel = "t:breakers:0"

    init() { policy = ["0.5", "4", "30000", "1500", Self.channel] }
    init(window: Int) { policy = ["0.5", "4", String(window), "1500", Self.channel] }

    static func reply(_ result: Result<RedisReply, RedisError>) -> [Int64] {
        guard case let .success(.array(fields)) = result else { return [-99] }
        return fields.map { if case let .integer(value) = $0 { value } else { -98 } }
    }

    func record(_ keys: [String], failures: Int, total: Int) -> ScriptRedis.Step {
        .script(keys: keys, ["record"] + policy + [String(failures), String(total)])
    }

    func claim(_ keys: [String], token: String) -> ScriptRedis.Step {
        .script(keys: keys, ["claim"] + policy + [token])
    }

    func trial(_ keys: [String], token: String, _ outcome: String) -> ScriptRedis.Step {
        .script(keys: keys, ["trial"] + policy + [token, outcome])
    }

    /// Polls `condition` every 10 ms for at most 10 s; whether it came true.
    static func wait(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Runs `steps` pipelined (no wait falls between them) and returns the script replies' numbers.
    func replies(_ redis: ScriptRedis, _ steps: ScriptRedis.Step...) async -> [[Int64]] {
        await redis.run(steps).map(Self.reply)
    }

    @Test("the fleet's batches open the breaker at the ratio over the minimum throughput, announced once; then one trial per break")
    func thresholdAndOneTrial() async throws {
        let redis = try await ScriptRedis()
        let keys = ["t:{127.0.0.1:80|p}:state", "t:{127.0.0.1:80|p}:trial"]
        let heard = Lock<[RedisSubscription.Event]>([])
        let endpoint = redis.endpoint
        let loop = redis.loop
        let subscription = await ScriptRedis.onLoop(loop) { done in
            done(RedisSubscription(endpoints: [endpoint], channel: Array(Self.channel.utf8), loop: loop) { event in
                heard.withLock { $0.append(event) }
            })
        }
        #expect(await Self.wait { heard.withLock { $0 == [.subscribed] } })
        let opening = await replies(redis,
            record(keys, failures: 0, total: 3),
            record(keys, failures: 1, total: 1),    // 1 of 4: below 0.5
            record(keys, failures: 1, total: 1),    // 2 of 5
            record(keys, failures: 2, total: 2),    // 4 of 7: open, announced
            record(keys, failures: 5, total: 5),    // while open: nothing, unannounced
            claim(keys, token: "a"))                // no trial before the break
        #expect(opening[0...3] == [[0, 0, 0], [0, 0, 0], [0, 0, 0], [1, 1500, 1]])
        #expect(opening[4].count == 3 && opening[4][0] == 1 && opening[4][1] > 0 && opening[4][2] == 0)
        #expect(opening[5].count == 3 && opening[5][0] == 1 && opening[5][1] > 0)

        try await Task.sleep(for: .milliseconds(1_600))
        let trials = await replies(redis,
            claim(keys, token: "a"),                // a's trial
            claim(keys, token: "b"),                // a holds it
            trial(keys, token: "b", "success"),     // only the holder ends it
            trial(keys, token: "a", "failure"),     // another break, unannounced
            claim(keys, token: "c"))
        #expect(trials[0] == [2, 1500, 0])
        #expect(trials[1].count == 3 && trials[1][0] == 3 && trials[1][1] > 0 && trials[1][1] <= 1500)
        #expect(trials[2].first == 3)
        #expect(trials[3] == [1, 1500, 0])
        #expect(trials[4].first == 1)

        try await Task.sleep(for: .milliseconds(1_600))
        let raw = await redis.run([
            claim(keys, token: "c"),
            trial(keys, token: "c", "void"),        // given back
            claim(keys, token: "d"),
            trial(keys, token: "d", "success"),     // closed, announced
            .command(["EXISTS", keys[0], keys[1]]),
            record(keys, failures: 1, total: 1),    // a fresh window
        ])
        let closing = raw.map(Self.reply)
        #expect(closing[0] == [2, 1500, 0] && closing[1] == [1, 0, 0] && closing[2] == [2, 1500, 0])
        #expect(closing[3] == [0, 0, 1])
        #expect(raw[4] == .success(.integer(0)))    // closed: neither key is left
        #expect(closing[5] == [0, 0, 0])

        // Published: the opening, the failed trial's new break, the successful trial's close;
        // nothing for the claims, the counts while open, another's token or the void trial.
        #expect(await Self.wait { heard.withLock { $0.count >= 4 } })
        let news = heard.withLock { $0 }.dropFirst().map { event -> BreakerNews? in
            guard case let .message(payload) = event else { return nil }
            return BreakerNews(payload)
        }
        #expect(news == [.opened(stateKey: keys[0], left: 1.5), .opened(stateKey: keys[0], left: 1.5),
                         .closed(stateKey: keys[0])])
        await ScriptRedis.onLoop(loop) { done in
            subscription.close()
            done(())
        }

        let expiries = await redis.keysAndExpiries()
        #expect(!expiries.isEmpty && !expiries.values.contains(-1), "\(expiries)")  // -2: expired meanwhile
        await redis.stop()
    }

    @Test("a channel payload is read as the script writes it; any other is ignored, never a crash")
    func news() {
        #expect(BreakerNews(Array("open 4200 gw:{h:80|0123}:state".utf8)) == .opened(stateKey: "gw:{h:80|0123}:state", left: 4.2))
        #expect(BreakerNews(Array("open 0 a b".utf8)) == .opened(stateKey: "a b", left: 0))
        #expect(BreakerNews(Array("closed gw:{h|1}:state".utf8)) == .closed(stateKey: "gw:{h|1}:state"))
        for payload in ["", "open", "open 5", "open 5 ", "open -5 k", "open 1e+15 k", "open x k", "closed", "closed ",
                        "opened 5 k", "half-open k"] {
            #expect(BreakerNews(Array(payload.utf8)) == nil, "\(payload)")
        }
        #expect(BreakerNews([0xFF, 0x20, 0x00]) == nil)
    }

    @Test("the window slides: outcomes older than samplingDuration no longer count, and their buckets are deleted")
    func windowSlides() async throws {
        let tests = BreakerScriptTests(window: 1_000)
        let redis = try await ScriptRedis()
        let keys = ["t:{127.0.0.1:81|p}:state", "t:{127.0.0.1:81|p}:trial"]
        #expect(await replies(redis, tests.record(keys, failures: 3, total: 3)) == [[0, 0, 0]])  // 3: below 4
        try await Task.sleep(for: .milliseconds(1_150))
        let later = await redis.run([
            tests.record(keys, failures: 1, total: 1),  // 4 outcomes, 4 failures if the old ones still counted
            .command(["HLEN", keys[0]]),                // this bucket's n and f only
            tests.record(keys, failures: 3, total: 3),  // now 4 of 4
            .command(["PTTL", keys[0]]),                // read in the same pipeline
        ])
        #expect(Self.reply(later[0]) == [0, 0, 0])
        #expect(later[1] == .success(.integer(2)))
        #expect(Self.reply(later[2]) == [1, 1500, 1])
        if case let .success(.integer(stateExpiry)) = later[3] {
            // It outlives the 1.5 s break (the trial needs it) by the 1 s window and 1 s more.
            #expect(stateExpiry > 3_000 && stateExpiry <= 3_500)
        } else {
            Issue.record("PTTL answered \(later[3])")
        }
        // Whatever is still there when scanned (a slow machine may find it expired) has an expiry.
        let expiries = await redis.keysAndExpiries()
        #expect(!expiries.values.contains(-1), "\(expiries)")
        await redis.stop()
    }
}
