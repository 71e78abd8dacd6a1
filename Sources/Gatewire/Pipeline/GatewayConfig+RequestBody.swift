import GatewireJSON

extension GatewayConfig {
    /// The body a caller's JSON `value` makes for a call of route `name`, the rule C's
    /// `body_json` + `object_type` and the CLI's `--body` + `--object-type` share: an object of
    /// `objectType` when one is named, or of the route's `objectType` when the route has one
    /// (its request descriptor maps it); else the JSON as is.
    package func requestBody(_ value: JSONValue, objectType: String?, forRoute name: String?) -> Request.Body {
        let routeType = name.flatMap { routes[$0]?.objectType }
        return objectType != nil || routeType != nil ? .object(value, type: objectType) : .json(value)
    }
}
