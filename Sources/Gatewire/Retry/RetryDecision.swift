/// What to do after a failed attempt: the result of
/// ``RetryPolicy/decide(method:outcome:test:hasIdempotencyKey:remaining:now:using:)``.
///
/// The reason is a short human sentence for logs, the attempt history and the CLI, e.g.
/// "status 503 is retryable", "POST is not idempotent", "retries exhausted (3)".
package enum RetryDecision: Sendable, Equatable, CustomStringConvertible {
    /// Send the request again after `delay` seconds.
    case retry(delay: Double, reason: String)
    /// Do not retry; the call ends with this attempt's result.
    case stop(reason: String)

    /// Whether this is ``retry(delay:reason:)``.
    package var isRetry: Bool {
        if case .retry = self { return true }
        return false
    }

    /// The delay in seconds for a retry; nil for a stop.
    package var delay: Double? {
        if case .retry(let delay, _) = self { return delay }
        return nil
    }

    /// The reason, for either case.
    package var reason: String {
        switch self {
        case .retry(_, let reason), .stop(let reason): reason
        }
    }

    package var description: String {
        switch self {
        case .retry(let delay, let reason): "retry in \(delay.formatted)s: \(reason)"
        case .stop(let reason): "stop: \(reason)"
        }
    }
}
