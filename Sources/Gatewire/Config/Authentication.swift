/// The credentials a client sends on every request, from the config's `auth` field.
public enum Authentication: Sendable, Equatable {
    /// HTTP Basic (RFC 7617): `{"type": "basic", "username": "alice", "password": "secret"}`.
    case basic(username: String, password: String)
    /// A static bearer token (RFC 6750): `{"type": "bearer", "token": "..."}`.
    case bearer(token: String)

    /// Parses the `auth` field.
    /// - Throws: ``ConfigError`` naming the field (unknown type, missing username, ...).
    public init(config: ConfigNode) throws(ConfigError) {
        let typeNode = try config.required("type")
        switch try typeNode.string() {
        case "basic":
            try config.rejectUnknownKeys(["type", "username", "password"])
            self = .basic(username: try config.required("username").string(),
                          password: try config.optional("password")?.string() ?? "")
        case "bearer":
            try config.rejectUnknownKeys(["type", "token"])
            self = .bearer(token: try config.required("token").string())
        default:
            throw typeNode.error("unknown auth type (expected \"basic\" or \"bearer\")")
        }
    }

    /// The plugin that sets the `Authorization` header.
    var plugin: any Plugin { AuthorizationPlugin(authentication: self) }
}
