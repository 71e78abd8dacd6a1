/// The credentials a client sends on every request, from the config's `auth` field.
public enum Authentication: Sendable, Equatable {
    /// HTTP Basic (RFC 7617): `{"type": "basic", "username": "alice", "password": "secret"}`.
    case basic(username: String, password: String)
    /// A static bearer token (RFC 6750): `{"type": "bearer", "token": "..."}`.
    case bearer(token: String)

    /// Parses the `auth` field.
    /// - Throws: ``ConfigError`` naming the field (unknown type, missing username, a
    ///   credential that ``usernameProblem(_:)``, ``passwordProblem(_:)`` or (a token: it is
    ///   sent in a header value) ``HTTPHeaders/valueProblem(_:)`` rejects, ...).
    package init(config: ConfigNode) throws(ConfigError) {
        let typeNode = try config.required("type")
        switch try typeNode.string() {
        case "basic":
            try config.rejectUnknownKeys(["type", "username", "password"])
            self = .basic(username: try config.required("username").string(checkedBy: Self.usernameProblem),
                          password: try config.optional("password")?.string(checkedBy: Self.passwordProblem) ?? "")
        case "bearer":
            try config.rejectUnknownKeys(["type", "token"])
            self = .bearer(token: try config.required("token").string(checkedBy: HTTPHeaders.valueProblem))
        default:
            throw typeNode.error("unknown auth type (expected \"basic\" or \"bearer\")")
        }
    }

    /// Why `username` cannot be a Basic user-id, or nil: RFC 7617 section 2 forbids a colon
    /// (it separates the password) and control characters. Pure; any thread.
    package static func usernameProblem(_ username: String) -> String? {
        if let offset = Array(username.utf8).firstIndex(of: UInt8(ascii: ":")) {
            return "the user-id contains \":\" at byte \(offset) (RFC 7617 section 2: the colon separates the password)"
        }
        return controlProblem(username, what: "the user-id")
    }

    /// Why `password` cannot be a Basic password, or nil: RFC 7617 section 2 forbids control
    /// characters (CTL: 0x00-0x1F and 0x7F). Pure; any thread.
    package static func passwordProblem(_ password: String) -> String? { controlProblem(password, what: "the password") }

    private static func controlProblem(_ text: String, what: String) -> String? {
        guard let offset = Array(text.utf8).firstIndex(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        return "\(what) contains a control character at byte \(offset) (RFC 7617 section 2 forbids them)"
    }

    /// The plugin that sets the `Authorization` header.
    var plugin: any Plugin { AuthorizationPlugin(authentication: self) }
}
