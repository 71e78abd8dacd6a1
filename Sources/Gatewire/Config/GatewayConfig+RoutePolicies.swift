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

    /// The body a caller's JSON `value` makes for a call of route `name`, the rule C's
    /// `body_json` + `object_type` and the CLI's `--body` + `--object-type` share: an object of
    /// `objectType` when one is named, or of the route's `objectType` when the route has one
    /// (its request descriptor maps it); else the JSON as is.
    package func requestBody(_ value: JSONValue, objectType: String?, forRoute name: String?) -> Request.Body {
        let routeType = name.flatMap { routes[$0]?.objectType }
        return objectType != nil || routeType != nil ? .object(value, type: objectType) : .json(value)
    }
}
