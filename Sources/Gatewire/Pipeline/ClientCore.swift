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
    let resilience: ResilienceState
    /// The HTTP cache (event-loop thread only), when the config or a route asks for one.
    let cache: HTTPCache?
    /// Traces of the calls: the config's `telemetry` and the OpenTelemetry environment.
    let telemetry: Telemetry
    private let randomSeed: UInt64?
    private let callCounter = Lock<UInt64>(0)
    private let callIDs = Lock<UInt64>(0)
    /// The base URL without its trailing slashes: a call's URL is this plus its path.
    let urlPrefix: String
    /// Why the config's base URL cannot be used (every call fails with it), or nil.
    let baseURLProblem: String?
    /// The base URL's origin (nil when libcurl cannot parse it): the one origin a path given
    /// as an absolute URL may name.
    let baseOrigin: URLOrigin?
    /// The base URL's path without its trailing slashes ("" for none), e.g. "/api/v1".
    let basePath: String
    /// Every configured route by name, with what its calls reuse (see ``ResolvedRoute``).
    let resolvedRoutes: [String: ResolvedRoute]

    /// - Parameters:
    ///   - plugins: the config's plugins, then the caller's; the config's `auth` goes first.
    ///   - storedCookies: the lines of the cookie jar's file (``CookieJar/storedCookies()``).
    init(config: GatewayConfig, plugins: [any Plugin], randomSeed: UInt64?, storedCookies: [String]) {
        self.config = config
        self.plugins = (config.authentication.map { [$0.plugin] } ?? []) + plugins
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
        baseOrigin = URLOrigin(prefix)
        basePath = AbsoluteURL(prefix)?.path ?? ""
        resolvedRoutes = config.routes.mapValues { ResolvedRoute($0, urlPrefix: prefix) }
        loop = EventLoop(limits: config.connectionLimits, cookies: config.cookies.map {
            CookieEngineSetup(jar: $0, stored: storedCookies, report: Diagnostics.report)
        })
        let telemetry = Telemetry(settings: TelemetrySettings.resolved(config: config.telemetry), loop: loop)
        self.telemetry = telemetry
        resilience = ResilienceState(sharedState: config.sharedState, loop: loop, announce: { [events] degraded, message in
            events.emit(CallEvent(storeDegraded: degraded, message: message))
        }, onTransition: { host, state in
            telemetry.breakerTransition(host: host, to: state)
        })
        cache = config.cache != nil || config.routes.values.contains { $0.cache == true }
            ? HTTPCache(settings: config.cache ?? HTTPCacheSettings(), redactor: redactor) : nil
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
}
