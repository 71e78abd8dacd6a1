/// Which failed calls a global failure observer sees. Every criterion that is set must
/// match; an empty filter (the default) matches every failure.
///
/// The status criterion: a failure with a response matches when ``statusCodes`` contains its
/// status; one without a response (status 0, "no connection" in RestKit's terms) matches when
/// ``noResponse`` is true and the server could not be reached or did not answer (kinds
/// `connect`, `dns`, `tls`, `timeout`, `network`, `deadline`). A call the caller cancelled,
/// one the client refused to send (`invalid_argument`, `plugin`, `circuit_open`) or one
/// ended by closing the client is not "no connection": it has status 0 but does not match
/// ``noResponse`` (an observer without a status criterion still sees it). With neither set,
/// any status matches.
///
/// Config/JSON form (C and Python pass it as JSON text): `{"statusCodes": 401 | "4xx" |
/// ["401", "5xx"], "noResponse": true, "kinds": ["connect", "auth"], "pathPattern": "/users/:id"}`.
public struct FailureFilter: Sendable {
    /// Statuses to match (RestKit's status code sets: `[401]`, `.class(4)`), or nil.
    public var statusCodes: StatusCodeSet?
    /// Match failures where the server could not be reached or did not answer: status 0 with
    /// kind `connect`, `dns`, `tls`, `timeout`, `network` or `deadline` (not `cancelled`,
    /// `invalid_argument`, `plugin` or `circuit_open`).
    public var noResponse: Bool
    /// Error kinds to match, or nil for any.
    public var kinds: Set<ErrorKind>?
    /// The call's path (relative to the base URL) must match this pattern, or nil for any.
    public var pathPattern: PathPattern?

    /// A filter; the defaults match every failure.
    public init(statusCodes: StatusCodeSet? = nil, noResponse: Bool = false, kinds: Set<ErrorKind>? = nil,
                pathPattern: PathPattern? = nil) {
        self.statusCodes = statusCodes
        self.noResponse = noResponse
        self.kinds = kinds
        self.pathPattern = pathPattern
    }

    /// Failures without a response ("no connection").
    public static let noConnection = FailureFilter(noResponse: true)

    /// Whether `error` passes the filter.
    public func matches(_ error: GatewireError) -> Bool {
        if statusCodes != nil || noResponse {
            let statusMatches = error.status == 0
                ? noResponse && (error.kind.isTransport || error.kind == .deadline)
                : statusCodes?.contains(error.status) ?? false
            guard statusMatches else { return false }
        }
        if let kinds, !kinds.contains(error.kind) { return false }
        if let pathPattern, pathPattern.match(error.path) == nil { return false }
        return true
    }

    /// Parses the JSON form above.
    /// - Throws: ``ConfigError`` naming the field.
    public init(json: String) throws(ConfigError) {
        let document: JSONValue
        do {
            document = try JSONValue.parse(json)
        } catch {
            throw ConfigError(path: "", message: error.description)
        }
        try self.init(config: ConfigNode(document.node))
    }

    /// Parses the JSON form above from a config node.
    package init(config node: ConfigNode) throws(ConfigError) {
        try node.rejectUnknownKeys(["statusCodes", "noResponse", "kinds", "pathPattern"])
        self.init()
        statusCodes = try node.optional("statusCodes").map { (n) throws(ConfigError) in try StatusCodeSet(config: n) }
        noResponse = try node.optional("noResponse")?.bool() ?? false
        if let kindsNode = try node.optional("kinds") {
            var set = Set<ErrorKind>()
            for element in try kindsNode.elements() {
                let name = try element.string()
                guard let kind = ErrorKind.allCases.first(where: { $0.name == name }) else {
                    let known = ErrorKind.allCases.map(\.name).joined(separator: ", ")
                    throw element.error("unknown error kind \"\(name)\" (known: \(known))")
                }
                set.insert(kind)
            }
            kinds = set
        }
        if let patternNode = try node.optional("pathPattern") {
            do {
                pathPattern = try PathPattern(try patternNode.string())
            } catch {
                throw patternNode.error(error.message)
            }
        }
    }
}
