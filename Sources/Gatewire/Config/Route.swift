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
    /// The route's own retry policy (its `retry` object, whose absent fields keep the
    /// gateway's), or nil for the gateway's.
    public var retryPolicy: RetryPolicy?
    /// The route's own retry budget (`retryBudget`: an object, or false for none), or nil.
    public var retryBudget: RetryBudget?
    /// The route's own circuit breaker (`circuitBreaker`: an object, or false for none), or nil.
    public var circuitBreaker: CircuitBreakerPolicy?
    /// The route's own rate limit (`rateLimit`: an object, or false for none), or nil.
    public var rateLimit: RateLimitPolicy?
    /// The route's own redirect policy (its `redirects`, whose absent fields keep the
    /// gateway's), or nil for the gateway's.
    public var redirectPolicy: RedirectPolicy?
    /// How the route's results are paged, for ``Client/pages(_:pagination:)``; nil for none.
    public var pagination: Pagination?
    /// The route's own response size limit in bytes (`maxResponseBytes`, see
    /// `ResponseSizeLimit`), or nil for the gateway's.
    public var maxResponseBytes: Int?
    /// Whether the route's calls use the client's HTTP cache (`cache`: true or false), or
    /// nil for the gateway's choice (its `cache` key).
    public var cache: Bool?
    /// The query parameters a call of the route must give (`requiredQuery`, OpenAPI's
    /// `required: true` query parameters): a call without one of them fails with kind
    /// `invalidArgument` before anything is sent, as one without a `:name` of the pattern does.
    public var requiredQuery: [String] = []

    /// A route; `pathPattern` is relative to the base URL and starts with "/".
    public init(name: String, method: HTTPMethod, pathPattern: String, objectType: String? = nil) {
        self.name = name
        self.method = method
        self.pathPattern = pathPattern
        self.objectType = objectType
    }

    /// Parses `{"method": "GET", "pathPattern": "/users/:id", "objectType": "User"}`, with
    /// optional `retry`, `retryBudget`, `circuitBreaker`, `rateLimit` and `redirects` (as the gateway
    /// config's; the route's `retry` and `redirects` fields default to `inheriting`'s and
    /// `redirectDefaults`'), `pagination` (as in ``Pagination/init(config:)``) and
    /// `maxResponseBytes`, `cache` and `requiredQuery` (an array of parameter names).
    /// - Throws: ``ConfigError`` naming the field (unknown method, missing pattern, an empty or
    ///   repeated `:name` in the pattern (``PathPattern/parameterProblem(_:)``), a dot segment
    ///   or a NUL byte in it (`DotSegments`, ``CStringRule``: it becomes the URL libcurl takes
    ///   as a C string), unknown keys).
    package init(config: ConfigNode, name: String, inheriting retryDefaults: RetryPolicy = RetryPolicy(),
                redirectDefaults: RedirectPolicy = RedirectPolicy()) throws(ConfigError)
    {
        try config.rejectUnknownKeys(["method", "pathPattern", "objectType", "retry", "retryBudget", "circuitBreaker",
                                      "rateLimit", "redirects", "pagination", "maxResponseBytes", "cache", "requiredQuery"])
        let methodNode = try config.required("method")
        guard let method = HTTPMethod(name: try methodNode.string()) else {
            throw methodNode.error("unknown HTTP method (expected one of: \(HTTPMethod.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let patternNode = try config.required("pathPattern")
        let pattern = try patternNode.string(checkedBy: { CStringRule.problem($0, what: "the pattern") })
        guard pattern.hasPrefix("/") else { throw patternNode.error("must start with \"/\"") }
        if let problem = PathPattern.parameterProblem(pattern) { throw patternNode.error(problem) }
        if DotSegments.inPath(pattern) != nil {
            throw patternNode.error("has a dot segment (. or .., in any percent-encoding), which would change the "
                + "resource it names (RFC 3986 section 5.2.4)")
        }
        self.init(name: name, method: method, pathPattern: pattern,
                  objectType: try config.optional("objectType")?.string())
        if let node = try config.optional("retry") {
            retryPolicy = try RetryPolicy(config: node, inheriting: retryDefaults)
        }
        if let node = try config.optional("retryBudget") { retryBudget = try RetryBudget(config: node) }
        if let node = try config.optional("circuitBreaker") { circuitBreaker = try CircuitBreakerPolicy(config: node) }
        if let node = try config.optional("rateLimit") { rateLimit = try RateLimitPolicy(config: node) }
        if let node = try config.optional("redirects") {
            redirectPolicy = try RedirectPolicy(config: node, inheriting: redirectDefaults)
        }
        pagination = try config.optional("pagination").map { node throws(ConfigError) in try Pagination(config: node) }
        if let node = try config.optional("maxResponseBytes") { maxResponseBytes = try ResponseSizeLimit.bytes(config: node) }
        if let node = try config.optional("cache") { cache = try node.bool() }
        if let node = try config.optional("requiredQuery") {
            requiredQuery = try node.elements().map { (element) throws(ConfigError) in
                try element.string(checkedBy: { $0.isEmpty ? "is empty (name a query parameter)" : CStringRule.problem($0) })
            }
        }
    }
}
