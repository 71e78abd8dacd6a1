import CGatewireABI
import Glibc

/// A plugin named in the gateway config's `plugins` array, in order. A built-in is named by
/// a string (`"requestId"`, short for `{"name": "requestId"}`) or by an object with its
/// settings:
///
/// ```json
/// "plugins": ["metrics", {"name": "log", "redactHeaders": ["X-Api-Key"]}, {"name": "requestId"},
///             {"name": "headers", "headers": {"X-Client": "demo"}}, {"name": "bearer", "token": "..."},
///             {"name": "basic", "username": "...", "password": "..."},
///             {"name": "apiKey", "header": "X-Api-Key", "value": "..."}, {"name": "metrics"},
///             {"path": "./libmyplugin.so", "symbol": "gw_plugin_entry"}]
/// ```
///
/// A shared object is opened with `dlopen` when the config is parsed; a `path` that does not
/// start with `/` is relative to the directory of the config file (``GatewayConfig/init(contentsOfFile:)``),
/// or to the current directory for config text, and a load error shows the absolute path
/// tried. Its entry symbol (default `gw_plugin_entry`, see
/// `include/gatewire.h`) must fill a `gw_plugin` of a supported version: a missing file or
/// symbol, a failing entry or another version is a ``ConfigError``. The object stays loaded.
/// Header names and values in the settings (`headers`, `header`, `token`, `value`,
/// `username`, `password`) are checked as the gateway's own (RFC 9110 sections 5.1 and 5.5;
/// RFC 7617 section 2 for Basic credentials).
/// Its hooks run through the core's `gw_plugin` adapter (`CPlugin`), so such a plugin works in
/// a pure Swift program as in C or Python; the `gw_request_*` functions it calls are
/// libGatewire's (link the object against it).
public struct PluginSpec: Sendable {
    /// The plugin the entry describes (a new instance per client for built-ins that keep state).
    public let make: @Sendable () -> any Plugin
    /// The entry's name: the built-in's name, or the shared object's `name` (else its absolute path).
    public let name: String

    /// The plugin.
    var plugin: any Plugin { make() }

    /// Parses one element of `plugins`: a built-in's name (a string) or an object.
    /// - Parameter node: the element, in the config.
    /// - Parameter baseDirectory: what a shared object's relative `path` is relative to
    ///   (the config file's directory); nil = the current directory.
    /// - Throws: ``ConfigError`` naming the field: an unknown name, a missing or invalid
    ///   setting, a shared object that cannot be loaded.
    public init(config node: ConfigNode, baseDirectory: String? = nil) throws(ConfigError) {
        (name, make) = try Self.parse(node, baseDirectory: baseDirectory)
    }

    private static func parse(_ node: ConfigNode, baseDirectory: String?) throws(ConfigError)
        -> (String, @Sendable () -> any Plugin)
    {
        if node.json.kind == .string { return try builtIn(node, name: node) }
        if try node.optional("path") != nil { return try sharedObject(node, baseDirectory: baseDirectory) }
        return try builtIn(node, name: node.required("name"))
    }

    /// A built-in plugin: `node` is its object, or the string that names it (then `nameNode`
    /// is `node` itself and every setting has its default).
    private static func builtIn(_ node: ConfigNode, name nameNode: ConfigNode) throws(ConfigError)
        -> (String, @Sendable () -> any Plugin)
    {
        let name = try nameNode.string()
        if node.json.kind == .string, ["headers", "bearer", "basic", "apiKey"].contains(name) {
            throw node.error("the \"\(name)\" plugin needs settings: write it as an object, {\"name\": \"\(name)\", ...}")
        }
        // A plugin named by a string has no settings: an empty object stands in for them.
        let settings = JSONValue.object()
        let node = node.json.kind == .string ? ConfigNode(settings.node, path: node.path) : node
        let make: @Sendable () -> any Plugin
        switch name {
        case "log":
            try node.rejectUnknownKeys(["name", "redactHeaders", "redactQuery", "headers"])
            let headers = try node.optional("redactHeaders")?.elements().map { (n) throws(ConfigError) in try n.string() } ?? []
            let query = try node.optional("redactQuery")?.elements().map { (n) throws(ConfigError) in try n.string() } ?? []
            let logHeaders = try node.optional("headers")?.bool() ?? false
            let redactor = Redactor(headers: headers, queryParameters: query)
            make = { LoggingPlugin(redactor: redactor, logHeaders: logHeaders) }
        case "requestId":
            try node.rejectUnknownKeys(["name", "header"])
            let header = try node.optional("header")?.string(checkedBy: HTTPHeaders.nameProblem) ?? "X-Request-ID"
            make = { RequestIDPlugin(header: header) }
        case "headers":
            try node.rejectUnknownKeys(["name", "headers"])
            let fixed = try HTTPHeaders(config: node.required("headers"))
            make = { StaticHeadersPlugin(headers: fixed) }
        case "bearer":
            try node.rejectUnknownKeys(["name", "token"])
            let token = try node.required("token").string(checkedBy: HTTPHeaders.valueProblem)
            make = { BearerPlugin(token: token) }
        case "basic":
            try node.rejectUnknownKeys(["name", "username", "password"])
            let username = try node.required("username").string(checkedBy: Authentication.usernameProblem)
            let password = try node.optional("password")?.string(checkedBy: Authentication.passwordProblem) ?? ""
            make = { BasicAuthPlugin(username: username, password: password) }
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
            make = { APIKeyPlugin(placement, value: value) }
        case "metrics":
            try node.rejectUnknownKeys(["name"])
            make = { MetricsPlugin() }
        default:
            throw nameNode.error("unknown plugin \"\(name)\" (built-in: log, requestId, headers, bearer, basic, apiKey, metrics; or {\"path\", \"symbol\"} for a shared object)")
        }
        return (name, make)
    }

    private static func sharedObject(_ node: ConfigNode, baseDirectory: String?) throws(ConfigError)
        -> (String, @Sendable () -> any Plugin)
    {
        try node.rejectUnknownKeys(["path", "symbol", "name"])
        let pathNode = try node.required("path")
        let path = ConfigPath.absolute(try pathNode.string(), relativeTo: baseDirectory)
        let symbolNode = try node.optional("symbol")
        let symbol = try symbolNode?.string() ?? "gw_plugin_entry"
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown error"
            throw pathNode.error("cannot load the plugin's shared object (tried \(path)): \(reason)")
        }
        _ = dlerror()
        guard let address = dlsym(handle, symbol) else {
            throw (symbolNode ?? node).error("\(path) has no symbol \"\(symbol)\" (the plugin entry: int32_t \(symbol)(gw_plugin *plugin))")
        }
        let entry = unsafeBitCast(address, to: gw_plugin_entry_fn.self)
        // Zeroed room for any gw_plugin version, generously sized; fields a version lacks stay NULL.
        let size = max(512, MemoryLayout<gw_plugin>.stride)
        let storage = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { storage.deallocate() }
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        let filled = storage.assumingMemoryBound(to: gw_plugin.self)
        let status = entry(filled)
        guard status == 0 else {
            throw node.error("\(symbol) in \(path) failed with status \(status)")
        }
        let version = storage.load(as: UInt32.self)
        let supported = CPlugin.supportedVersions
        guard supported.contains(version) else {
            throw node.error("\(path) has gw_plugin version \(version); this library supports versions \(supported.lowerBound) to \(supported.upperBound)")
        }
        let named = try node.optional("name")?.string() ?? path
        // One adapter for every client made from this config: the object stays loaded for the
        // process and its destroy hook is never called, so the plugin keeps no per-client state.
        let plugin = CPlugin(CPlugin.read(filled, index: 0), index: 0, name: named)
        return (named, { plugin })
    }
}
