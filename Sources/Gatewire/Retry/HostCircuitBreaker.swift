/// One host's circuit breaker under one ``CircuitBreakerPolicy``, wherever its state lives:
/// in process (``CircuitBreaker``) or shared by a fleet through Redis (``SharedCircuitBreaker``).
/// What ``HostResilience`` asks before an attempt and tells after it. Event-loop thread
/// only; times are ``MonotonicClock`` seconds.
protocol HostCircuitBreaker: AnyObject {
    /// The policy whose rules the breaker applies.
    var policy: CircuitBreakerPolicy { get }

    /// Whether an attempt may be sent now. Answered at once, from what the breaker knows:
    /// never waits for a server. An allowed trial must be given back with
    /// ``record(failed:trial:now:)``.
    func acquire(now: Double) -> CircuitBreaker.Permission

    /// Whether ``acquire(now:)`` would refuse an attempt now, from what the breaker knows,
    /// changing nothing (no trial taken, nothing asked of a store): a call that the breaker
    /// will refuse is not given a rate limit's slot first.
    func refuses(now: Double) -> Bool

    /// Records an attempt's outcome: `failed` nil for one that does not count (cancelled,
    /// cut by the deadline, never sent); `trial` when ``acquire(now:)`` allowed it as the trial.
    func record(failed: Bool?, trial: Bool, now: Double)

    /// Whether the breaker's decisions and recordings are made in process because its shared
    /// store is failing (``StoreHealth/decidesLocally``); always false for an in-process breaker.
    var decidesLocally: Bool { get }
}

extension HostCircuitBreaker {
    var decidesLocally: Bool { false }
}
