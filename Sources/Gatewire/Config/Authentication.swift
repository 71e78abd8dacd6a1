/// The credentials a client sends on every request, from the config's `auth` field.
public enum Authentication: Sendable, Equatable {
    /// HTTP Basic (RFC 7617): `{"type": "basic", "username": "alice", "password": "secret"}`.
    case basic(username: String, password: String)
    /// A static bearer token (RFC 6750): `{"type": "bearer", "token": "..."}`.
    case bearer(token: String)

    /// Parses the `auth` field.
    /// - Throws: ``ConfigError`` naming the field (unknown type, missing username, a
    ///   credential that ``usernameProblem(_:)``, ``passwordProblem(_:)`` or
    ///   ``HTTPHeaders/valueProblem(_:)`` rejects, ...).
    public init(config: ConfigNode) throws(ConfigError) {
        let typeNode = try config.required("type")
        switch try typeNode.string() {
        case "basic":
            try config.rejectUnknownKeys(["type", "username", "password"])
            self = .basic(username: try Self.username(config.required("username")),
                          password: try config.optional("password").map(Self.password) ?? "")
        case "bearer":
            try config.rejectUnknownKeys(["type", "token"])
            self = .bearer(token: try Self.token(config.required("token")))
        default:
            throw typeNode.error("unknown auth type (expected \"basic\" or \"bearer\")")
        }
    }

    /// Why `username` cannot be a Basic user-id, or nil: RFC 7617 section 2 forbids a colon
    /// (it separates the password) and control characters. Pure; any thread.
    public static func usernameProblem(_ username: String) -> String? {
        if let offset = Array(username.utf8).firstIndex(of: UInt8(ascii: ":")) {
            return "the user-id contains \":\" at byte \(offset) (RFC 7617 section 2: the colon separates the password)"
        }
        return controlProblem(username, what: "the user-id")
    }

    /// Why `password` cannot be a Basic password, or nil: RFC 7617 section 2 forbids control
    /// characters (CTL: 0x00-0x1F and 0x7F). Pure; any thread.
    public static func passwordProblem(_ password: String) -> String? { controlProblem(password, what: "the password") }

    private static func controlProblem(_ text: String, what: String) -> String? {
        guard let offset = Array(text.utf8).firstIndex(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        return "\(what) contains a control character at byte \(offset) (RFC 7617 section 2 forbids them)"
    }

    /// A config node's string as a Basic user-id. - Throws: ``ConfigError`` naming the node.
    static func username(_ node: ConfigNode) throws(ConfigError) -> String {
        let text = try node.string()
        if let problem = usernameProblem(text) { throw node.error(problem) }
        return text
    }

    /// A config node's string as a Basic password. - Throws: ``ConfigError`` naming the node.
    static func password(_ node: ConfigNode) throws(ConfigError) -> String {
        let text = try node.string()
        if let problem = passwordProblem(text) { throw node.error(problem) }
        return text
    }

    /// A config node's string as a token sent in a header value (bearer, API key).
    /// - Throws: ``ConfigError`` naming the node for CR, LF or NUL (RFC 9110 section 5.5).
    static func token(_ node: ConfigNode) throws(ConfigError) -> String {
        let text = try node.string()
        if let problem = HTTPHeaders.valueProblem(text) { throw node.error(problem) }
        return text
    }

    /// The plugin that sets the `Authorization` header.
    var plugin: any Plugin { AuthorizationPlugin(authentication: self) }
}
