/// Where a client's circuit breakers keep their state: in process (``LocalBreakerStore``,
/// the default) or in Redis, shared by every client that names the same server and key
/// prefix (``RedisBreakerStore``, config key `sharedState`). The client holds one, in its
/// ``ResilienceState``. Event-loop thread only.
protocol BreakerStore: AnyObject {
    /// The breaker of `host` (`host[:port]`, lower-cased: ``ResilienceKey/host(of:)``)
    /// under `policy` (enabled), created closed on first use and the same object after.
    func breaker(host: String, policy: CircuitBreakerPolicy) -> any HostCircuitBreaker
}

/// Told that the breaker of a host (`host[:port]`) entered a state: `open`, `half_open` or
/// `closed` (the names of `gatewire.circuit_breaker.state`). Event-loop thread.
typealias BreakerTransition = (_ host: String, _ state: String) -> Void

/// The key a store finds a breaker by: a host and a policy value (two routes with different
/// policies for one host have two breakers, as in process).
struct BreakerKey: Hashable {
    let host: String
    let policy: CircuitBreakerPolicy
}
