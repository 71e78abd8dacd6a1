import GatewireBase
import GatewireJSON
import GatewireMapping

/// Which responses a mapping applies to: methods, path pattern, status codes, and the key
/// path in the body where the objects are (RestKit's `RKResponseDescriptor`).
///
/// The same type serves as an error descriptor (config `errorDescriptors`), whose objects
/// are mapped on the failure path into ``MappingOutcome/errorObjects``; only the default
/// status codes differ: 2xx for response descriptors, 4xx and 5xx for error descriptors.
///
/// A descriptor matches a response when its method, path and status all match
/// (RestKit's `matchesResponse:` plus the method mask, as RestKit 0.21+).
package struct ResponseDescriptor: Sendable, Hashable, CustomStringConvertible {
    /// The name of the ``ObjectMapping`` applied to the objects found at ``keyPath``.
    package var mapping: String
    /// The request methods it applies to (all methods for "any").
    package var methods: Set<HTTPMethod>
    /// The path pattern, relative to the base URL; nil matches any path.
    package var pathPattern: PathPattern?
    /// Where the objects are in the body; ``JSONKeyPath/root`` for the whole body.
    package var keyPath: JSONKeyPath
    /// The statuses it applies to.
    package var statusCodes: StatusCodeSet

    /// A response descriptor (statuses default to 2xx).
    package init(mapping: String, methods: Set<HTTPMethod> = Set(HTTPMethod.allCases), pathPattern: PathPattern? = nil,
                keyPath: JSONKeyPath = .root, statusCodes: StatusCodeSet = .successful) {
        self.mapping = mapping
        self.methods = methods
        self.pathPattern = pathPattern
        self.keyPath = keyPath
        self.statusCodes = statusCodes
    }

    /// An error descriptor: the same, with statuses defaulting to 4xx and 5xx.
    package static func error(mapping: String, methods: Set<HTTPMethod> = Set(HTTPMethod.allCases),
                             pathPattern: PathPattern? = nil, keyPath: JSONKeyPath = .root,
                             statusCodes: StatusCodeSet = .failures) -> ResponseDescriptor {
        ResponseDescriptor(mapping: mapping, methods: methods, pathPattern: pathPattern, keyPath: keyPath,
                           statusCodes: statusCodes)
    }

    /// The config form:
    /// `{"mapping": "User", "method": "GET", "pathPattern": "/users/:id", "keyPath": "user", "statusCodes": "2xx"}`.
    /// `method` is a name, an array of names, or `"ANY"` (the default); `pathPattern`,
    /// `keyPath` and `statusCodes` are optional.
    /// - Parameter node: the descriptor's object, in the config.
    /// - Parameter defaultStatusCodes: ``StatusCodeSet/successful`` for response descriptors,
    ///   ``StatusCodeSet/failures`` for error descriptors.
    /// - Throws: ``ConfigError`` naming the field; unknown fields are rejected.
    package init(config node: ConfigNode, defaultStatusCodes: StatusCodeSet) throws(ConfigError) {
        try node.rejectUnknownKeys(["mapping", "method", "pathPattern", "keyPath", "statusCodes"])
        var pattern: PathPattern?
        if let patternNode = try node.optional("pathPattern") {
            do { pattern = try PathPattern(try patternNode.string()) } catch {
                throw error.path.isEmpty ? patternNode.error(error.message) : error
            }
        }
        self.init(mapping: try node.required("mapping").string(),
                  methods: try ResponseDescriptor.methods(config: node.optional("method")),
                  pathPattern: pattern,
                  keyPath: JSONKeyPath(try node.optional("keyPath")?.string() ?? ""),
                  statusCodes: try node.optional("statusCodes").map(StatusCodeSet.init(config:)) ?? defaultStatusCodes)
    }

    /// The path parameters when this descriptor matches the response, nil otherwise.
    /// - Parameter method: the method sent.
    /// - Parameter path: relative to the base URL, as sent (the query is ignored).
    /// - Parameter status: the response's HTTP status.
    package func match(method: HTTPMethod, path: String, status: Int) -> [String: String]? {
        guard methods.contains(method), statusCodes.contains(status) else { return nil }
        guard let pathPattern else { return [:] }
        return pathPattern.match(path)
    }

    /// `GET /users/:id @user 2xx -> User`.
    package var description: String {
        "\(ResponseDescriptor.describe(methods)) \(pathPattern?.pattern ?? "*any path*") @\(keyPath.isRoot ? "root" : keyPath.description) \(statusCodes) -> \(mapping)"
    }

    /// Parses `"GET"`, `["GET", "POST"]` or `"ANY"`; absent is any method.
    static func methods(config node: ConfigNode?) throws(ConfigError) -> Set<HTTPMethod> {
        guard let node else { return Set(HTTPMethod.allCases) }
        func one(_ node: ConfigNode) throws(ConfigError) -> Set<HTTPMethod> {
            let name = try node.string()
            if name.uppercased() == "ANY" { return Set(HTTPMethod.allCases) }
            guard let method = HTTPMethod(name: name) else {
                throw node.error("unknown method \"\(name)\" (expected ANY or one of: \(HTTPMethod.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return [method]
        }
        if node.json.kind == .array {
            let elements = try node.elements()
            guard !elements.isEmpty else { throw node.error("expected at least one method") }
            var methods: Set<HTTPMethod> = []
            for element in elements { methods.formUnion(try one(element)) }
            return methods
        }
        return try one(node)
    }

    /// `ANY`, `GET` or `GET|POST` (in `HTTPMethod.allCases` order).
    static func describe(_ methods: Set<HTTPMethod>) -> String {
        methods.count == HTTPMethod.allCases.count ? "ANY" : HTTPMethod.allCases.filter(methods.contains).map(\.rawValue).joined(separator: "|")
    }
}
