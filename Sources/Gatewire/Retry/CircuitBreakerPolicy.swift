/// When a host's circuit breaker opens, and for how long (Polly's circuit breaker, v8
/// semantics). Times are in seconds.
///
/// - **Closed** (normal): every attempt is sent and its outcome recorded in a sliding window
///   of ``samplingDuration``. When the window holds at least ``minimumThroughput`` outcomes
///   and the share of failures is at least ``failureRatio``, the breaker **opens**.
/// - **Open**: for ``breakDuration`` every call fails at once, without sending, with kind
///   ``ErrorKind/circuitOpen`` (the failure observers see it, like any failure).
/// - **Half-open**: after the break, one trial attempt is sent (other calls still fail with
///   `circuitOpen` while it runs). Its success closes the breaker with an empty window; its
///   failure opens it for another ``breakDuration``; a cancelled trial lets the next call try.
///
/// A failure is a transport failure (connect, dns, tls, timeout, network) or a status in
/// ``failureStatusCodes``; every other response is a success; cancelled attempts and those
/// cut by the deadline are not counted. Each attempt counts, retries included (the breaker
/// sits inside the retry loop, as Polly's recommended order), and a retry refused by an open
/// breaker ends the call with `circuitOpen`.
///
/// Off by default (``off``); set in the gateway config (`circuitBreaker`), per route or per
/// call. One breaker per host (`host:port`) and policy value, shared by the client's calls,
/// on the client's event-loop thread.
public struct CircuitBreakerPolicy: Sendable, Hashable {
    /// Whether the breaker applies. ``off`` is false.
    public var isEnabled: Bool
    /// The failure share, in 0...1, at or above which the breaker opens. Default 0.1 (Polly).
    public var failureRatio: Double
    /// Outcomes the window must hold before the ratio is judged. Default 100 (Polly).
    public var minimumThroughput: Int
    /// The sliding window, in seconds. Default 30 (Polly).
    public var samplingDuration: Double
    /// How long the breaker stays open before a trial, in seconds. Default 5 (Polly).
    public var breakDuration: Double
    /// Statuses counted as failures. Default 408, 429 and every 5xx.
    public var failureStatusCodes: Set<Int>

    /// 408, 429 and 500...599: the transient statuses of Microsoft.Extensions.Http.Resilience.
    public static let defaultFailureStatusCodes: Set<Int> = Set([408, 429] + Array(500...599))

    /// No breaker.
    public static let off = CircuitBreakerPolicy(isEnabled: false)

    /// A breaker policy; every parameter has the documented default.
    public init(failureRatio: Double = 0.1, minimumThroughput: Int = 100, samplingDuration: Double = 30,
                breakDuration: Double = 5,
                failureStatusCodes: Set<Int> = CircuitBreakerPolicy.defaultFailureStatusCodes) {
        self.init(isEnabled: true, failureRatio: failureRatio, minimumThroughput: minimumThroughput,
                  samplingDuration: samplingDuration, breakDuration: breakDuration,
                  failureStatusCodes: failureStatusCodes)
    }

    private init(isEnabled: Bool, failureRatio: Double = 0.1, minimumThroughput: Int = 100,
                 samplingDuration: Double = 30, breakDuration: Double = 5,
                 failureStatusCodes: Set<Int> = CircuitBreakerPolicy.defaultFailureStatusCodes) {
        self.isEnabled = isEnabled
        self.failureRatio = failureRatio
        self.minimumThroughput = minimumThroughput
        self.samplingDuration = samplingDuration
        self.breakDuration = breakDuration
        self.failureStatusCodes = failureStatusCodes
    }

}
