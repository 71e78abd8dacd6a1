@testable import Gatewire
import Testing

/// GCRA and the in-process rate limiter on a simulated clock (no loop, no socket), and the
/// config's `rateLimit`: its defaults, where it is read and every mistake an error naming its field.
@Suite("Rate limits: GCRA, the in-process limiter, the config")
struct RateLimitTests {
    static let base = #""baseURL": "http://127.0.0.1:1""#

    // MARK: GCRA

    @Test("GCRA: a new limit admits a burst of burst + 1, then one attempt per interval")
    func gcraBurstThenSpacing() {
        // 10 per second (interval 0.1 s), burst 2 (tolerance 0.2 s), all asked at t = 0.
        var tat = 0.0
        var admitted = 0
        for _ in 0..<5 {
            if case .admit(let next) = GCRA.decide(tat: tat, now: 0, interval: 0.1, tolerance: 0.2, maxWait: 0) {
                tat = next
                admitted += 1
            }
        }
        #expect(admitted == 3)
        #expect(abs(tat - 0.3) < 1e-9)
        // The fourth conforms at tat - tolerance = 0.1 s.
        guard case .refuse(let retryAfter) = GCRA.decide(tat: tat, now: 0, interval: 0.1, tolerance: 0.2, maxWait: 0)
        else { Issue.record("refuse"); return }
        #expect(abs(retryAfter - 0.1) < 1e-9)
        guard case .admit = GCRA.decide(tat: tat, now: 0.1, interval: 0.1, tolerance: 0.2, maxWait: 0) else {
            Issue.record("admit at 0.1 s"); return
        }
    }

    @Test("GCRA: a wait allowed reserves the slot (the TAT moves on); one too long takes nothing")
    func gcraWaitReserves() {
        guard case .wait(let wait, let tat) = GCRA.decide(tat: 1.0, now: 0.5, interval: 0.25, tolerance: 0,
                                                          maxWait: 1) else { Issue.record("wait"); return }
        #expect(wait == 0.5 && tat == 1.25)
        guard case .wait(let second, _) = GCRA.decide(tat: tat, now: 0.5, interval: 0.25, tolerance: 0, maxWait: 1)
        else { Issue.record("second wait"); return }
        #expect(second == 0.75)  // behind the first: the waiting calls go out in order
        #expect(GCRA.decide(tat: tat, now: 0.5, interval: 0.25, tolerance: 0, maxWait: 0.7) == .refuse(retryAfter: 0.75))
    }

    @Test("a slot returned by a call that stopped waiting is the next caller's: the TAT moves back one interval")
    func returnedSlot() {
        let limiter = LocalRateLimiter(policy: RateLimitPolicy(requests: 1, per: 30))
        #expect(limiter.admit(now: 0, maxWait: 100) == .admitted)
        #expect(limiter.admit(now: 1, maxWait: 100) == .wait(29, reserved: true))
        #expect(limiter.admit(now: 1, maxWait: 100) == .wait(59, reserved: true))
        limiter.returnSlot(now: 2)  // the second waiter was cancelled
        #expect(limiter.admit(now: 2, maxWait: 0) == .refused(retryAfter: 58, paused: false))
        limiter.returnSlot(now: 2)  // and the first
        #expect(limiter.admit(now: 2, maxWait: 100) == .wait(28, reserved: true))
        limiter.returnSlot(now: 40)  // back to now at most (TAT 60 becomes 40, not 30): no credit beyond a burst
        #expect(limiter.admit(now: 40, maxWait: 0) == .admitted)
        #expect(limiter.admit(now: 40, maxWait: 0) == .refused(retryAfter: 30, paused: false))
    }

    @Test("the limiter under callers as fast as they can for 5 s admits 20 x 5 + 5 + 1 under 20 per s, burst 5")
    func limiterBound() {
        let limiter = LocalRateLimiter(policy: RateLimitPolicy(requests: 20, per: 1, burst: 5))
        var admitted = 0
        for millisecond in 0...5_000 where limiter.admit(now: Double(millisecond) / 1000, maxWait: 0) == .admitted {
            admitted += 1
        }
        #expect(admitted == 106)  // 20 x 5 + 5 + 1
    }

    @Test("waiting callers each get the next slot: 4 callers over 2 s send 20 x 2 + 5 + 1 between them")
    func limiterWaitingCallers() {
        let limiter = LocalRateLimiter(policy: RateLimitPolicy(requests: 20, per: 1, burst: 5))
        // Each caller sends as soon as its slot comes, then asks again at once.
        var next = [0.0, 0.0, 0.0, 0.0]
        var sent = [0, 0, 0, 0]
        while let caller = next.indices.min(by: { next[$0] < next[$1] }), next[caller] <= 2 {
            switch limiter.admit(now: next[caller], maxWait: 10) {
            case .admitted:
                sent[caller] += 1
            case .wait(let seconds, reserved: true):
                next[caller] += seconds
                if next[caller] <= 2 { sent[caller] += 1 }
            default:
                Issue.record("a waiting caller was refused"); return
            }
        }
        let total: Int = sent.reduce(0, +)
        #expect(total == 46)  // 20 x 2 + 5 + 1
        #expect(sent.allSatisfy { $0 >= 10 })  // none starves
    }

    @Test("a Retry-After pause makes attempts wait for its end (no slot reserved), or refuses them")
    func pauses() {
        let limiter = LocalRateLimiter(policy: RateLimitPolicy(requests: nil))
        #expect(limiter.admit(now: 0, maxWait: 0) == .admitted)
        limiter.pause(seconds: 2, now: 1)
        #expect(limiter.admit(now: 1.5, maxWait: 5) == .wait(1.5, reserved: false))
        #expect(limiter.admit(now: 1.5, maxWait: 1) == .refused(retryAfter: 1.5, paused: true))
        limiter.pause(seconds: 0.5, now: 1.5)  // a shorter pause does not end a longer one
        #expect(limiter.admit(now: 2.5, maxWait: 0) == .refused(retryAfter: 0.5, paused: true))
        #expect(limiter.admit(now: 3, maxWait: 0) == .admitted)
    }

    @Test("the gate pauses on a 429 or 503 with Retry-After (cut to maxPause), not on other statuses")
    func gateObservesRetryAfter() {
        var policy = RateLimitPolicy(requests: nil)
        policy.maxPause = 3
        let key = RateLimitKey(url: "http://127.0.0.1:9/x", route: nil, policy: policy)
        let gate = RateGate(limiter: LocalRateLimiter(policy: policy), key: key)
        func response(_ status: Int, _ retryAfter: String) -> HTTPResponse {
            HTTPResponse(status: status, headers: ["Retry-After": retryAfter], body: [], effectiveURL: "",
                         httpVersion: "1.1", redirectURL: nil)
        }
        gate.observe(response(500, "9"), now: 0, wallNow: 0)
        gate.observe(response(429, "soon"), now: 0, wallNow: 0)
        #expect(gate.admit(now: 0, remaining: 0) == .admitted)
        gate.observe(response(503, "60"), now: 0, wallNow: 0)
        #expect(gate.admit(now: 0, remaining: nil) == .wait(3, reserved: false))
        #expect(key.description == "host 127.0.0.1:9")
        #expect(RateLimitKey(url: "http://h/x", route: "user", policy: RateLimitPolicy(requests: 1, scope: .route))
            .description == "route \"user\"")
        #expect(RateLimitKey(url: "http://h/x", route: nil, policy: RateLimitPolicy(requests: 1, scope: .route))
            .description == "host h")
    }

    // MARK: The config

    @Test("rateLimit: off by default; read at the top, per route and with its defaults")
    func config() throws {
        #expect(try GatewayConfig(json: "{\(Self.base)}").rateLimit == .off)
        let config = try GatewayConfig(json: #"""
            {\#(Self.base), "rateLimit": {"requests": 100, "per": 2, "burst": 10, "scope": "route", "wait": false},
             "routes": {"a": {"method": "GET", "pathPattern": "/a", "rateLimit": false},
                        "b": {"method": "GET", "pathPattern": "/b", "rateLimit": {"requests": 5}}}}
            """#)
        #expect(config.rateLimit == RateLimitPolicy(requests: 100, per: 2, burst: 10, scope: .route, wait: false))
        #expect(config.rateLimit.interval == 0.02 && config.rateLimit.tolerance == 0.2)
        #expect(config.routes["a"]?.rateLimit == .off)
        let b = try #require(config.routes["b"]?.rateLimit)
        #expect(b.requests == 5 && b.per == 1 && b.burst == 0 && b.scope == .host && b.wait && b.pauseOnRetryAfter
            && b.maxPause == 60)
        #expect(try GatewayConfig(json: #"{\#(Self.base), "rateLimit": {}}"#).rateLimit.interval == nil)
    }

    @Test("rateLimit: every mistake names its field", arguments: [
        (#"true"#, "rateLimit", "expected false or an object"),
        (#"{"requests": 0}"#, "rateLimit.requests", "out of range"),
        (#"{"requests": 1.5}"#, "rateLimit.requests", ""),
        (#"{"per": 0}"#, "rateLimit.per", "out of range"),
        (#"{"burst": -1}"#, "rateLimit.burst", "out of range"),
        (#"{"scope": "url"}"#, "rateLimit.scope", "unknown scope \"url\""),
        (#"{"wait": 1}"#, "rateLimit.wait", ""),
        (#"{"maxPause": -1}"#, "rateLimit.maxPause", "out of range"),
        (#"{"rate": 1}"#, "rateLimit.rate", "unknown"),
    ])
    func configErrors(text: String, path: String, message: String) {
        let error = configError(#"{\#(Self.base), "rateLimit": \#(text)}"#)
        #expect(error?.path == path)
        #expect(error?.message.contains(message) == true)
    }
}

/// The rate limit beside the circuit breaker, on real calls: a call the open breaker refuses
/// takes no slot of the limit.
@Suite(.serialized) struct RateLimitBesideBreakerTests {
    @Test("while the breaker is open, refused calls take no rate-limit slot: every one is circuit_open, none rate_limited")
    func refusedCallsTakeNoSlot() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // Three slots at once (burst 2), then one a minute; two failures open the breaker.
        let client = try Client(config: try GatewayConfig(json: """
            {"baseURL": "\(server.baseURL)", "retry": {"maxRetries": 0},
             "circuitBreaker": {"failureRatio": 1, "minimumThroughput": 2, "breakDuration": 30},
             "rateLimit": {"requests": 1, "per": 60, "burst": 2, "wait": false}}
            """))
        defer { client.close() }
        var kinds: [String] = []
        for _ in 0..<7 {
            do { _ = try await client.send(.get("/status/503")) } catch { kinds.append(error.kind.name) }
        }
        // Two 503s open the breaker; the five calls after them are refused by it alone, and the
        // limit keeps its third slot for the trial after the break.
        #expect(kinds == ["http_status", "http_status"] + Array(repeating: "circuit_open", count: 5))
    }
}
