/// The state calls of one client share: retry budgets and circuit breakers, one per host and
/// policy value, and rate limits, one per host or route and policy value. The budgets live here (a ratio, which holds fleet-wide when each client keeps
/// its own: docs/fleet.md); the breakers in the client's ``BreakerStore``, in process or in
/// Redis. Used on the client's event-loop thread only, so it needs no lock (made on another).
final class ResilienceState: @unchecked Sendable {
    private struct Key<Policy: Hashable>: Hashable {
        let host: String
        let policy: Policy
    }

    private var budgets: [Key<RetryBudget>: RetryBudgetState] = [:]
    /// The circuit breakers' store.
    let breakers: any BreakerStore
    /// The rate limits' store (in process, or in the same Redis as the breakers).
    let rateLimits: any RateLimitStore

    /// The state of a client whose breakers live in process, or in the Redis of
    /// `sharedState` (nil: in process), reached from `loop` (connected on first use);
    /// `announce` hears the store's degradation and recovery, `onTransition` each breaker's
    /// change of state (``BreakerTransition``).
    init(sharedState: SharedStateSettings?, loop: EventLoop,
         announce: @escaping @Sendable (_ degraded: Bool, _ message: String) -> Void,
         onTransition: @escaping BreakerTransition = { _, _ in }) {
        if let sharedState {
            let shared = RedisBreakerStore(settings: sharedState, loop: loop, announce: announce, onTransition: onTransition)
            breakers = shared
            rateLimits = RedisRateLimitStore(connection: shared)
        } else {
            breakers = LocalBreakerStore(onTransition: onTransition)
            rateLimits = LocalRateLimitStore()
        }
    }

    /// The bucket for `host` under `budget`, created full on first use; nil when off.
    func budget(host: String, _ budget: RetryBudget) -> RetryBudgetState? {
        guard budget.isEnabled else { return nil }
        let key = Key(host: host, policy: budget)
        if let state = budgets[key] { return state }
        let state = RetryBudgetState(budget: budget)
        budgets[key] = state
        return state
    }

    /// The breaker for `host` under `policy`, created closed on first use; nil when off.
    func breaker(host: String, _ policy: CircuitBreakerPolicy) -> (any HostCircuitBreaker)? {
        guard policy.isEnabled else { return nil }
        return breakers.breaker(host: host, policy: policy)
    }

    /// The rate limit of a call to `url` of route `route` under `policy`; nil when off.
    func rateGate(url: String, route: String?, _ policy: RateLimitPolicy) -> RateGate? {
        guard policy.isEnabled else { return nil }
        let key = RateLimitKey(url: url, route: route, policy: policy)
        return RateGate(limiter: rateLimits.limiter(key), key: key)
    }
}
