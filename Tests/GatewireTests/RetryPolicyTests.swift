import Gatewire
import Glibc
import Testing

@Suite("RetryPolicy: delays, saturation, config")
struct RetryPolicyTests {
    @Test("defaults match the documented values")
    func defaults() {
        let policy = RetryPolicy()
        #expect(policy.maxRetries == 2)
        #expect(policy.initialDelay == 0.5)
        #expect(policy.multiplier == 2)
        #expect(policy.maxDelay == 30)
        #expect(policy.jitter == .full)
        #expect(policy.retryableStatusCodes == [408, 429, 500, 502, 503, 504])
        #expect(policy.retryableMethods == [.get, .head, .options, .put, .delete, .trace])
        #expect(policy.maxRetryAfter == 60)
        #expect(RetryPolicy.none.maxRetries == 0)
    }

    @Test("SplitMix64 reproduces the reference sequence")
    func splitMix() {
        var generator = SeededGenerator(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
        var a = SeededGenerator(seed: 42)
        var b = SeededGenerator(seed: 42)
        #expect((0..<10).map { _ in a.next() } == (0..<10).map { _ in b.next() })
        var c = SeededGenerator()
        var d = SeededGenerator()
        #expect(c.next() != d.next())
    }

    @Test("exponential delays without jitter are exact and capped")
    func exactDelays() {
        let policy = RetryPolicy(initialDelay: 0.5, multiplier: 2, maxDelay: 30, jitter: .none)
        var generator = SeededGenerator(seed: 1)
        let delays = (1...8).map { policy.delay(forRetry: $0, using: &generator) }
        #expect(delays == [0.5, 1, 2, 4, 8, 16, 30, 30])
        #expect(generator == SeededGenerator(seed: 1))  // no jitter, no draw
    }

    @Test("multiplier 1 gives a fixed interval")
    func fixedInterval() {
        let policy = RetryPolicy(initialDelay: 10, multiplier: 1, jitter: .none)
        var generator = SeededGenerator(seed: 1)
        #expect((1...5).map { policy.delay(forRetry: $0, using: &generator) } == [10, 10, 10, 10, 10])
    }

    @Test("full and equal jitter use exactly one draw in [0, 1)")
    func jitteredDelays() {
        for jitter in [Jitter.full, .equal] {
            let policy = RetryPolicy(initialDelay: 1, multiplier: 2, maxDelay: 30, jitter: jitter)
            var generator = SeededGenerator(seed: 7)
            var mirror = SeededGenerator(seed: 7)
            for n in 1...7 {
                let base = min(30, pow(2, Double(n - 1)))
                let unit = Double(mirror.next() >> 11) * 0x1.0p-53
                let expected = jitter == .full ? base * unit : base / 2 + base / 2 * unit
                #expect(policy.delay(forRetry: n, using: &generator) == expected)
            }
        }
    }

    @Test("delays saturate at maxDelay: huge n, huge multiplier, odd inputs")
    func saturation() {
        var generator = SeededGenerator(seed: 3)
        let big = RetryPolicy(initialDelay: 0.5, multiplier: 1000, maxDelay: 30, jitter: .none)
        #expect(big.delay(forRetry: 1_000_000, using: &generator) == 30)
        #expect(big.delay(forRetry: Int.max, using: &generator) == 30)
        #expect(big.delay(forRetry: 3, using: &generator) == 30)
        #expect(RetryPolicy(jitter: .none).delay(forRetry: 1_000_000, using: &generator) == 30)
        for jitter in Jitter.allCases {
            let policy = RetryPolicy(multiplier: 1000, jitter: jitter)
            for n in [Int.min, -1, 0, 1, 2, 1000, 1_000_000, Int.max] {
                let d = policy.delay(forRetry: n, using: &generator)
                #expect(d.isFinite && d >= 0 && d <= 30)
            }
        }
        #expect(RetryPolicy(jitter: .none).delay(forRetry: 0, using: &generator) == 0.5)
        // Inputs the config would reject still give sane values.
        let odd = RetryPolicy(initialDelay: .infinity, multiplier: .nan, maxDelay: .infinity, jitter: .none)
        #expect(odd.delay(forRetry: 5, using: &generator).isFinite)
        #expect(RetryPolicy(initialDelay: -1, jitter: .none).delay(forRetry: 2, using: &generator) == 0)
        #expect(RetryPolicy(initialDelay: 0, multiplier: .infinity, jitter: .none).delay(forRetry: 9, using: &generator) == 0)
        #expect(RetryPolicy(maxDelay: -5, jitter: .none).delay(forRetry: 1, using: &generator) == 0)
    }

    private func policy(_ text: String) throws -> RetryPolicy {
        let value = try JSONValue.parse(text)
        return try RetryPolicy(config: ConfigNode(value.node, path: "retry"))
    }

    private func configError(_ text: String) -> ConfigError? {
        do {
            _ = try policy(text)
            return nil
        } catch let error as ConfigError {
            return error
        } catch {
            return nil
        }
    }

    @Test("config: the full form and the empty form")
    func configForms() throws {
        let full = try policy("""
            {"maxRetries": 3, "initialDelay": 0.25, "multiplier": 3, "maxDelay": 20, "jitter": "equal",
             "statusCodes": [503, 429], "methods": ["get", "PUT"], "maxRetryAfter": 120}
            """)
        #expect(full == RetryPolicy(
            maxRetries: 3, initialDelay: 0.25, multiplier: 3, maxDelay: 20, jitter: .equal,
            retryableStatusCodes: [429, 503], retryableMethods: [.get, .put], maxRetryAfter: 120))
        #expect(try policy("{}") == RetryPolicy())
        #expect(try policy(#"{"maxRetries": null}"#) == RetryPolicy())
        #expect(try policy(#"{"statusCodes": [], "methods": []}"#).retryableStatusCodes.isEmpty)
    }

    @Test("config errors name the field", arguments: [
        (#"{"maxRetries": -1}"#, "retry.maxRetries"),
        (#"{"maxRetries": 1.5}"#, "retry.maxRetries"),
        (#"{"maxRetries": "3"}"#, "retry.maxRetries"),
        (#"{"initialDelay": -0.5}"#, "retry.initialDelay"),
        (#"{"multiplier": 0.5}"#, "retry.multiplier"),
        (#"{"maxDelay": 1e300}"#, "retry.maxDelay"),
        (#"{"jitter": "random"}"#, "retry.jitter"),
        (#"{"jitter": 1}"#, "retry.jitter"),
        (#"{"statusCodes": [503, 99]}"#, "retry.statusCodes[1]"),
        (#"{"statusCodes": 503}"#, "retry.statusCodes"),
        (#"{"methods": ["GET", "FETCH"]}"#, "retry.methods[1]"),
        (#"{"maxRetryAfter": -1}"#, "retry.maxRetryAfter"),
        (#"{"maxRetrys": 3}"#, "retry.maxRetrys"),
        (#"[1]"#, "retry"),
    ])
    func configErrors(text: String, path: String) {
        let error = configError(text)
        #expect(error?.path == path, "\(text) -> \(String(describing: error))")
    }

    @Test("config error messages say what is wrong")
    func configMessages() {
        #expect(configError(#"{"jitter": "random"}"#)?.message.contains("none, full, equal") == true)
        #expect(configError(#"{"methods": ["FETCH"]}"#)?.message.contains("unknown method \"FETCH\"") == true)
        #expect(configError(#"{"maxRetrys": 3}"#)?.message.contains("unknown field") == true)
        #expect(configError(#"{"maxRetries": -1}"#)?.description == "retry.maxRetries: -1 is out of range 0...100")
    }
}
