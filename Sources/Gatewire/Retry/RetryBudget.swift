/// A retry budget per host, as gRPC's retry throttling (gRFC A6): a token bucket that stops
/// retry storms when a server or gateway is down.
///
/// Each host starts with ``maxTokens`` tokens. Every attempt that fails in a retryable way
/// (a transport failure such as connect, dns, timeout or network, or a status in the
/// policy's `retryableStatusCodes`) takes one token; every successful attempt (status below
/// 400) gives back ``tokenRatio``, up to ``maxTokens``; other outcomes (a 404, a cancelled
/// attempt) leave the bucket alone. A retry is made only while the bucket holds **more than
/// half** of ``maxTokens`` after the failed attempt took its token; otherwise the call stops
/// at once with that attempt's outcome (the reason in its history says so). First attempts
/// are never refused: the budget limits retries, not traffic.
///
/// Off by default (``off``); set in the gateway config (`retryBudget`), per route, or per
/// call. The bucket is shared by every call of a client to the same host (`host:port`) with
/// the same budget values, and lives on the client's event-loop thread.
public struct RetryBudget: Sendable, Hashable {
    /// Whether the budget applies. ``off`` is false.
    public var isEnabled: Bool
    /// The bucket's size and starting level, in tokens. Default 10 (gRPC's example).
    public var maxTokens: Double
    /// Tokens a successful attempt gives back. Default 0.1: ten successes pay for one failure.
    public var tokenRatio: Double

    /// No budget: retries are limited only by the retry policy.
    public static let off = RetryBudget(isEnabled: false)

    /// A budget; `maxTokens` in tokens (the threshold for retrying is half of it).
    public init(maxTokens: Double = 10, tokenRatio: Double = 0.1) {
        self.init(isEnabled: true, maxTokens: maxTokens, tokenRatio: tokenRatio)
    }

    private init(isEnabled: Bool, maxTokens: Double = 10, tokenRatio: Double = 0.1) {
        self.isEnabled = isEnabled
        self.maxTokens = maxTokens
        self.tokenRatio = tokenRatio
    }

}

/// The token bucket of one host. Event-loop thread only.
final class RetryBudgetState {
    let budget: RetryBudget
    private(set) var tokens: Double

    init(budget: RetryBudget) {
        self.budget = budget
        tokens = budget.maxTokens
    }

    /// A retryable failure: takes one token (not below 0).
    func recordFailure() { tokens = max(0, tokens - 1) }

    /// A success: gives back `tokenRatio` (not above `maxTokens`).
    func recordSuccess() { tokens = min(budget.maxTokens, tokens + budget.tokenRatio) }

    /// Whether a retry may be made now: more than half of the bucket is left.
    var allowsRetry: Bool { tokens > budget.maxTokens / 2 }
}
