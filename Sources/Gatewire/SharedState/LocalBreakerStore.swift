/// The in-process store (the default): each breaker counts only this client's calls, and no
/// server is involved. Event-loop thread only.
final class LocalBreakerStore: BreakerStore {
    private var breakers: [BreakerKey: CircuitBreaker] = [:]
    private let onTransition: BreakerTransition

    /// A store whose breakers tell `onTransition` of each change of state.
    init(onTransition: @escaping BreakerTransition) { self.onTransition = onTransition }

    func breaker(host: String, policy: CircuitBreakerPolicy) -> any HostCircuitBreaker {
        let key = BreakerKey(host: host, policy: policy)
        if let breaker = breakers[key] { return breaker }
        let breaker = CircuitBreaker(policy: policy) { [onTransition] state in onTransition(host, state) }
        breakers[key] = breaker
        return breaker
    }
}
