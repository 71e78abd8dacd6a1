/// A plugin named in the gateway config's `plugins` array, in order: what to build, not the
/// plugin itself (it is built when a client is made). A built-in is named by
/// a string (`"requestId"`, short for `{"name": "requestId"}`) or by an object with its
/// settings; a shared object by its `path`:
///
/// ```json
/// "plugins": ["metrics", {"name": "log", "redactHeaders": ["X-Api-Key"]}, {"name": "requestId"},
///             {"name": "headers", "headers": {"X-Client": "demo"}}, {"name": "bearer", "token": "..."},
///             {"name": "basic", "username": "...", "password": "..."},
///             {"name": "apiKey", "header": "X-Api-Key", "value": "..."},
///             {"name": "bodyErrors", "when": {"keyPath": "ok", "equals": false},
///              "errors": {"keyPath": "", "mapping": "SlackError"}},
///             {"path": "./libmyplugin.so", "symbol": "gw_plugin_entry", "name": "mine"}]
/// ```
///
/// Parsing checks everything that needs no loading: unknown keys, the settings' types, and the
/// header names and values in them (`headers`, `header`, `token`, `value`, `username`,
/// `password`) as the gateway's own (RFC 9110 sections 5.1 and 5.5; RFC 7617 section 2 for
/// Basic credentials). A shared object's `path` that does not start with `/` is made absolute
/// here, against the directory of the config file (``GatewayConfig/init(contentsOfFile:)``) or
/// the current directory for config text. The object itself is opened only when a client is
/// made, by the C ABI library (libGatewire) or the `gatewire` CLI; a client of the `Gatewire`
/// product alone refuses it (``Client/init(config:plugins:randomSeed:)``).
package struct PluginSpec: Sendable {
    /// What the entry describes.
    package enum Kind: Sendable {
        /// One of the eight built-in plugins, with its checked settings.
        case builtIn(BuiltInPlugin)
        /// A `gw_plugin` in a shared object (include/gatewire.h, "Plugins").
        case sharedObject(SharedObjectPlugin)
    }

    /// What the entry describes.
    package let kind: Kind
    /// The entry's name: the built-in's name, or the shared object's `name` (else its absolute path).
    package let name: String
    /// Where the entry is in the config, e.g. `plugins[2]`: the start of every error about it.
    package let configPath: String

    /// Parses one element of `plugins`: a built-in's name (a string) or an object.
    /// - Parameter node: the element, in the config.
    /// - Parameter baseDirectory: what a shared object's relative `path` is relative to
    ///   (the config file's directory); nil = the current directory.
    /// - Throws: ``ConfigError`` naming the field: an unknown name or key, a missing or
    ///   invalid setting. A shared object that cannot be loaded is an error of client
    ///   creation, not of parsing.
    package init(config node: ConfigNode, baseDirectory: String? = nil) throws(ConfigError) {
        configPath = node.path
        if node.json.kind != .string, try node.optional("path") != nil {
            let plugin = try SharedObjectPlugin(config: node, baseDirectory: baseDirectory)
            (kind, name) = (.sharedObject(plugin), plugin.name ?? plugin.path)
        } else {
            let nameNode = node.json.kind == .string ? node : try node.required("name")
            let plugin = try BuiltInPlugin(config: node, name: nameNode)
            (kind, name) = (.builtIn(plugin), try nameNode.string())
        }
    }
}

/// A built-in plugin named in the config, with its settings checked.
package enum BuiltInPlugin: Sendable {
    /// `log`: a ``LoggingPlugin`` with the entry's redaction and whether it logs headers.
    case log(redactor: Redactor, logHeaders: Bool)
    /// `requestId`: a ``RequestIDPlugin`` filling `header`.
    case requestID(header: String)
    /// `headers`: a ``StaticHeadersPlugin``.
    case headers(HTTPHeaders)
    /// `bearer`: a ``BearerPlugin``.
    case bearer(token: String)
    /// `basic`: a ``BasicAuthPlugin``.
    case basic(username: String, password: String)
    /// `apiKey`: an ``APIKeyPlugin``.
    case apiKey(APIKeyPlugin.Placement, value: String)
    /// `metrics`: a ``MetricsPlugin`` (a new one per client).
    case metrics
    /// `bodyErrors`: a ``BodyErrorsPlugin``; its mapping is checked when a client is made,
    /// against the config's `mappings`.
    case bodyErrors(BodyErrorsPlugin.Condition, errorObjects: BodyErrorsPlugin.ErrorObjects?)

    /// The built-in named by `nameNode`, with `node`'s settings (`node` is the string that
    /// names it when the entry is a plain string: then every setting has its default).
    init(config node: ConfigNode, name nameNode: ConfigNode) throws(ConfigError) {
        let name = try nameNode.string()
        if node.json.kind == .string, ["headers", "bearer", "basic", "apiKey", "bodyErrors"].contains(name) {
            throw node.error("the \"\(name)\" plugin needs settings: write it as an object, {\"name\": \"\(name)\", ...}")
        }
        // A plugin named by a string has no settings: an empty object stands in for them.
        let settings = JSONValue.object()
        let node = node.json.kind == .string ? ConfigNode(settings.node, path: node.path) : node
        switch name {
        case "log":
            try node.rejectUnknownKeys(["name", "redactHeaders", "redactQuery", "headers"])
            let headers = try node.optional("redactHeaders")?.elements().map { (n) throws(ConfigError) in try n.string() } ?? []
            let query = try node.optional("redactQuery")?.elements().map { (n) throws(ConfigError) in try n.string() } ?? []
            let logHeaders = try node.optional("headers")?.bool() ?? false
            self = .log(redactor: Redactor(headers: headers, queryParameters: query), logHeaders: logHeaders)
        case "requestId":
            try node.rejectUnknownKeys(["name", "header"])
            self = .requestID(header: try node.optional("header")?.string(checkedBy: HTTPHeaders.nameProblem) ?? "X-Request-ID")
        case "headers":
            try node.rejectUnknownKeys(["name", "headers"])
            self = .headers(try HTTPHeaders(config: node.required("headers")))
        case "bearer":
            try node.rejectUnknownKeys(["name", "token"])
            self = .bearer(token: try node.required("token").string(checkedBy: HTTPHeaders.valueProblem))
        case "basic":
            try node.rejectUnknownKeys(["name", "username", "password"])
            let username = try node.required("username").string(checkedBy: Authentication.usernameProblem)
            let password = try node.optional("password")?.string(checkedBy: Authentication.passwordProblem) ?? ""
            self = .basic(username: username, password: password)
        case "apiKey":
            try node.rejectUnknownKeys(["name", "header", "query", "value"])
            let valueNode = try node.required("value")
            let value = try valueNode.string()
            let placement: APIKeyPlugin.Placement
            switch (try node.optional("header")?.string(checkedBy: HTTPHeaders.nameProblem), try node.optional("query")?.string()) {
            case (let header?, nil): placement = .header(header)
            case (nil, let query?): placement = .query(query)
            default: throw node.error("an apiKey plugin needs exactly one of \"header\" and \"query\"")
            }
            if case .header = placement { _ = try valueNode.string(checkedBy: HTTPHeaders.valueProblem) }  // a query value is percent-encoded
            self = .apiKey(placement, value: value)
        case "metrics":
            try node.rejectUnknownKeys(["name"])
            self = .metrics
        case "bodyErrors":
            try node.rejectUnknownKeys(["name", "when", "errors"])
            let condition = try BodyErrorsPlugin.Condition(config: node.required("when"))
            let errorObjects = try node.optional("errors").map { (n) throws(ConfigError) in try BodyErrorsPlugin.ErrorObjects(config: n) }
            self = .bodyErrors(condition, errorObjects: errorObjects)
        default:
            throw nameNode.error("unknown plugin \"\(name)\" (built-in: log, requestId, headers, bearer, basic, apiKey, metrics, bodyErrors; or {\"path\", \"symbol\"} for a shared object)")
        }
    }
}

/// A plugin in a shared object named in the config: `{"path": ..., "symbol": ..., "name": ...}`.
/// Loading it is the job of the C ABI library and the `gatewire` CLI, when a client is made;
/// include/gatewire.h ("Plugins") says how such a plugin is written.
package struct SharedObjectPlugin: Sendable {
    /// The object's absolute path.
    package let path: String
    /// The entry point's symbol (default `gw_plugin_entry`).
    package let symbol: String
    /// The config's `name`, or nil (then the plugin's own name, else ``path``).
    package let name: String?
    /// The entry's place in the config, e.g. `plugins[2]`.
    package let configPath: String
    /// Whether the config gave `symbol` (then an error about the symbol names that field).
    package let symbolGiven: Bool

    /// The field a load error names: `plugins[i].path`.
    package var pathField: String { configPath + ".path" }
    /// The field a missing symbol names: `plugins[i].symbol` when given, else `plugins[i]`.
    package var symbolField: String { symbolGiven ? configPath + ".symbol" : configPath }

    init(config node: ConfigNode, baseDirectory: String?) throws(ConfigError) {
        try node.rejectUnknownKeys(["path", "symbol", "name"])
        configPath = node.path
        path = try ConfigPath.read(node.required("path"), relativeTo: baseDirectory)
        let symbolNode = try node.optional("symbol")
        symbolGiven = symbolNode != nil
        symbol = try symbolNode?.string(checkedBy: { CStringRule.problem($0, what: "the symbol") }) ?? "gw_plugin_entry"
        name = try node.optional("name")?.string()
    }
}
