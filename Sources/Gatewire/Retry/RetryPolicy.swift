import Glibc

/// When and how long to wait before sending a failed request again.
///
/// Counting follows urllib3 and Alamofire: ``maxRetries`` is the number of retries *after*
/// the first attempt, so `maxRetries: 3` allows at most 4 attempts and `0` exactly one
/// (RACRetry's `retries:` counted attempts instead; that off-by-one is avoided on purpose).
///
/// The delay before retry `n` (n = 1 for the first retry) is
/// `min(maxDelay, initialDelay * multiplier^(n-1))`, randomised by ``jitter`` and clamped to
/// `[0, maxDelay]` (gRPC A6 backoff with AWS-style jitter). All times are in seconds.
/// A `Retry-After` header on a retried response replaces the computed delay (RFC 9110
/// section 10.2.3); see `decide(method:outcome:test:hasIdempotencyKey:remaining:now:using:)`.
///
/// An immutable value: build it once (in Swift or from the gateway config's `retry` object)
/// and share it between threads.
public struct RetryPolicy: Sendable, Equatable {
    /// Retries after the first attempt; 0 means one attempt only. Default 2 (Alamofire's
    /// `defaultRetryLimit`), so at most 3 attempts.
    public var maxRetries: Int
    /// Delay before the first retry, in seconds, before jitter. Default 0.5 (Alamofire's
    /// backoff scale).
    public var initialDelay: Double
    /// Factor applied to the delay for each further retry. Default 2; 1 gives a fixed
    /// interval (RACRetry's model).
    public var multiplier: Double
    /// Upper bound of any computed delay, in seconds, before and after jitter. Default 30.
    public var maxDelay: Double
    /// How the computed delay is randomised. Default ``Jitter/full``.
    public var jitter: Jitter
    /// Response statuses that are retried (for a retryable method). Default
    /// 408, 429, 500, 502, 503, 504 (Alamofire's set plus 429 Too Many Requests).
    public var retryableStatusCodes: Set<Int>
    /// Methods retried after the request may have reached the server (a retryable status, a
    /// network failure or a timeout after sending). Default: the idempotent methods of
    /// RFC 9110 section 9.2.2, GET HEAD OPTIONS PUT DELETE TRACE (urllib3 and Alamofire).
    /// POST and PATCH are retried on those failures only with an `Idempotency-Key`.
    public var retryableMethods: Set<HTTPMethod>
    /// The longest `Retry-After` honoured, in seconds. Default 60. A longer one stops the
    /// retries at once (fail fast) instead of waiting or silently shortening the wait.
    public var maxRetryAfter: Double
    /// Whether a call whose method is not idempotent (POST, PATCH) and that has no
    /// `Idempotency-Key` header gets one generated (a random UUID, kept across its attempts),
    /// which makes it safe to retry after sending. Default false.
    public var idempotencyKey: Bool
    /// The caller's explicit opt-in: retry every method, POST and PATCH included, after the
    /// request may have reached the server (the RACRetry and OkHttp behaviour). Default false.
    public var retryNonIdempotent: Bool

    /// The default status codes: 408, 429, 500, 502, 503, 504.
    public static let defaultRetryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// The default methods: the idempotent ones (GET HEAD OPTIONS PUT DELETE TRACE).
    public static let defaultRetryableMethods: Set<HTTPMethod> = Set(HTTPMethod.allCases.filter(\.isIdempotent))

    /// No retries: every call makes exactly one attempt.
    public static let none = RetryPolicy(maxRetries: 0)

    /// A policy; every parameter has the documented default. Times are in seconds.
    /// Values are used as given: negative or non-finite times are treated as 0 (or, for an
    /// infinite `maxDelay`, as the largest finite double) when delays are computed, and a
    /// negative `maxRetries` as 0. The config form validates them instead.
    public init(
        maxRetries: Int = 2,
        initialDelay: Double = 0.5,
        multiplier: Double = 2,
        maxDelay: Double = 30,
        jitter: Jitter = .full,
        retryableStatusCodes: Set<Int> = RetryPolicy.defaultRetryableStatusCodes,
        retryableMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableMethods,
        maxRetryAfter: Double = 60,
        idempotencyKey: Bool = false,
        retryNonIdempotent: Bool = false
    ) {
        self.maxRetries = maxRetries
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maxDelay = maxDelay
        self.jitter = jitter
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableMethods = retryableMethods
        self.maxRetryAfter = maxRetryAfter
        self.idempotencyKey = idempotencyKey
        self.retryNonIdempotent = retryNonIdempotent
    }

    /// The wait before retry number `n` (1 for the first retry), in seconds:
    /// `min(maxDelay, initialDelay * multiplier^(n-1))`, then ``jitter``, clamped to
    /// `[0, maxDelay]`.
    ///
    /// Saturating: any `n` (values below 1 count as 1) and any multiplier give a finite,
    /// non-negative result no larger than `maxDelay`; never NaN, never a trap.
    /// Draws exactly one value from `generator` unless the jitter is ``Jitter/none``.
    package func delay(forRetry n: Int, using generator: inout some RandomNumberGenerator) -> Double {
        delay(forRetry: n, previous: nil, using: &generator)
    }

    /// ``delay(forRetry:using:)`` knowing the previous wait (seconds; nil before the first
    /// retry), which ``Jitter/decorrelated`` needs: `U(initial, 3 * previous)` clamped to
    /// `[0, maxDelay]` (the other jitters ignore `previous`). Saturating like the others.
    package func delay(forRetry n: Int, previous: Double?, using generator: inout some RandomNumberGenerator)
        -> Double
    {
        let cap = Self.sanitizedCap(maxDelay)
        let initial = initialDelay.isFinite ? max(0, initialDelay) : (initialDelay == .infinity ? cap : 0)
        let factor = multiplier.isNaN ? 1 : max(0, multiplier)
        var delay: Double
        if initial == 0 {
            delay = 0
        } else if factor == 1 || n <= 1 {
            delay = initial
        } else {
            // pow in Double overflows to +inf, never traps; the min below brings it back.
            delay = initial * pow(factor, Double(n - 1))
        }
        if delay.isNaN || delay > cap { delay = cap }
        if jitter == .decorrelated {
            let base = min(cap, initial)
            let last = previous.map { $0.isFinite ? max(base, $0) : cap } ?? base
            let upper = min(cap, last * 3)  // last <= cap, so 3 * last is finite
            delay = base + (max(base, upper) - base) * generator.nextUnitInterval()
        } else if jitter != .none {
            delay = jitter.apply(to: delay, unit: generator.nextUnitInterval())
        }
        return min(cap, max(0, delay.isNaN ? 0 : delay))
    }

    /// `maxDelay` as a usable bound: NaN and negatives are 0, +inf is the largest finite double.
    static func sanitizedCap(_ value: Double) -> Double {
        if value.isNaN || value < 0 { return 0 }
        return min(value, .greatestFiniteMagnitude)
    }
}
