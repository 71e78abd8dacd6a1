extension GatewayConfig {
    /// The retry policy a call of route `name` starts from: the route's own `retry`, else the
    /// config's top-level one (also when `name` is nil or names no route). A call's partial
    /// override (C's `policy_json` `retry`, ``CallOptions/maxRetries``) changes fields of this
    /// policy and keeps the rest.
    package func retryPolicy(forRoute name: String?) -> RetryPolicy {
        name.flatMap { routes[$0]?.retryPolicy } ?? retryPolicy
    }

    /// The redirect policy a call of route `name` starts from: the route's own `redirects`,
    /// else the config's top-level one (also when `name` is nil or names no route).
    package func redirectPolicy(forRoute name: String?) -> RedirectPolicy {
        name.flatMap { routes[$0]?.redirectPolicy } ?? redirectPolicy
    }
}
