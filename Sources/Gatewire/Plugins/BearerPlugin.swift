/// Sends `Authorization: Bearer <token>` (RFC 6750) on every attempt; a call that sets its own
/// `Authorization` keeps it. Config: `{"name": "bearer", "token": "..."}`. For a token that is
/// refreshed on 401 use ``RefreshingCredential``.
public struct BearerPlugin: Plugin {
    public let name = "bearer"
    let token: String

    /// A plugin that sends `token`.
    public init(token: String) { self.token = token }

    public func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
        try AuthorizationPlugin(authentication: .bearer(token: token)).prepare(&request, context: context)
    }
}

/// Sends HTTP Basic credentials (RFC 7617) on every attempt. Config: `{"name": "basic",
/// "username": "...", "password": "..."}` (the same as the config's `auth`).
public struct BasicAuthPlugin: Plugin {
    public let name = "basic"
    let username: String
    let password: String

    /// A plugin that sends `username:password`.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    public func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
        try AuthorizationPlugin(authentication: .basic(username: username, password: password))
            .prepare(&request, context: context)
    }
}
