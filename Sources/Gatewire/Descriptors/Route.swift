/// A named route: a method and a path pattern, so callers say `user` with `id=7` instead
/// of building `/users/7` (RestKit's `RKRoute`).
public struct Route: Sendable, Equatable {
    /// The route's name, e.g. `user`.
    public var name: String
    /// The method sent.
    public var method: HTTPMethod
    /// The path pattern relative to the base URL, e.g. `/users/:id`.
    public var pathPattern: String
    /// The object type whose request descriptor turns a call's object into the body, if any.
    public var objectType: String?
    /// How the route's results are paged, for ``Client/pages(_:pagination:)``; nil for none.
    public var pagination: Pagination?

    /// A route; `pathPattern` is relative to the base URL and starts with "/".
    public init(name: String, method: HTTPMethod, pathPattern: String, objectType: String? = nil) {
        self.name = name
        self.method = method
        self.pathPattern = pathPattern
        self.objectType = objectType
    }

    /// Parses `{"method": "GET", "pathPattern": "/users/:id", "objectType": "User", "pagination": {...}}`
    /// (`pagination` as in ``Pagination/init(config:)``).
    /// - Throws: ``ConfigError`` naming the field (unknown method, missing pattern, unknown keys).
    public init(config: ConfigNode, name: String) throws(ConfigError) {
        try config.rejectUnknownKeys(["method", "pathPattern", "objectType", "pagination"])
        let methodNode = try config.required("method")
        guard let method = HTTPMethod(name: try methodNode.string()) else {
            throw methodNode.error("unknown HTTP method (expected one of: \(HTTPMethod.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let patternNode = try config.required("pathPattern")
        let pattern = try patternNode.string()
        guard pattern.hasPrefix("/") else { throw patternNode.error("must start with \"/\"") }
        self.init(name: name, method: method, pathPattern: pattern,
                  objectType: try config.optional("objectType")?.string())
        pagination = try config.optional("pagination").map { node throws(ConfigError) in try Pagination(config: node) }
    }
}
