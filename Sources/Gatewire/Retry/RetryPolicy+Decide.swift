import Glibc

extension RetryPolicy {
    /// Decides whether to retry after a failed attempt, and after how long (seconds).
    ///
    /// The retry rules, which live in one place: `decideForCall`, which every call (Swift,
    /// the C ABI, Python, the CLI) goes through, adds only a call's retry budget to them (a
    /// call's body sink may still refuse the retry: ``CallStateMachine/retryDecided(_:bodySinkRefusal:)``). Call it once per attempt that failed (a transport error, or a status
    /// the call does not accept). Rules, in order:
    ///
    /// 1. The kinds `neverRetried(_:)` lists (a cancel, the deadline, a bad argument, a
    ///    plugin's or the credential's failure, an open circuit, a body too large, a refused
    ///    redirect, a rate limit's refusal) end the call at once; the test is not consulted (retrying a cancelled
    ///    request is RACRetry's bug).
    /// 2. The caller's `test`, if any, is consulted exactly once: `.stop` stops, `.retry`
    ///    retries (with its delay, or the policy's delay below), `.usePolicy` falls through.
    /// 3. No more than ``maxRetries`` retries: attempt `n + 1` exists only if `n <= maxRetries`.
    /// 4. Policy (when the test said `.usePolicy` or there is none):
    ///    - `connect` and `dns` failures, and `timeout` or `network` failures with
    ///      `requestSent == false`, are retried for every method (nothing reached the server;
    ///      urllib3's connect errors, OkHttp's "sending not started");
    ///    - `timeout` and `network` after sending are retried only for a method in
    ///      ``retryableMethods``, or any method when the request has an `Idempotency-Key`;
    ///    - `tls` and `mapping` are never retried (the same failure would recur);
    ///    - a response (or `httpStatus`) is retried when its status is in
    ///      ``retryableStatusCodes`` and the method passes the same method rule.
    /// 5. Delay: a `Retry-After` header on a retried response (any status) replaces the
    ///    computed backoff ``delay(forRetry:using:)`` for retry `outcome.attempt`. A
    ///    malformed `Retry-After` is ignored. A `Retry-After` above ``maxRetryAfter`` or above
    ///    `remaining` stops at once (fail fast, no shortened wait). The test's own delay is
    ///    capped at ``maxDelay``, as the backoff is (NaN and negatives are 0). Any delay
    ///    (computed or the test's) above `remaining` stops at once with cause `deadline`.
    ///
    /// - Parameters:
    ///   - method: the request's method.
    ///   - outcome: how the attempt ended.
    ///   - test: the caller's per-attempt test, or nil.
    ///   - hasIdempotencyKey: whether the request carries an `Idempotency-Key` header, which
    ///     makes POST and PATCH (and any other method) safe to retry after sending.
    ///   - remaining: seconds left before the call's overall deadline; nil for no deadline.
    ///   - now: the wall-clock time in seconds since the Unix epoch, for `Retry-After`
    ///     HTTP-dates; nil reads the system clock (`CLOCK_REALTIME`).
    ///   - generator: the source of jitter (one draw per computed delay).
    package func decide(
        method: HTTPMethod,
        outcome: AttemptOutcome,
        test: RetryTest?,
        hasIdempotencyKey: Bool,
        remaining: Double?,
        now: Double? = nil,
        using generator: inout some RandomNumberGenerator
    ) -> RetryDecision {
        // No budget: the call's own rule never turns a retry into a stop here.
        switch decideForCall(method: method, outcome: outcome, test: test, hasIdempotencyKey: hasIdempotencyKey,
                             remaining: remaining, now: now, previousDelay: nil, budget: nil, url: "",
                             using: &generator) {
        case .retry(let delay, let reason): .retry(delay: delay, reason: reason)
        case .stop(let reason), .failDeadline(let reason): .stop(reason: reason)
        }
    }

    /// What a call does after a failed attempt: ``decideForCall`` for the call.
    enum CallVerdict: Equatable {
        /// Send attempt `outcome.attempt + 1` after `delay` seconds.
        case retry(delay: Double, reason: String)
        /// The call ends with the failed attempt's result (its response is mapped).
        case stop(reason: String)
        /// The call fails at once with kind `deadline`: the next wait (computed or the
        /// test's, not a `Retry-After`) would pass the deadline, or none is left.
        case failDeadline(reason: String)
    }

    /// The decision for one call after a failed attempt: the rules of
    /// ``decide(method:outcome:test:hasIdempotencyKey:remaining:now:using:)``, then those of
    /// the call around them:
    ///
    /// 1. A stop caused by the deadline fails the call with kind `deadline`
    ///    (``CallVerdict/failDeadline(reason:)``) rather than reporting the attempt's outcome.
    /// 2. A retry the policy allows is refused when the host's retry budget is spent
    ///    (``RetryBudgetState/allowsRetry``, the token bucket of gRPC's retry throttling):
    ///    the call stops with the attempt's result.
    ///
    /// - Parameters:
    ///   - previousDelay: the wait before the previous retry (for ``Jitter/decorrelated``).
    ///   - budget: the host's retry budget, nil when budgets are off; read, never charged.
    ///   - url: the call's URL, whose host names the budget in the reason.
    ///   - Other parameters: as for ``decide(method:outcome:test:hasIdempotencyKey:remaining:now:using:)``.
    ///     Event-loop thread (the budget's).
    func decideForCall(
        method: HTTPMethod,
        outcome: AttemptOutcome,
        test: RetryTest?,
        hasIdempotencyKey: Bool,
        remaining: Double?,
        now: Double? = nil,
        previousDelay: Double?,
        budget: RetryBudgetState?,
        url: String,
        using generator: inout some RandomNumberGenerator
    ) -> CallVerdict {
        if let kind = outcome.errorKind, let refusal = Self.neverRetried(kind) {
            return .stop(reason: refusal)
        }

        let verdict = test?(outcome) ?? .usePolicy
        if case .stop = verdict { return .stop(reason: "the retry test said stop") }

        let retriesAllowed = max(0, maxRetries)
        if outcome.attempt > retriesAllowed {
            return .stop(reason: "retries exhausted (\(retriesAllowed))")
        }
        if let remaining, !(remaining > 0) {
            return .failDeadline(reason: "no time left before the deadline")
        }

        let reason: String
        var explicitDelay: Double? = nil
        switch verdict {
        case .retry(let after):
            if let after {
                // The caller's delay is capped like the backoff: a test that echoes a hostile
                // `Retry-After: 1000000000000` must not park the call for 31,700 years.
                let asked = after.isNaN ? 0 : max(0, after)
                let cap = Self.sanitizedCap(maxDelay)
                explicitDelay = min(asked, cap)
                reason = asked > cap
                    ? "the retry test asked for a retry after \(asked.formatted)s (capped at maxDelay \(maxDelay.formatted)s)"
                    : "the retry test asked for a retry"
            } else {
                reason = "the retry test asked for a retry"
            }
        case .stop:
            return .stop(reason: "the retry test said stop")  // handled above
        case .usePolicy:
            switch policyVerdict(method: method, outcome: outcome, hasIdempotencyKey: hasIdempotencyKey) {
            case .success(let why): reason = why
            case .failure(let why): return .stop(reason: why.text)
            }
        }

        let delay: Double
        var retryReason = reason
        if let explicitDelay {
            delay = explicitDelay
        } else if outcome.status != 0, let header = outcome.header("Retry-After"),
                  let asked = RetryAfter.delay(header, now: now ?? WallClock.now())
        {
            if asked > max(0, maxRetryAfter) {
                return .stop(reason: "Retry-After \(asked.formatted)s exceeds maxRetryAfter \(maxRetryAfter.formatted)s")
            }
            if let remaining, asked > remaining {
                return .stop(reason: "Retry-After \(asked.formatted)s exceeds the time left (\(remaining.formatted)s)")
            }
            (delay, retryReason) = (asked, "\(reason) (Retry-After \(asked.formatted)s)")
        } else {
            delay = self.delay(forRetry: outcome.attempt, previous: previousDelay, using: &generator)
        }
        if let remaining, delay > remaining {
            return .failDeadline(reason: "delay \(delay.formatted)s exceeds the time left (\(remaining.formatted)s)")
        }
        if let budget, !budget.allowsRetry {
            let host = ResilienceKey.host(of: url)
            return .stop(reason: "the retry budget for \(host) is spent (\(budget.tokens.formatted) of "
                + "\(budget.budget.maxTokens.formatted) tokens; retries need more than half)")
        }
        return .retry(delay: delay, reason: retryReason)
    }

    /// ``decide(method:outcome:test:hasIdempotencyKey:remaining:now:using:)`` with jitter from
    /// a ``SeededGenerator`` seeded from the system's random source: a different sequence on
    /// every call.
    package func decide(
        method: HTTPMethod,
        outcome: AttemptOutcome,
        test: RetryTest? = nil,
        hasIdempotencyKey: Bool = false,
        remaining: Double? = nil,
        now: Double? = nil
    ) -> RetryDecision {
        // Not SystemRandomNumberGenerator itself: it is an empty struct, and passed `inout`
        // through the generic `decide(using:)` under ThreadSanitizer its meaningless address
        // goes to __tsan_external_write, which then crashes now and then (swiftlang/swift
        // issue #61244; `make test-tsan` hit it in RetryDecisionTests).
        var generator = SeededGenerator()
        return decide(
            method: method, outcome: outcome, test: test, hasIdempotencyKey: hasIdempotencyKey,
            remaining: remaining, now: now, using: &generator)
    }

    /// Kinds that end the call whatever the policy or the test say.
    static let finalKinds: Set<ErrorKind> = [.cancelled, .deadline, .invalidArgument, .plugin, .auth, .circuitOpen,
                                             .responseTooLarge, .redirect, .rateLimited]

    /// Why a failure of `kind` ends the call whatever the policy or the test say (rule 1),
    /// or nil when the test and the policy decide. The one list of such kinds: the switch
    /// names every kind, so a new one must be placed on a side.
    static func neverRetried(_ kind: ErrorKind) -> String? {
        switch kind {
        case .cancelled, .deadline, .invalidArgument, .plugin, .auth, .circuitOpen, .responseTooLarge, .redirect,
             .rateLimited:
            "\(kind.name) is never retried"
        case .connect, .dns, .tls, .timeout, .network, .protocolViolation, .httpStatus, .mapping:
            nil
        }
    }

    private struct Refusal: Error { let text: String }

    /// The policy's own rule (step 4): the retry reason, or why not.
    private func policyVerdict(method: HTTPMethod, outcome: AttemptOutcome, hasIdempotencyKey: Bool)
        -> Result<String, Refusal>
    {
        switch outcome.errorKind {
        case .connect?, .dns?:
            return .success("\(outcome.errorKind!.name) failed before the request was sent")
        case .timeout?, .network?, .protocolViolation?:
            let kind = outcome.errorKind!.name
            if !outcome.requestSent { return .success("\(kind) before the request was sent") }
            if let refusal = methodRefusal(method, hasIdempotencyKey: hasIdempotencyKey, after: "\(kind) after sending") {
                return .failure(refusal)
            }
            return .success("\(kind) after sending \(method) (\(safety(method, hasIdempotencyKey)))")
        case .tls?, .mapping?:
            return .failure(Refusal(text: "\(outcome.errorKind!.name) errors are not retried"))
        case .httpStatus?, nil:
            guard outcome.status != 0 else { return .failure(Refusal(text: "no response and no error kind")) }
            guard retryableStatusCodes.contains(outcome.status) else {
                return .failure(Refusal(text: "status \(outcome.status) is not retryable"))
            }
            if let refusal = methodRefusal(method, hasIdempotencyKey: hasIdempotencyKey, after: "status \(outcome.status)") {
                return .failure(refusal)
            }
            return .success("status \(outcome.status) is retryable")
        case let kind?:  // the kinds `neverRetried` lists: rule 1 stopped before the policy is asked
            return .failure(Refusal(text: Self.neverRetried(kind) ?? "\(kind.name) is not retried"))
        }
    }

    /// Whether a failure after sending may be retried for `method` (the method rule of step
    /// 4). When not, each attempt uses a new connection: on a kept-alive one that died,
    /// libcurl's own re-send is refused (``Transfer``), which would fail the attempt.
    func allowsRetryAfterSending(_ method: HTTPMethod, hasIdempotencyKey: Bool) -> Bool {
        methodRefusal(method, hasIdempotencyKey: hasIdempotencyKey, after: "") == nil
    }

    private func methodRefusal(_ method: HTTPMethod, hasIdempotencyKey: Bool, after what: String) -> Refusal? {
        if hasIdempotencyKey || retryNonIdempotent || retryableMethods.contains(method) { return nil }
        if method.isIdempotent {
            return Refusal(text: "\(method) is not a retryable method (\(what))")
        }
        return Refusal(text: "\(method) is not idempotent (\(what))")
    }

    private func safety(_ method: HTTPMethod, _ hasIdempotencyKey: Bool) -> String {
        retryableMethods.contains(method) ? "retryable method"
            : hasIdempotencyKey ? IdempotencyKey.headerName : "retryNonIdempotent"
    }
}
