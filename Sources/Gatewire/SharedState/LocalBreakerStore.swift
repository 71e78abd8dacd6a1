/// The in-process store (the default): each breaker counts only this client's calls, and no
/// server is involved. Event-loop thread only.
final class LocalBreakerStore: BreakerStore {
    private var breakers: [BreakerKey: CircuitBreaker] = [:]

    func breaker(host: String, policy: CircuitBreakerPolicy) -> any HostCircuitBreaker {
        let key = BreakerKey(host: host, policy: policy)
        if let breaker = breakers[key] { return breaker }
        let breaker = CircuitBreaker(policy: policy)
        breakers[key] = breaker
        return breaker
    }
}
