@testable import Gatewire
import GatewireRedis
import Testing

/// The shared breaker's rules, as the script runs them in a real Redis (whose clock alone
/// decides): the window's threshold, the window sliding, exactly one trial per break,
/// transitions announced once, and an expiry on every key. The waits pass a duration with a
/// margin; the steps between them have a window (30 s) or a break (1.5 s) far longer than they take.
@Suite(.timeLimit(.minutes(1))) struct BreakerScriptTests {
    /// ratio 0.5, at least 4 outcomes, a window (ms), a 1500 ms break.
    let policy: [String]

    init() { policy = ["0.5", "4", "30000", "1500"] }
    init(window: Int) { policy = ["0.5", "4", String(window), "1500"] }

    static func reply(_ result: Result<RedisReply, RedisError>) -> [Int64] {
        guard case let .success(.array(fields)) = result else { return [-99] }
        return fields.map { if case let .integer(value) = $0 { value } else { -98 } }
    }

    func record(_ redis: ScriptRedis, _ keys: [String], failures: Int, total: Int) async -> [Int64] {
        Self.reply(await redis.script(keys: keys, "record", policy[0], policy[1], policy[2],
                                      policy[3], String(failures), String(total)))
    }

    func claim(_ redis: ScriptRedis, _ keys: [String], token: String) async -> [Int64] {
        Self.reply(await redis.script(keys: keys, "claim", policy[0], policy[1], policy[2],
                                      policy[3], token))
    }

    func trial(_ redis: ScriptRedis, _ keys: [String], token: String, _ outcome: String) async -> [Int64] {
        Self.reply(await redis.script(keys: keys, "trial", policy[0], policy[1], policy[2],
                                      policy[3], token, outcome))
    }

    @Test("the fleet's batches open the breaker at the ratio over the minimum throughput, announced once; then one trial per break")
    func thresholdAndOneTrial() async throws {
        let redis = try await ScriptRedis()
        let keys = ["t:{127.0.0.1:80|p}:state", "t:{127.0.0.1:80|p}:trial"]
        #expect(await record(redis, keys, failures: 0, total: 3) == [0, 0, 0])
        #expect(await record(redis, keys, failures: 1, total: 1) == [0, 0, 0])  // 1 of 4: below 0.5
        #expect(await record(redis, keys, failures: 1, total: 1) == [0, 0, 0])  // 2 of 5
        let opened = await record(redis, keys, failures: 2, total: 2)           // 4 of 7: open
        #expect(opened == [1, 1500, 1])
        // Later batches while open change nothing and announce nothing; no trial before the break.
        let again = await record(redis, keys, failures: 5, total: 5)
        #expect(again.count == 3 && again[0] == 1 && again[1] > 0 && again[1] <= 1500 && again[2] == 0)
        let early = await claim(redis, keys, token: "a")
        #expect(early.count == 3 && early[0] == 1 && early[1] > 0)

        try await Task.sleep(for: .milliseconds(1_600))
        #expect(await claim(redis, keys, token: "a") == [2, 1500, 0])         // a's trial
        let second = await claim(redis, keys, token: "b")
        #expect(second.count == 3 && second[0] == 3 && second[1] > 0 && second[1] <= 1500)
        // Only the lease's holder ends the trial; its failure opens another break, unannounced.
        #expect(await trial(redis, keys, token: "b", "success").first == 3)
        #expect(await trial(redis, keys, token: "a", "failure") == [1, 1500, 0])
        #expect(await claim(redis, keys, token: "c").first == 1)

        try await Task.sleep(for: .milliseconds(1_600))
        #expect(await claim(redis, keys, token: "c") == [2, 1500, 0])
        #expect(await trial(redis, keys, token: "c", "void") == [1, 0, 0])    // given back
        #expect(await claim(redis, keys, token: "d") == [2, 1500, 0])
        #expect(await trial(redis, keys, token: "d", "success") == [0, 0, 1]) // closed, announced
        #expect(await redis.send("EXISTS", keys[0], keys[1]) == .success(.integer(0)))
        #expect(await record(redis, keys, failures: 1, total: 1) == [0, 0, 0])  // a fresh window

        let expiries = await redis.keysAndExpiries()
        #expect(!expiries.isEmpty && !expiries.values.contains(-1), "\(expiries)")  // -2: expired meanwhile
        await redis.stop()
    }

    @Test("the window slides: outcomes older than samplingDuration no longer count, and their buckets are deleted")
    func windowSlides() async throws {
        let tests = BreakerScriptTests(window: 2_000)
        let redis = try await ScriptRedis()
        let keys = ["t:{127.0.0.1:81|p}:state", "t:{127.0.0.1:81|p}:trial"]
        #expect(await tests.record(redis, keys, failures: 3, total: 3) == [0, 0, 0])  // 3 outcomes: below 4
        try await Task.sleep(for: .milliseconds(2_200))
        // 4 outcomes, 4 failures if the old ones still counted; only this one does.
        #expect(await tests.record(redis, keys, failures: 1, total: 1) == [0, 0, 0])
        #expect(await redis.send("HLEN", keys[0]) == .success(.integer(2)))          // this bucket's n and f
        #expect(await tests.record(redis, keys, failures: 3, total: 3) == [1, 1500, 1])
        let expiries = await redis.keysAndExpiries()
        #expect(!expiries.isEmpty && !expiries.values.contains(-1), "\(expiries)")  // -2: expired meanwhile
        await redis.stop()
    }
}
