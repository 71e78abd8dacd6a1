@testable import Gatewire
import Testing

/// One resolved call (``ResolvedCall``) from a prepared request, its options, its route and
/// the config, with no client, loop or socket: each policy and limit is the call's, else the
/// route's, else the config's; the cache is the route's choice, never for a streamed body;
/// the Idempotency-Key is added once, only where the policy asks for it.
@Suite struct ResolvedCallTests {
    static let config = try! GatewayConfig(json: """
        {"baseURL": "http://127.0.0.1:8080",
         "retry": {"maxRetries": 2}, "redirects": {"max": 3}, "maxResponseBytes": 1000,
         "timeouts": {"connect": 4, "attempt": 5, "deadline": 6},
         "retryBudget": {"maxTokens": 20}, "circuitBreaker": {"minimumThroughput": 30},
         "routes": {
           "tuned": {"method": "POST", "pathPattern": "/tuned", "retry": {"maxRetries": 5, "idempotencyKey": true},
                     "redirects": {"max": 7}, "maxResponseBytes": 2000, "retryBudget": {"maxTokens": 21},
                     "circuitBreaker": {"minimumThroughput": 31}, "cache": true},
           "plain": {"method": "GET", "pathPattern": "/plain"}}}
        """)

    /// The request a call of `route` (else of `method` and `/path`) prepares to.
    static func prepared(route: String? = nil, method: HTTPMethod = .get, headers: HTTPHeaders = HTTPHeaders())
        -> PreparedRequest
    {
        let resolved = route.map { ResolvedRoute(config.routes[$0]!, urlPrefix: "http://127.0.0.1:8080") }
        return PreparedRequest(method: resolved?.route.method ?? method, path: "/path", url: "http://127.0.0.1:8080/path",
                               headers: headers, route: route, resolved: resolved)
    }

    static func resolve(_ prepared: PreparedRequest, _ options: CallOptions = CallOptions(), streamsBody: Bool = false)
        -> ResolvedCall
    {
        ResolvedCall(prepared, options: options, config: config, streamsBody: streamsBody, idempotencyKey: { "key-1" })
    }

    @Test func theConfigsPoliciesServeACallByPath() {
        let call = Self.resolve(Self.prepared())
        #expect(call.retryPolicy.maxRetries == 2)
        #expect(call.redirects.maxRedirects == 3)
        #expect(call.maxResponseBytes == 1000)
        #expect(call.timeouts == Timeouts(connect: 4, attempt: 5, deadline: 6))
        #expect(call.retryBudget.maxTokens == 20)
        #expect(call.circuitBreaker.minimumThroughput == 30)
        #expect(!call.usesCache)  // the config has no cache
    }

    @Test func aRoutesPoliciesComeBeforeTheConfigs() {
        let call = Self.resolve(Self.prepared(route: "tuned"))
        #expect(call.retryPolicy.maxRetries == 5)
        #expect(call.redirects.maxRedirects == 7)
        #expect(call.maxResponseBytes == 2000)
        #expect(call.timeouts == Timeouts(connect: 4, attempt: 5, deadline: 6))  // a route has no timeouts
        #expect(call.retryBudget.maxTokens == 21)
        #expect(call.circuitBreaker.minimumThroughput == 31)
        #expect(call.usesCache)
        #expect(!Self.resolve(Self.prepared(route: "tuned"), streamsBody: true).usesCache)
        #expect(Self.resolve(Self.prepared(route: "plain")).retryPolicy.maxRetries == 2)
    }

    @Test func theCallsOptionsComeFirst() {
        var redirects = RedirectPolicy()
        redirects.maxRedirects = 1
        var budget = RetryBudget()
        budget.maxTokens = 9
        var breaker = CircuitBreakerPolicy()
        breaker.minimumThroughput = 8
        let options = CallOptions(maxRetries: 0, timeouts: Timeouts(connect: 1, attempt: 2, deadline: 3),
                                  retryBudget: budget, circuitBreaker: breaker, redirectPolicy: redirects,
                                  maxResponseBytes: 10)
        let call = Self.resolve(Self.prepared(route: "tuned"), options)
        #expect(call.retryPolicy.maxRetries == 0)
        #expect(call.retryPolicy.idempotencyKey)  // the count alone replaced: the route's policy stays
        #expect(call.redirects.maxRedirects == 1)
        #expect(call.maxResponseBytes == 10)
        #expect(call.timeouts == Timeouts(connect: 1, attempt: 2, deadline: 3))
        #expect(call.retryBudget.maxTokens == 9)
        #expect(call.circuitBreaker.minimumThroughput == 8)
    }

    @Test func theIdempotencyKeyIsAddedOnceWhereThePolicyAsks() {
        #expect(Self.resolve(Self.prepared(route: "tuned")).prepared.headers["Idempotency-Key"] == "key-1")
        var own = HTTPHeaders()
        own.set("Idempotency-Key", "mine")
        #expect(Self.resolve(Self.prepared(route: "tuned", headers: own)).prepared.headers["Idempotency-Key"] == "mine")
        #expect(Self.resolve(Self.prepared(method: .post)).prepared.headers["Idempotency-Key"] == nil)  // not asked
        var asks = RetryPolicy()
        asks.idempotencyKey = true
        let get = Self.resolve(Self.prepared(method: .get), CallOptions(retryPolicy: asks))
        #expect(get.prepared.headers["Idempotency-Key"] == nil)  // GET is idempotent already
    }
}
