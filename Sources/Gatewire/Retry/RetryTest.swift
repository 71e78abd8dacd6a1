/// The caller's answer for one failed attempt (see ``RetryTest``).
public enum RetryVerdict: Sendable, Equatable {
    /// Retry: after `after` seconds (capped at ``RetryPolicy/maxDelay``, as the backoff is),
    /// or after the policy's delay (its backoff, or the response's `Retry-After`) when nil.
    /// Overrides the policy's status and method rules, but never ``RetryPolicy/maxRetries``,
    /// the deadline (a delay past it fails the call with kind `deadline` at once), or a
    /// cancelled call.
    case retry(after: Double? = nil)
    /// Do not retry: the call ends with this attempt's result.
    case stop
    /// No opinion: the policy's rules decide.
    case usePolicy
}

/// The caller's per-attempt test, like RACRetry's `test:` block or urllib3's
/// `status_forcelist` made programmable: consulted exactly once for every failed attempt
/// that could be retried, before the policy's own rules. It runs on the transport thread and
/// must not block.
public typealias RetryTest = @Sendable (AttemptOutcome) -> RetryVerdict
