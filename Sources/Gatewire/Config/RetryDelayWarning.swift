extension GatewayConfig {
    /// Warnings (not errors: the config still works) for retry policies whose `maxDelay` is
    /// below their `initialDelay`, so every delay is capped at `maxDelay` and the backoff never
    /// grows: the gateway's `retry` and each route's. Each names both fields where they were
    /// set (`routes.x.retry.maxDelay`, `retry.initialDelay`, or "the default retry.maxDelay").
    static func retryDelayWarnings(root: ConfigNode, policy: RetryPolicy, routes: [String: Route]) -> [String] {
        let gatewayNode = try? root.optional("retry")
        var warnings: [String] = []
        if let node = gatewayNode, let warning = delayWarning(policy, node: node, gateway: nil) { warnings.append(warning) }
        let routesNode = try? root.optional("routes")
        for name in routes.keys.sorted() {
            guard let routePolicy = routes[name]?.retryPolicy,
                  let node = try? routesNode?.required(name).optional("retry") else { continue }
            if let warning = delayWarning(routePolicy, node: node, gateway: gatewayNode) { warnings.append(warning) }
        }
        return warnings
    }

    private static func delayWarning(_ policy: RetryPolicy, node: ConfigNode, gateway: ConfigNode?) -> String? {
        guard policy.maxDelay < policy.initialDelay else { return nil }
        func field(_ key: String) -> String {
            if node.json[key] != nil { return node.path(of: key) }
            if let gateway, gateway.json[key] != nil { return gateway.path(of: key) }
            return "the default retry.\(key)"
        }
        return "\(field("maxDelay")) (\(policy.maxDelay.formatted) s) is less than \(field("initialDelay")) "
            + "(\(policy.initialDelay.formatted) s): every retry delay is capped at \(policy.maxDelay.formatted) s"
    }
}
