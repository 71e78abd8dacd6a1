/// What every call of a client shares: set up once, then read-only (and so `Sendable`).
final class ClientCore: Sendable {
    let loop: EventLoop
    let config: GatewayConfig
    let plugins: [any Plugin]
    let observers = FailureObservers()
    let events = EventMonitors()
    /// The first ``RefreshingCredential`` among the plugins: asked after every 401.
    let credential: RefreshingCredential?
    let transferOptions: TransferOptions
    /// Hides secrets in everything that leaves the library (``Redactor``): the default names,
    /// the config's `redactHeaders`/`redactQuery` and every plugin's ``Plugin/secretNames``
    /// (the auth plugins' headers and parameters). The complete set of credential-bearing names.
    let redactor: Redactor
    /// Retry budgets and circuit breakers per host (event-loop thread only).
    let resilience = ResilienceState()
    private let randomSeed: UInt64?
    private let callCounter = Lock<UInt64>(0)
    private let callIDs = Lock<UInt64>(0)
    /// The base URL without its trailing slashes: a call's URL is this plus its path.
    private let urlPrefix: String
    /// Why the config's base URL cannot be used (every call fails with it), or nil.
    private let baseURLProblem: String?
    /// The config's first header field that cannot be sent (every call fails with it), or
    /// nil: checked once here, not on every call (a parsed config's are always valid; a
    /// config built in Swift may set any).
    private let defaultHeadersProblem: String?
    /// Every configured route by name, with what its calls reuse (see ``ResolvedRoute``).
    private let resolvedRoutes: [String: ResolvedRoute]

    init(config: GatewayConfig, plugins: [any Plugin], randomSeed: UInt64?) {
        self.config = config
        self.plugins = (config.authentication.map { [$0.plugin] } ?? []) + config.plugins.map(\.plugin) + plugins
        credential = self.plugins.lazy.compactMap { $0 as? RefreshingCredential }.first
        let secrets = self.plugins.map(\.secretNames)
        redactor = config.redactor.merging(Redactor(headers: secrets.flatMap(\.headers),
                                                    queryParameters: secrets.flatMap(\.queryParameters)))
        self.randomSeed = randomSeed
        var options = TransferOptions()
        options.verifyTLS = config.verifyTLS
        options.caFile = config.caFile
        options.proxy = config.proxy
        options.noProxy = config.noProxy
        options.http2PriorKnowledge = config.http2PriorKnowledge
        transferOptions = options
        var prefix = config.baseURL
        while prefix.hasSuffix("/") { prefix.removeLast() }
        urlPrefix = prefix
        baseURLProblem = GatewayConfig.baseURLProblem(config.baseURL)
        defaultHeadersProblem = config.headers.problem
        resolvedRoutes = config.routes.mapValues { ResolvedRoute($0, urlPrefix: prefix) }
        loop = EventLoop(limits: config.connectionLimits)
        if let warning = config.insecureTLSWarning {
            // Each log plugin says it once, when its client is made.
            for case let logger as LoggingPlugin in self.plugins { logger.sink("warning: \(warning)") }
        }
    }

    var catalog: MappingCatalog { config.catalog }
    var retryPolicy: RetryPolicy { config.retryPolicy }
    var timeouts: Timeouts { config.timeouts }

    /// A new call id (1, 2, ...).
    func nextCallID() -> UInt64 {
        callIDs.withLock { count -> UInt64 in
            count += 1
            return count
        }
    }

    /// The jitter source of one call when the client has a seed (exact tests: seeded per
    /// call, in call order); nil without one, and the call seeds from the system
    /// (`getrandom(2)`) only if it ever needs jitter (a retry), not once per call.
    func makeGenerator() -> SeededGenerator? {
        guard let randomSeed else { return nil }
        let index = callCounter.withLock { count -> UInt64 in
            count += 1
            return count
        }
        return SeededGenerator(seed: randomSeed &+ index)
    }

    /// Resolves route, parameters, body and headers.
    /// - Throws: ``GatewireError`` of kind `invalidArgument` naming what is wrong (an unknown
    ///   route, a missing parameter, a parameter or path with a dot segment (``DotSegments``),
    ///   a header that ``HTTPHeaders/fieldProblem(name:value:)`` rejects, a body on a HEAD
    ///   request: ``HTTPMethod/bodyProblem(hasBody:)``).
    func prepare(_ request: Request) throws(GatewireError) -> PreparedRequest {
        var method = request.method
        var pattern = request.path
        var objectType: String?
        var resolved: ResolvedRoute?
        if let name = request.route {
            guard let entry = resolvedRoutes[name] else {
                throw GatewireError(kind: .invalidArgument, message: config.unknownRouteMessage(name),
                                    method: method, path: name)
            }
            resolved = entry
            method = entry.route.method
            pattern = entry.route.pathPattern
            objectType = entry.route.objectType
        } else if pattern.isEmpty, case .object(_, let type?) = request.body {
            // An object route: the route for this object type and method (RestKit's
            // `RKRoute routeWithClass:pathPattern:method:`).
            guard let route = config.routes.values.sorted(by: { $0.name < $1.name })
                .first(where: { $0.objectType == type && $0.method == method }) else {
                throw GatewireError(kind: .invalidArgument,
                                    message: "no path and no route for object type \"\(type)\" and \(method)",
                                    method: method, path: "")
            }
            pattern = route.pathPattern
            objectType = type
        }
        func invalid(_ message: String) -> GatewireError {
            GatewireError(kind: .invalidArgument, message: message, method: method, path: redactor.url(pattern))
        }
        var headers = config.headers
        if request.headers.count > 0 { headers.merge(request.headers) }
        var body: [UInt8]?
        var objectAttributes: [String: String] = [:]
        var objectParameters: [(String, String)] = []
        switch request.body {
        case nil:
            break
        case .json(let value):
            body = Array(value.serialized().utf8)
            if !headers.contains("Content-Type") { headers.set("Content-Type", "application/json") }
        case .object(let value, let type):
            guard let typeName = type ?? objectType else {
                throw invalid("an object body needs an object type: the call's or its route's objectType")
            }
            guard let descriptor = catalog.requestDescriptor(objectType: typeName, method: method) else {
                throw invalid("no request descriptor for object type \"\(typeName)\" and \(method)")
            }
            let mapped: JSONValue
            do {
                mapped = try descriptor.body(for: value.node, mapper: catalog.mapper)
            } catch {
                throw invalid("the \(typeName) object could not be mapped: \(error)")
            }
            for (key, member) in value.node.members {
                switch member.kind {
                case .string: objectAttributes[key] = member.string
                case .integer, .real, .bool: objectAttributes[key] = member.serialized()
                default: break
                }
            }
            if [.get, .head, .delete].contains(method) {
                objectParameters = FormEncoding.pairs(mapped.node, includeNulls: false)  // no body: parameters instead
            } else {
                body = Array((descriptor.format == .form ? FormEncoding.body(mapped.node) : mapped.serialized()).utf8)
                if !headers.contains("Content-Type") { headers.set("Content-Type", descriptor.format.contentType) }
            }
        case .bytes(let bytes, let contentType):
            body = bytes
            if !headers.contains("Content-Type") {
                if let problem = HTTPHeaders.fieldProblem(name: "Content-Type", value: contentType) { throw invalid(problem) }
                headers.set("Content-Type", contentType)
            }
        }
        // Each header checked once where it entered: the call's here, the config's when the
        // client was made, the descriptors' content types are the library's own.
        if let problem = request.headers.problem ?? defaultHeadersProblem { throw invalid(problem) }
        if let problem = method.bodyProblem(hasBody: body != nil) { throw invalid(problem) }
        if let baseURLProblem { throw invalid("baseURL \(baseURLProblem)") }
        if let resolved, let path = resolved.staticPath, let url = resolved.staticURL, request.parameters.isEmpty,
           objectParameters.isEmpty {
            // A route without `:name` parameters called without parameters: its path and URL
            // were built once (objectAttributes only fill `:name` segments, never the query).
            return PreparedRequest(method: method, path: path, url: url, headers: headers, body: body,
                                   route: request.route, resolved: resolved, readsJSONBody: request.readsJSONBody)
        }
        var path: String
        do {
            path = try Router.build(pattern.hasPrefix("/") ? pattern : "/" + pattern, parameters: request.parameters,
                                    objectAttributes: objectAttributes, objectParameters: objectParameters)
        } catch {
            throw invalid(error.message)
        }
        path = Router.encodingNonASCII(path)
        if let part = DotSegments.inPath(path) {
            // Refused rather than resolved (RFC 3986 section 5.2.4): the path sent, the path
            // reported and the route matched stay the same, inside the base URL's path.
            throw invalid("path \(part) has a dot segment (. or .., in any percent-encoding), which would change "
                + "the resource it names (RFC 3986 section 5.2.4); it is refused, not resolved")
        }
        return PreparedRequest(method: method, path: path, url: urlPrefix + path, headers: headers, body: body,
                               route: request.route, resolved: resolved, readsJSONBody: request.readsJSONBody)
    }
}
