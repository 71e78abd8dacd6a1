/// One call as the core carries it out: the prepared request and every policy and limit laid
/// over in one order, the call's ``CallOptions`` first, then its route's, then the client's
/// config, resolved once before the first attempt. The front ends (Swift's ``Request``, C's
/// `gw_call_options`, the CLI's arguments, Python's keywords) only translate their input into
/// a ``Request`` and its options (whose ranges ``CallLimits`` holds, checked as the request is
/// prepared); what a call then does is decided from this value, so no front end can differ.
///
/// A value: made and read on the client's loop thread by ``Call``, tested without sockets.
struct ResolvedCall {
    /// The request every attempt sends, with the `Idempotency-Key` the retry policy asks for
    /// (one per call, so every attempt carries the same key).
    let prepared: PreparedRequest
    /// The call's retry policy, else the route's, else the client's; the call's
    /// ``CallOptions/maxRetries`` replaces only its count.
    let retryPolicy: RetryPolicy
    /// The call's own retry test (``CallOptions/retryTest``), asked once per failed attempt.
    let retryTest: RetryTest?
    /// The call's time limits, else the client's (a route has none of its own).
    let timeouts: Timeouts
    /// The call's redirect policy, else the route's, else the client's.
    let redirects: RedirectPolicy
    /// The largest decoded body accepted, in bytes: the call's, else the route's, else the config's.
    let maxResponseBytes: Int
    /// The statuses the call accepts beyond its descriptors' (``Request/validate(statusCode:)``), or nil.
    let acceptableStatusCodes: StatusCodeSet?
    /// The host's retry budget policy: the call's, else the route's, else the client's.
    let retryBudget: RetryBudget
    /// The host's circuit breaker policy: the call's, else the route's, else the client's.
    let circuitBreaker: CircuitBreakerPolicy
    /// The rate limit of the call's host or route: the call's, else the route's, else the client's.
    let rateLimit: RateLimitPolicy
    /// Whether the client's HTTP cache serves and stores this call: the route's `cache`, else
    /// whether the config has one; never a streamed body (docs/http-cache.md).
    let usesCache: Bool

    /// Resolves `prepared` with `options` over its route's policies and `config`'s.
    /// - Parameters:
    ///   - streamsBody: the call's body goes to a sink (a file or chunk consumer), not memory.
    ///   - idempotencyKey: makes the key of a call whose policy asks for one
    ///     (``IdempotencyKey/generate()``; a test passes its own).
    /// `prepared` is moved in (consumed): the call's request is not copied.
    init(_ prepared: consuming PreparedRequest, options: borrowing CallOptions, config: borrowing GatewayConfig,
         streamsBody: Bool, idempotencyKey: () -> String = IdempotencyKey.generate) {
        // Each field is read through the shared route (a class): binding its `Route` to a
        // local would copy the whole route.
        let resolved = prepared.resolved
        retryPolicy = options.retryPolicy(route: resolved?.route.retryPolicy, client: config.retryPolicy)
        if retryPolicy.idempotencyKey, !prepared.method.isIdempotent, !prepared.headers.contains(IdempotencyKey.headerName) {
            prepared.headers.set(IdempotencyKey.headerName, idempotencyKey())
        }
        self.prepared = prepared
        retryTest = options.retryTest
        timeouts = options.timeouts ?? config.timeouts
        redirects = options.redirectPolicy ?? resolved?.route.redirectPolicy ?? config.redirectPolicy
        maxResponseBytes = options.maxResponseBytes ?? resolved?.route.maxResponseBytes ?? config.maxResponseBytes
        acceptableStatusCodes = options.acceptableStatusCodes
        retryBudget = options.retryBudget ?? resolved?.route.retryBudget ?? config.retryBudget
        circuitBreaker = options.circuitBreaker ?? resolved?.route.circuitBreaker ?? config.circuitBreaker
        rateLimit = options.rateLimit ?? resolved?.route.rateLimit ?? config.rateLimit
        usesCache = !streamsBody && (resolved?.route.cache ?? (config.cache != nil))
    }
}
