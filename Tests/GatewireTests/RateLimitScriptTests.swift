@testable import Gatewire
import GatewireRedis
import Testing

/// The shared rate limit's rules, as its script runs them in a real Redis (whose clock alone
/// decides): a lease takes at most a burst at once, the next slot's wait when none is left,
/// a reservation within the caller's wait, slots given back, a pause, and an expiry on every
/// key. The steps are pipelined: no wait of the test's falls between them.
@Suite(.timeLimit(.minutes(1))) struct RateLimitScriptTests {
    /// 20 per second (an interval of 50000 microseconds), burst 5 (a tolerance of 250000).
    static let policy = ["50000", "250000"]
    static let keys = ["t:{rate|host|127.0.0.1:80|p}:tat", "t:{rate|host|127.0.0.1:80|p}:pause"]

    static func step(_ arguments: [String]) -> ScriptRedis.Step {
        .command(["EVAL", RateLimitScript.source, "2"] + keys + [arguments[0]] + policy + arguments.dropFirst())
    }

    static func numbers(_ result: Result<RedisReply, RedisError>) -> [Int64] {
        guard case let .success(.array(fields)) = result else { return [-99] }
        return fields.map { if case let .integer(value) = $0 { value } else { -98 } }
    }

    @Test("a lease takes up to a burst + 1 now, then reserves within the wait allowed, or says when a slot frees")
    func leases() async throws {
        let redis = try await ScriptRedis()
        let replies = await redis.run([
            Self.step(["lease", "10", "0"]),          // a fresh limit: burst + 1 = 6 at once
            Self.step(["lease", "1", "0"]),           // none left: the wait for the next, nothing taken
            Self.step(["lease", "2", "1000000"]),     // two reserved, usable after about 100 ms
            Self.step(["return", "2"]),               // given back unused
            Self.step(["lease", "1", "1000000"]),     // the first of them again
            Self.step(["lease", "0", "0"]),           // only asks about a pause: none
            Self.step(["lease", "6", "120000"]),      // only 1 of 6 conforms within 120 ms
        ]).map(Self.numbers)
        #expect(replies[0] == [6, 0, 0])
        #expect(replies[1].count == 3 && replies[1][0] == 0 && replies[1][1] > 0 && replies[1][1] <= 50_000)
        #expect(replies[2].count == 3 && replies[2][0] == 2 && replies[2][1] > 50_000 && replies[2][1] <= 100_000)
        #expect(replies[3] == [0, 0, 0])
        #expect(replies[4].count == 3 && replies[4][0] == 1 && replies[4][1] > 0 && replies[4][1] <= 50_000)
        #expect(replies[5] == [0, 0, 0])
        #expect(replies[6].count == 3 && replies[6][0] == 1 && replies[6][1] > 50_000 && replies[6][1] <= 100_000)
        // The TAT key expires a few hundred ms after its last write: a loaded machine may
        // read after that; what is there has an expiry.
        let expiries = await redis.keysAndExpiries()
        #expect(expiries.count <= 1 && !expiries.values.contains(-1), "\(expiries)")
        await redis.stop()
    }

    @Test("a pause stops every lease until it ends; a shorter one does not cut it; both keys expire")
    func pauses() async throws {
        let redis = try await ScriptRedis()
        let replies = await redis.run([
            // Pauses long enough that the keys are still there when a loaded machine reads them.
            Self.step(["pause", "20000"]),
            Self.step(["pause", "5000"]),
            Self.step(["lease", "3", "0"]),
            Self.step(["lease", "0", "0"]),
            .command(["PTTL", Self.keys[1]]),
        ])
        let numbers = replies.prefix(4).map(Self.numbers)
        #expect(numbers[0] == [0, 0, 20000] && numbers[1] == [0, 0, 5000])
        #expect(numbers[2].count == 3 && numbers[2][0] == 0 && numbers[2][2] > 15000 && numbers[2][2] <= 20000)
        #expect(numbers[3][2] > 15000)
        guard case let .success(.integer(left)) = replies[4] else { Issue.record("PTTL"); return }
        #expect(left > 15000 && left <= 20000)
        let expiries = await redis.keysAndExpiries()
        #expect(!expiries.isEmpty && !expiries.values.contains(-1), "\(expiries)")
        await redis.stop()
    }
}
