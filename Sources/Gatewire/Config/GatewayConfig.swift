import Glibc

/// A declarative description of one REST gateway: base URL, default headers, credentials,
/// timeouts, retry policy, routes, object mappings and descriptors. The same JSON schema
/// serves Swift, C, Python and the `gatewire` CLI (see `examples/` and the README).
///
/// Keys (times in seconds): `baseURL` (required), `headers`, `auth`, `timeouts`
/// (`connect`, `attempt`, `deadline`), `verifyTLS`, `caFile`, `proxy`, `noProxy`, `redactHeaders`,
/// `redactQuery`, `maxResponseBytes`, `maxConnectionsPerHost`, `maxConnections`, `http2`
/// (`maxConcurrentStreams`, `priorKnowledge`), `arrayParameters`, `retry`, `retryBudget`,
/// `circuitBreaker`, `rateLimit`, `sharedState`, `redirects`, `cookies`, `cache`, `routes`, `mappings`,
/// `requestDescriptors`, `responseDescriptors`, `errorDescriptors`, `plugins`. Unknown keys are errors, so a misspelt
/// field is reported rather than ignored.
public struct GatewayConfig: Sendable {
    /// The URL every path is relative to, e.g. `http://127.0.0.1:8080/api/v1` (no trailing slash needed).
    public var baseURL: String
    /// Header fields sent with every call (a call's own headers replace them by name).
    public var headers: HTTPHeaders = HTTPHeaders()
    /// Credentials sent with every call, or nil.
    public var authentication: Authentication?
    /// Time limits; the defaults of ``Timeouts``.
    public var timeouts = Timeouts()
    /// Verify TLS certificates and host names (default true). False turns off both the chain
    /// and the host name checks (anyone on the path can read and change the traffic):
    /// `insecureTLSWarning` says so, and `gatewire check`, `gatewire call` and the `log`
    /// plugin print it, once per client.
    public var verifyTLS = true

    /// The warning for `verifyTLS: false`, or nil when certificates are verified.
    package var insecureTLSWarning: String? {
        verifyTLS ? nil : "verifyTLS is false: TLS certificate chains and host names are not checked, so anyone "
            + "on the network path can read and change this gateway's traffic (use caFile for a private CA)"
    }
    /// The proxy of every call (key `proxy`; see `TransferOptions/proxy`): nil (absent)
    /// leaves it to libcurl's `http_proxy`, `https_proxy`, `ALL_PROXY` and `NO_PROXY`
    /// environment variables; `""` uses none and ignores them. Credentials in its userinfo are
    /// sent as `Proxy-Authorization` and never shown (``Redactor``).
    public var proxy: String?
    /// Hosts reached without the proxy (key `noProxy`, `TransferOptions/noProxy`): e.g.
    /// `"localhost,127.0.0.1,.internal"`, or `"*"`; nil: the environment's `NO_PROXY`.
    public var noProxy: String?
    /// A PEM file of the CA certificates to trust instead of the system's (key `caFile`), for
    /// a gateway behind a private CA; nil trusts the system's CAs. Stored absolute: a relative
    /// path is resolved against the config file's directory (the current directory for config
    /// text), as plugin paths are (`ConfigPath`); it must be readable when the config is loaded.
    public var caFile: String?
    /// The largest decoded response body a call accepts, in bytes (key `maxResponseBytes`,
    /// 1...2^62; default 64 MiB); see `ResponseSizeLimit`. A route's or a call's own
    /// limit replaces it.
    public var maxResponseBytes = ResponseSizeLimit.defaultBytes
    /// How many connections the client opens and how many calls one HTTP/2 connection
    /// carries (keys `maxConnectionsPerHost`, `maxConnections`, `http2.maxConcurrentStreams`;
    /// defaults and their source in ``ConnectionLimits``). Calls beyond them wait for a
    /// connection.
    public var connectionLimits = ConnectionLimits()
    /// Speak HTTP/2 to an `http://` base URL from the first byte (key `http2.priorKnowledge`,
    /// default false; see `TransferOptions/http2PriorKnowledge`).
    public var http2PriorKnowledge = false
    /// The secret names of this gateway besides the defaults and the plugins' (keys
    /// `redactHeaders` and `redactQuery`: arrays of header and query parameter names, e.g.
    /// `["X-Signature"]`, `["sig"]`): their values are hidden in everything that leaves the
    /// library (see ``Redactor``) and dropped on a cross-origin redirect.
    public var redactor = Redactor()
    /// The retry policy of every call without its own.
    public var retryPolicy = RetryPolicy()
    /// The retry budget per host (key `retryBudget`); off by default.
    public var retryBudget = RetryBudget.off
    /// The circuit breaker per host (key `circuitBreaker`); off by default.
    public var circuitBreaker = CircuitBreakerPolicy.off
    /// The rate limit per host or route (key `rateLimit`, see ``RateLimitPolicy``); off by default.
    public var rateLimit = RateLimitPolicy.off
    /// Where the circuit breakers keep their state (key `sharedState`, see
    /// ``SharedStateSettings``): nil (the default) in process; else in Redis, shared by every
    /// client that names the same server and key prefix (docs/fleet.md).
    public var sharedState: SharedStateSettings?
    /// Which redirects calls follow and how (key `redirects`, see ``RedirectPolicy``):
    /// by default up to 10 hops, credentials dropped on an origin change, no https to http,
    /// no body re-sent to another origin.
    public var redirectPolicy = RedirectPolicy()
    /// How a call's query parameters of several values are written (key `arrayParameters`:
    /// `"repeat"`, the default, `"brackets"` or `"comma"`; see ``ArrayParameterStyle``).
    public var arrayParameters = ArrayParameterStyle.repeat
    /// The client's cookie jar (key `cookies`: `true`, or `{"file": "path"}` to persist it),
    /// or nil (default): no cookie is stored or sent unless a call sets the field itself.
    public var cookies: CookieJar?
    /// The client's HTTP cache (key `cache`: `true`, or `{"maxBytes", "directory"}`), used
    /// by every GET but those of routes with `"cache": false`; nil (default): only routes
    /// with `"cache": true` use one (a memory cache of the defaults).
    public var cache: HTTPCacheSettings?
    /// Named routes.
    public var routes: [String: Route] = [:]

    /// `unknown route "nope" (known: a, b)`, or `(the client has no routes)`: the message of a
    /// call or paginator that names a route this config does not have.
    func unknownRouteMessage(_ name: String) -> String {
        let known = routes.isEmpty ? "the client has no routes" : "known: " + routes.keys.sorted().joined(separator: ", ")
        return "unknown route \"\(name)\" (\(known))"
    }
    /// Object mappings and request, response and error descriptors.
    package var catalog = MappingCatalog.empty
    /// Plugins named in the config's `plugins` array, in order (after `auth`, before the
    /// plugins passed to the client): what to build; the client builds them (``Client/init(config:plugins:randomSeed:)``).
    package var plugins: [PluginSpec] = []
    /// Things that are legal but probably unintended (e.g. two descriptors for the same key
    /// path, a retry `maxDelay` below its `initialDelay`); `gatewire check` prints them.
    public var warnings: [String] = []

    /// A config with only a base URL and every default.
    /// - Throws: ``ConfigError`` (path `baseURL`) unless it is an absolute http(s) URL with a host.
    public init(baseURL: String) throws(ConfigError) {
        if let problem = Self.baseURLProblem(baseURL) { throw ConfigError(path: "baseURL", message: problem) }
        self.baseURL = baseURL
    }

    /// Points the config at another server (e.g. a test server on a free port), keeping the
    /// rest. - Throws: ``ConfigError`` (path `baseURL`) unless `url` is an absolute http(s) URL.
    package mutating func replaceBaseURL(with url: String) throws(ConfigError) {
        if let problem = Self.baseURLProblem(url) { throw ConfigError(path: "baseURL", message: problem) }
        baseURL = url
    }

    /// Why `url` cannot be a base URL, or nil when it can: it must be an absolute `http://`
    /// or `https://` URL with a host and no NUL byte (libcurl takes it as a C string:
    /// ``CStringRule``), and its path has no dot segment (`DotSegments`).
    package static func baseURLProblem(_ url: String) -> String? {
        if let problem = CStringRule.problem(url, what: "the URL") { return problem }
        let scheme = ["http://", "https://"].first { url.hasPrefix($0) }
        let host = scheme.map { url.dropFirst($0.count) } ?? ""
        if host.isEmpty || host.hasPrefix("/") {
            // The URL is quoted without its userinfo (a password) or secret query values.
            return "must be an absolute http:// or https:// URL, got \"\(Redactor.standard.url(url))\""
        }
        if DotSegments.inPath(String(host)) != nil {
            return "has a dot segment (. or .., in any percent-encoding) in its path, which would change the "
                + "resource it names (RFC 3986 section 5.2.4)"
        }
        return nil
    }

    /// Why `url` cannot be a proxy, or nil when it can: `""` or a URL whose scheme libcurl
    /// speaks to a proxy (http, https, socks4, socks4a, socks5, socks5h) with a host, and no
    /// NUL byte (``CStringRule``). The URL is quoted without its userinfo.
    package static func proxyProblem(_ url: String) -> String? {
        if url.isEmpty { return nil }
        if let problem = CStringRule.problem(url, what: "the URL") { return problem }
        let schemes = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]
        guard let separator = url.firstRange(of: "://"), schemes.contains(url[..<separator.lowerBound].lowercased()),
              !url[separator.upperBound...].isEmpty, !url[separator.upperBound...].hasPrefix("/") else {
            return "must be \"\" or a proxy URL (\(schemes.map { $0 + "://" }.joined(separator: ", ")) with a host), "
                + "got \"\(Redactor.standard.url(url))\""
        }
        return nil
    }

    /// Parses a config from JSON text. A key repeated in one object is an error (it would
    /// silently replace the first).
    /// - Throws: ``ConfigError`` with the field's path, or with the line and column of invalid JSON.
    public init(json: String) throws(ConfigError) {
        let document: JSONValue
        do {
            document = try JSONValue.parse(json, rejectingDuplicateKeys: true)
        } catch {
            throw ConfigError(path: "", message: error.description)
        }
        try self.init(root: ConfigNode(document.node))
    }

    /// Reads and parses a config file (UTF-8 JSON). A shared-object plugin's relative `path`
    /// is relative to the file's directory.
    /// - Throws: ``ConfigError`` naming the file when it cannot be read or parsed.
    public init(contentsOfFile path: String) throws(ConfigError) {
        let document: JSONValue
        do {
            document = try JSONValue.load(file: path, rejectingDuplicateKeys: true)
        } catch {
            throw ConfigError(path: "", message: "\(path): \(error.description)")
        }
        try self.init(root: ConfigNode(document.node), directory: ConfigPath.directory(of: path))
    }

    /// `directory`: the config file's, for relative plugin paths (nil: the current directory).
    init(root: ConfigNode, directory: String? = nil) throws(ConfigError) {
        try root.rejectUnknownKeys(["baseURL", "headers", "auth", "timeouts", "verifyTLS", "caFile", "proxy", "noProxy",
                                    "redactHeaders", "redactQuery", "maxResponseBytes", "maxConnectionsPerHost", "maxConnections",
                                    "http2", "retry", "routes", "retryBudget",
                                    "circuitBreaker", "rateLimit", "redirects", "mappings", "requestDescriptors", "responseDescriptors",
                                    "errorDescriptors", "plugins", "arrayParameters", "cookies", "cache", "sharedState"])
        let urlNode = try root.required("baseURL")
        baseURL = try urlNode.string()
        if let problem = Self.baseURLProblem(baseURL) { throw urlNode.error(problem) }
        if let node = try root.optional("headers") {
            headers = try HTTPHeaders(config: node)
        }
        authentication = try root.optional("auth").map { (node) throws(ConfigError) in try Authentication(config: node) }
        if let node = try root.optional("timeouts") {
            try node.rejectUnknownKeys(["connect", "attempt", "deadline"])
            let positive = CallLimits.duration
            if let connect = try node.optional("connect") { timeouts.connect = try connect.number(in: positive) }
            if let attempt = try node.optional("attempt") { timeouts.attempt = try attempt.number(in: positive) }
            if let deadline = try node.optional("deadline") { timeouts.deadline = try deadline.number(in: positive) }
        }
        if let node = try root.optional("verifyTLS") { verifyTLS = try node.bool() }
        if let node = try root.optional("caFile") {
            let path = try ConfigPath.read(node, relativeTo: directory)
            guard access(path, R_OK) == 0 else {
                throw node.error("cannot read the CA file \"\(path)\": \(String(cString: strerror(errno)))")
            }
            caFile = path
        }
        if let node = try root.optional("maxResponseBytes") { maxResponseBytes = try ResponseSizeLimit.bytes(config: node) }
        let http2 = try root.optional("http2")
        try http2?.rejectUnknownKeys(["maxConcurrentStreams", "priorKnowledge"])
        connectionLimits = try ConnectionLimits(root: root, http2: http2)
        if let node = try http2?.optional("priorKnowledge") { http2PriorKnowledge = try node.bool() }
        if let node = try root.optional("arrayParameters") {
            let name = try node.string()
            guard let style = ArrayParameterStyle(rawValue: name) else {
                throw node.error("unknown style \"\(name)\" (expected one of: "
                    + ArrayParameterStyle.allCases.map(\.rawValue).joined(separator: ", ") + ")")
            }
            arrayParameters = style
        }
        proxy = try root.optional("proxy")?.string(checkedBy: Self.proxyProblem)
        noProxy = try root.optional("noProxy")?.string(checkedBy: { CStringRule.problem($0) })
        func names(_ key: String) throws(ConfigError) -> [String] {
            try root.optional(key)?.elements().map { (node) throws(ConfigError) in try node.string() } ?? []
        }
        redactor = Redactor(headers: try names("redactHeaders"), queryParameters: try names("redactQuery"))
        if let node = try root.optional("retry") { retryPolicy = try RetryPolicy(config: node) }
        if let node = try root.optional("retryBudget") { retryBudget = try RetryBudget(config: node) }
        if let node = try root.optional("circuitBreaker") { circuitBreaker = try CircuitBreakerPolicy(config: node) }
        if let node = try root.optional("rateLimit") { rateLimit = try RateLimitPolicy(config: node) }
        if let node = try root.optional("sharedState") { sharedState = try SharedStateSettings(config: node) }
        if let node = try root.optional("redirects") { redirectPolicy = try RedirectPolicy(config: node) }
        if let node = try root.optional("cookies") { cookies = try CookieJar.from(config: node, directory: directory) }
        if let node = try root.optional("cache") { cache = try HTTPCacheSettings.from(config: node, directory: directory) }
        catalog = try MappingCatalog(config: root)
        if let node = try root.optional("routes") {
            for (name, value) in try node.members() {
                routes[name] = try Route(config: value, name: name, inheriting: retryPolicy, redirectDefaults: redirectPolicy)
            }
        }
        for route in routes.values.sorted(by: { $0.name < $1.name }) {
            guard let type = route.objectType else { continue }
            guard catalog.requestDescriptor(objectType: type, method: route.method) != nil else {
                throw ConfigError(path: "routes.\(route.name).objectType",
                                  message: "no request descriptor has objectType \"\(type)\" for \(route.method)")
            }
        }
        if let node = try root.optional("plugins") {
            plugins = try node.elements().map { (element) throws(ConfigError) in
                try PluginSpec(config: element, baseDirectory: directory)
            }
        }
        warnings = catalog.warnings() + Self.retryDelayWarnings(root: root, policy: retryPolicy, routes: routes)
            + (insecureTLSWarning.map { [$0] } ?? [])
    }
}
