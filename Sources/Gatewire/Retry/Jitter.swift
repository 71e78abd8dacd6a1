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

    /// Applies this jitter to `delay` (seconds, finite and non-negative) with a uniform
    /// sample `unit` in [0, 1).
    func apply(to delay: Double, unit: Double) -> Double {
        switch self {
        case .none: delay
        case .full: delay * unit
        case .equal: delay / 2 + (delay / 2) * unit
        }
    }
}
