import Gatewire

/// A call's policy overrides as the gateway config's keys: `retry`, `retryBudget`,
/// `circuitBreaker`, `rateLimit`, `redirects` and `maxResponseBytes`, read by the config's own readers
/// into the call's ``CallOptions``. The one translation of both C forms: the
/// `policy_json` text (versions 4 and 7) and the typed structs of version 5 and later (``PolicyTree``), so a value one accepts
/// the other cannot refuse, and their messages differ only in the field's name.
enum PolicyOverrides {
    /// Lays `root` over `request`. A partial `retry` or `redirects` changes the fields it names
    /// of the policy the call has so far: one an earlier `apply` set (version 7's typed
    /// structs go over its `policy_json`), else the route's, else the config's; `retryBudget` and
    /// `circuitBreaker` and `rateLimit` replace the whole policy (or turn it off with `false`), as in the config.
    /// - Throws: ``ConfigError`` naming the path under `root`'s, from the config's readers.
    static func apply(_ root: ConfigNode, to request: inout Request, config: GatewayConfig) throws(ConfigError) {
        try root.rejectUnknownKeys(["retry", "retryBudget", "circuitBreaker", "rateLimit", "redirects",
                                    "maxResponseBytes"])
        if let node = try root.optional("retry") {
            request.options.retryPolicy = try RetryPolicy(config: node, inheriting: request.options.retryPolicy
                                                              ?? config.retryPolicy(forRoute: request.route))
        }
        if let node = try root.optional("retryBudget") { request.options.retryBudget = try RetryBudget(config: node) }
        if let node = try root.optional("circuitBreaker") {
            request.options.circuitBreaker = try CircuitBreakerPolicy(config: node)
        }
        if let node = try root.optional("rateLimit") { request.options.rateLimit = try RateLimitPolicy(config: node) }
        if let node = try root.optional("redirects") {
            request.options.redirectPolicy = try RedirectPolicy(config: node, inheriting: request.options.redirectPolicy
                                                                ?? config.redirectPolicy(forRoute: request.route))
        }
        if let node = try root.optional("maxResponseBytes") {
            request.options.maxResponseBytes = try ResponseSizeLimit.bytes(config: node)
        }
    }
}
