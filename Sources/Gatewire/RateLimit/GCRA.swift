/// The generic cell rate algorithm (GCRA, ITU-T I.371; the form redis-cell implements): one
/// value per limit, the theoretical arrival time (TAT) of the next evenly spaced attempt.
/// An attempt at `now` conforms when `now >= tat - tolerance`; taking it moves the TAT to
/// `max(tat, now) + interval`. So over any span of `t` seconds at most
/// `t / interval + tolerance / interval + 1` attempts conform. Pure: times are seconds on
/// whatever clock the caller keeps (``MonotonicClock`` in process, Redis's `TIME` in the
/// shared script, which applies the same rule), so it is tested without a clock.
enum GCRA {
    /// What one attempt gets.
    enum Decision: Equatable {
        /// Send now; the limit's TAT becomes `tat`.
        case admit(tat: Double)
        /// The slot `wait` seconds from now is reserved for it; the TAT becomes `tat`.
        case wait(Double, tat: Double)
        /// Over the limit and the wait would be longer than allowed: nothing is taken; a
        /// slot frees in `retryAfter` seconds.
        case refuse(retryAfter: Double)
    }

    /// The wait below which an attempt conforms, in seconds: sums of intervals in binary
    /// floating point land a few ulps off the slot they name (3 x 0.1 - 0.2 > 0.1).
    static let slack = 1e-9

    /// Decides an attempt at `now` under a limit whose TAT is `tat` (0 for a limit never
    /// used), spacing attempts `interval` seconds apart with `tolerance` seconds of burst.
    /// `maxWait`: how long the attempt may wait for its slot (0: not at all).
    static func decide(tat: Double, now: Double, interval: Double, tolerance: Double, maxWait: Double) -> Decision {
        let start = max(tat, now)
        let wait = start - tolerance - now
        if wait <= slack { return .admit(tat: start + interval) }
        if wait > maxWait { return .refuse(retryAfter: wait) }
        return .wait(wait, tat: start + interval)
    }
}
