/// How a computed backoff delay `d` (seconds) is randomised before waiting, so that many
/// clients that failed together do not retry together.
///
/// Terms from the AWS Architecture Blog, "Exponential Backoff And Jitter" (2015).
/// The default in ``RetryPolicy`` is ``full``.
public enum Jitter: String, Sendable, CaseIterable {
    /// Wait exactly `d`.
    case none
    /// Wait `U(0, d)`: uniform between 0 (inclusive) and `d` (exclusive).
    case full
    /// Wait `d/2 + U(0, d/2)`: at least half the delay, at most all of it.
    case equal
    /// Wait `U(initial, 3 * previous)`, where `previous` is the wait before the previous retry
    /// (`initial` before the first): the AWS "decorrelated jitter". It ignores the
    /// multiplier and grows by up to 3x per retry; the result is still clamped to `maxDelay`.
    case decorrelated

    /// Applies this jitter to `delay` (seconds, finite and non-negative) with a uniform
    /// sample `unit` in [0, 1). For ``decorrelated`` the caller passes the bounds instead
    /// (see ``RetryPolicy/delay(forRetry:previous:using:)``); here it behaves as ``full``.
    func apply(to delay: Double, unit: Double) -> Double {
        switch self {
        case .none: delay
        case .full, .decorrelated: delay * unit
        case .equal: delay / 2 + (delay / 2) * unit
        }
    }
}
