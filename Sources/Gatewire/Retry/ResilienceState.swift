/// The state calls of one client share: retry budgets and circuit breakers, one per host and
/// policy value. Lives on the client's event-loop thread only, so it needs no lock.
final class ResilienceState: @unchecked Sendable {
    private struct Key<Policy: Hashable>: Hashable {
        let host: String
        let policy: Policy
    }

    private var budgets: [Key<RetryBudget>: RetryBudgetState] = [:]
    private var breakers: [Key<CircuitBreakerPolicy>: CircuitBreaker] = [:]

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
    func breaker(host: String, _ policy: CircuitBreakerPolicy) -> CircuitBreaker? {
        guard policy.isEnabled else { return nil }
        let key = Key(host: host, policy: policy)
        if let breaker = breakers[key] { return breaker }
        let breaker = CircuitBreaker(policy: policy)
        breakers[key] = breaker
        return breaker
    }

    /// The `host[:port]` part of an absolute URL, lower-cased: the key budgets and breakers
    /// are shared under.
    static func host(of url: String) -> String {
        var rest = Substring(url)
        for scheme in ["http://", "https://"] where url.hasPrefix(scheme) { rest = rest.dropFirst(scheme.count) }
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<end]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return authority.lowercased()
    }
}
