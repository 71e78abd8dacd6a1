import Gatewire
import Synchronization
import Testing

@Suite("RetryPolicy.decide: the retry rules")
struct RetryDecisionTests {
    /// No jitter, so every computed delay is exact: 0.5, 1, 2, 4, ...
    let policy = RetryPolicy(maxRetries: 3, jitter: .none)

    func decide(
        _ policy: RetryPolicy, _ method: HTTPMethod, _ outcome: AttemptOutcome,
        test: RetryTest? = nil, key: Bool = false, remaining: Double? = nil, now: Double = 1_000_000
    ) -> RetryDecision {
        var generator = SeededGenerator(seed: 9)
        return policy.decide(
            method: method, outcome: outcome, test: test, hasIdempotencyKey: key, remaining: remaining, now: now,
            using: &generator)
    }

    func decide(
        _ method: HTTPMethod, _ outcome: AttemptOutcome,
        test: RetryTest? = nil, key: Bool = false, remaining: Double? = nil, now: Double = 1_000_000
    ) -> RetryDecision {
        decide(policy, method, outcome, test: test, key: key, remaining: remaining, now: now)
    }

    func decide(
        _ outcome: AttemptOutcome,
        test: RetryTest? = nil, key: Bool = false, remaining: Double? = nil, now: Double = 1_000_000
    ) -> RetryDecision {
        decide(policy, .get, outcome, test: test, key: key, remaining: remaining, now: now)
    }

    func decide(_ policy: RetryPolicy, _ outcome: AttemptOutcome) -> RetryDecision {
        decide(policy, .get, outcome)
    }

    static func status(_ code: Int, attempt: Int = 1, headers: [(String, String)] = []) -> AttemptOutcome {
        AttemptOutcome(attempt: attempt, status: code, headers: HTTPHeaders(headers.map { .init(name: $0.0, value: $0.1) }))
    }

    static func failure(_ kind: ErrorKind, attempt: Int = 1, sent: Bool) -> AttemptOutcome {
        AttemptOutcome(attempt: attempt, errorKind: kind, requestSent: sent)
    }

    @Test("a retryable status retries with the backoff for that retry number")
    func retryableStatus() {
        #expect(decide(Self.status(503)) == .retry(delay: 0.5, reason: "status 503 is retryable"))
        #expect(decide(Self.status(503, attempt: 2)).delay == 1)
        #expect(decide(Self.status(429, attempt: 3)).delay == 2)
        #expect(decide(Self.status(404)) == .stop(reason: "status 404 is not retryable"))
        #expect(decide(AttemptOutcome(attempt: 1, status: 500, errorKind: .httpStatus)).isRetry)
    }

    @Test("maxRetries bounds the attempts: 0, 1 and 3", arguments: [0, 1, 3])
    func boundaries(maxRetries: Int) {
        let policy = RetryPolicy(maxRetries: maxRetries, jitter: .none)
        var attempts = 1
        while decide(policy, Self.status(503, attempt: attempts)).isRetry {
            attempts += 1
            #expect(attempts <= 10)
            if attempts > 10 { break }
        }
        #expect(attempts == maxRetries + 1)
        #expect(decide(policy, Self.status(503, attempt: maxRetries + 1)) == .stop(reason: "retries exhausted (\(maxRetries))"))
    }

    @Test("POST is not retried on 503, but is when nothing was sent")
    func post() {
        #expect(decide(.post, Self.status(503)) == .stop(reason: "POST is not idempotent (status 503)"))
        #expect(decide(.patch, Self.status(503)).reason.hasPrefix("PATCH is not idempotent"))
        #expect(decide(.post, Self.failure(.connect, sent: false)) ==
            .retry(delay: 0.5, reason: "connect failed before the request was sent"))
        #expect(decide(.post, Self.failure(.dns, sent: false)).isRetry)
        #expect(decide(.post, Self.failure(.timeout, sent: false)).isRetry)
        #expect(decide(.post, Self.failure(.network, sent: false)).isRetry)
        #expect(decide(.post, Self.failure(.timeout, sent: true)) == .stop(reason: "POST is not idempotent (timeout after sending)"))
        #expect(decide(.post, Self.failure(.network, sent: true)).reason.hasPrefix("POST is not idempotent"))
        #expect(decide(.get, Self.failure(.network, sent: true)).isRetry)
        #expect(decide(.put, Self.failure(.timeout, sent: true)).isRetry)
    }

    @Test("an Idempotency-Key makes POST and PATCH retryable")
    func idempotencyKey() {
        #expect(decide(.post, Self.status(503), key: true) == .retry(delay: 0.5, reason: "status 503 is retryable"))
        #expect(decide(.patch, Self.failure(.network, sent: true), key: true).isRetry)
        #expect(decide(.post, Self.status(400), key: true) == .stop(reason: "status 400 is not retryable"))
    }

    @Test("retryableMethods narrows the idempotent methods")
    func methodSet() {
        let getOnly = RetryPolicy(maxRetries: 3, jitter: .none, retryableMethods: [.get])
        #expect(decide(getOnly, .put, Self.status(503)) == .stop(reason: "PUT is not a retryable method (status 503)"))
        #expect(decide(getOnly, .put, Self.failure(.connect, sent: false)).isRetry)
    }

    @Test("kinds that are never retried", arguments: [ErrorKind.tls, .cancelled, .deadline, .mapping, .invalidArgument, .plugin])
    func neverRetried(kind: ErrorKind) {
        #expect(!decide(.get, Self.failure(kind, sent: false)).isRetry)
        #expect(!decide(.get, AttemptOutcome(attempt: 1, status: 503, errorKind: kind)).isRetry)
    }

    @Test("Retry-After replaces the computed delay, in both forms and any header case")
    func retryAfter() {
        #expect(decide(Self.status(503, headers: [("Retry-After", "7")])) ==
            .retry(delay: 7, reason: "status 503 is retryable (Retry-After 7s)"))
        #expect(decide(Self.status(429, headers: [("retry-after", "0")])).delay == 0)
        let date = "Mon, 12 Jan 1970 13:46:50 GMT"  // 1_000_010
        #expect(decide(Self.status(503, headers: [("RETRY-AFTER", date)]), now: 1_000_000).delay == 10)
        #expect(decide(Self.status(503, headers: [("Retry-After", date)]), now: 2_000_000).delay == 0)
        // Malformed: ignored, the backoff applies.
        #expect(decide(Self.status(503, headers: [("Retry-After", "soon")])).delay == 0.5)
        // On a status that is not retried it changes nothing.
        #expect(!decide(Self.status(404, headers: [("Retry-After", "1")])).isRetry)
        #expect(!decide(.post, Self.status(503, headers: [("Retry-After", "1")])).isRetry)
    }

    @Test("a Retry-After over maxRetryAfter or the time left stops at once")
    func retryAfterCaps() {
        #expect(decide(Self.status(503, headers: [("Retry-After", "120")])) ==
            .stop(reason: "Retry-After 120s exceeds maxRetryAfter 60s"))
        #expect(decide(Self.status(503, headers: [("Retry-After", "60")])).delay == 60)
        #expect(decide(Self.status(503, headers: [("Retry-After", "30")]), remaining: 10) ==
            .stop(reason: "Retry-After 30s exceeds the time left (10s)"))
        #expect(decide(Self.status(503, headers: [("Retry-After", "5")]), remaining: 10).delay == 5)
    }

    @Test("a computed delay beyond the time left stops; no time left stops")
    func deadline() {
        #expect(decide(Self.status(503, attempt: 3), remaining: 1.5) ==
            .stop(reason: "delay 2s exceeds the time left (1.5s)"))
        #expect(decide(Self.status(503, attempt: 3), remaining: 2).delay == 2)
        #expect(decide(Self.status(503), remaining: 0) == .stop(reason: "no time left before the deadline"))
        #expect(decide(Self.status(503), remaining: nil).isRetry)
    }

    @Test("the caller's test: retry, retry after, stop, use policy")
    func testVerdicts() {
        // .retry overrides the status and method rules, with the policy's delay or its own.
        #expect(decide(.post, Self.status(400), test: { _ in .retry() }) ==
            .retry(delay: 0.5, reason: "the retry test asked for a retry"))
        #expect(decide(Self.status(200), test: { _ in .retry(after: 3) }).delay == 3)
        #expect(decide(Self.status(400, headers: [("Retry-After", "4")]), test: { _ in .retry() }).delay == 4)
        #expect(decide(Self.status(400), test: { _ in .retry(after: -1) }).delay == 0)
        // .stop wins over a retryable status.
        #expect(decide(Self.status(503), test: { _ in .stop }) == .stop(reason: "the retry test said stop"))
        // .usePolicy falls through.
        #expect(decide(Self.status(503), test: { _ in .usePolicy }).isRetry)
        #expect(!decide(Self.status(404), test: { _ in .usePolicy }).isRetry)
        // .retry never exceeds maxRetries, the deadline, or retries a cancelled call.
        #expect(decide(Self.status(400, attempt: 4), test: { _ in .retry() }) == .stop(reason: "retries exhausted (3)"))
        #expect(decide(Self.status(400), test: { _ in .retry(after: 5) }, remaining: 1) ==
            .stop(reason: "delay 5s exceeds the time left (1s)"))
        #expect(!decide(Self.failure(.cancelled, sent: true), test: { _ in .retry() }).isRetry)
        // The test sees the outcome, e.g. to retry transport errors that the policy would not.
        #expect(decide(.post, Self.failure(.network, sent: true), test: { $0.errorKind == .network ? .retry() : .usePolicy }).isRetry)
    }

    @Test("the test's delay is capped at maxDelay, and one past the deadline stops")
    func testDelayCapped() {
        // The README's test echoing "Retry-After: 1000000000000": 1e12 s becomes maxDelay (30).
        let echo: RetryTest = { .retry(after: $0.header("Retry-After").flatMap { Double($0) } ?? 1) }
        let huge = Self.status(429, headers: [("Retry-After", "1000000000000")])
        #expect(decide(huge, test: echo) ==
            .retry(delay: 30, reason: "the retry test asked for a retry after 1000000000000s (capped at maxDelay 30s)"))
        #expect(decide(Self.status(429), test: { _ in .retry(after: .infinity) }).delay == 30)
        #expect(decide(RetryPolicy(maxDelay: 0.05, jitter: .none), .get, huge, test: echo).delay == 0.05)
        #expect(decide(Self.status(429), test: { _ in .retry(after: 2) }).delay == 2)  // below the cap: as asked
        // Capped, it still passes a deadline 5 s away: the call then fails with kind deadline.
        #expect(decide(huge, test: echo, remaining: 5) == .stop(reason: "delay 30s exceeds the time left (5s)"))
    }

    @Test("the test is consulted exactly once per failed attempt, the last one included")
    func testCalledOnce() {
        let calls = Mutex<[Int]>([])
        let test: RetryTest = { outcome in
            calls.withLock { $0.append(outcome.attempt) }
            return .usePolicy
        }
        var attempt = 1
        while decide(Self.status(503, attempt: attempt), test: test).isRetry { attempt += 1 }
        #expect(calls.withLock { $0 } == [1, 2, 3, 4])
        calls.withLock { $0 = [] }
        _ = decide(Self.failure(.cancelled, sent: false), test: test)
        #expect(calls.withLock { $0 }.isEmpty)
    }

    @Test("jitter comes from the generator given")
    func jitter() {
        var generator = SeededGenerator(seed: 5)
        var mirror = SeededGenerator(seed: 5)
        let decision = RetryPolicy().decide(
            method: .get, outcome: Self.status(503, attempt: 2), test: nil, hasIdempotencyKey: false, remaining: nil,
            using: &generator)
        #expect(decision.delay == 1 * (Double(mirror.next() >> 11) * 0x1.0p-53))
        let system = RetryPolicy().decide(method: .get, outcome: Self.status(503))
        #expect(system.isRetry && system.delay! >= 0 && system.delay! < 0.5)
    }

    @Test("headers are looked up case-insensitively")
    func headers() {
        let outcome = Self.status(503, headers: [("Content-Type", "a"), ("retry-after", "3"), ("Retry-After", "9")])
        #expect(outcome.header("RETRY-after") == "3")
        #expect(outcome.header("content-type") == "a")
        #expect(outcome.header("Content-Typ") == nil)
    }
}
