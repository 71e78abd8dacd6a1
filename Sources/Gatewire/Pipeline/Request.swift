/// The request of a call: what the call sends (the README's Glossary), with the call's
/// ``options``, which say how it is carried out.
///
/// Either `method` + `path` (relative to the client's base URL; `:name` segments are filled
/// from `parameters`) or a configured `route` name. Parameters not used in the path are sent
/// as query parameters. Every attempt of the call is built afresh from this value.
public struct Request: Sendable {
    /// The method; a route's method replaces it.
    public var method: HTTPMethod
    /// The path relative to the base URL, e.g. `/users/:id` or `/search?q=a`. Ignored with a route.
    public var path: String
    /// A route name from the gateway config (e.g. `"user"`), or nil.
    public var route: String?
    /// Values for `:name` path parameters; the rest become query parameters (RFC 3986
    /// percent-encoded), in key order. Numbers, booleans and lists: the initialisers'
    /// `parameters` (`["page": 2, "ids": [1, 2], "q": "x"]`) or ``setParameter(_:_:)-(_,ParameterValue)``.
    public var parameters: [String: String]
    /// Query parameters of several values, e.g. `["ids": ["1", "2"]]`, written after
    /// ``parameters`` in key order, in the style of ``CallOptions/arrayParameters``, else the
    /// config's `arrayParameters` (default `ids=1&ids=2`: ``ArrayParameterStyle``). They never
    /// fill a `:name` path segment.
    public var listParameters: [String: [String]] = [:]
    /// Header fields for this call; they replace the client's default headers of the same name.
    public var headers: HTTPHeaders
    /// The body, if any. It goes out with ``method`` whatever that is (a GET with a body is
    /// sent as GET); a HEAD with a body fails with `invalidArgument` before sending (RFC 9110
    /// section 9.3.2).
    public var body: Body?
    /// How this call is carried out, over its route's and its client's policies.
    public var options: CallOptions
    /// Whether the caller reads the response body as JSON itself (set by a page or cursor
    /// ``Paginator``): the call then parses an accepted JSON body even when no descriptor
    /// maps it, so invalid JSON fails the call (kind `mapping`) with the call's redaction,
    /// observers and events (see `ResponseMapper/triage(_:readingJSONBody:)`).
    var readsJSONBody = false

    /// What a call sends as its body.
    public enum Body: Sendable {
        /// JSON sent as is (`Content-Type: application/json`).
        case json(JSONValue)
        /// An object of a configured type, turned into the body by the request descriptor for
        /// that type and the call's method (attribute mapping + `rootKeyPath`), as RestKit's
        /// `RKRequestDescriptor`. A nil type means the route's `objectType`.
        case object(JSONValue, type: String? = nil)
        /// Raw bytes with their content type (a `Content-Type` header of the call or config wins).
        case bytes([UInt8], contentType: String)
        /// An `application/x-www-form-urlencoded` body of these fields in their order, encoded
        /// as the WHATWG URL standard's form serializer (space `+`, every byte outside RFC
        /// 3986's unreserved set `%XX`); repeat a name for a list, as requests' `data=` does.
        case form([(name: String, value: String)])
        /// A `multipart/form-data` body (RFC 7578) of `parts` in order (RestKit's
        /// `multipartFormRequestWithObject:...constructingBodyWithBlock:`, requests' `files=`).
        /// With `object`, the object's fields come first: mapped by the request descriptor
        /// of `type` (nil: the route's `objectType`) and the call's method, whatever its
        /// `format`, and flattened as `FormEncoding/pairs(_:includeNulls:)` writes a form
        /// (`user[name]`, `tags[]`: Rails' and AFNetworking's names), one text part each.
        /// Each file part's file is checked before anything is sent (one that cannot be
        /// read or is not a regular file fails the call with `invalidArgument` naming it,
        /// `MultipartPart/problem`) and streamed from disk by
        /// every attempt. libcurl writes the `Content-Type` (`multipart/form-data;
        /// boundary=...`); one from the call or the config is not sent.
        case multipart([MultipartPart], object: JSONValue? = nil, type: String? = nil)
        /// An `Encodable` value sent as JSON (`Content-Type: application/json`), encoded
        /// when the call is prepared: the case `.json(value)` makes, the spelling to write.
        case encodable(any Encodable & Sendable)
        /// An `Encodable` object of a configured type, encoded and then sent as an object body
        /// of a ``JSONValue`` is: the case `.object(value, type:)` makes, the spelling to write.
        case encodableObject(any Encodable & Sendable, type: String? = nil)
    }

    /// A call of `method` on `path` (relative to the base URL; `:name` segments are filled from
    /// `parameters`, the other parameters become the query). Each parameter's
    /// ``ParameterValue/parameterText`` (a string, any number, a boolean, any
    /// `LosslessStringConvertible` that declares ``ParameterValue``) goes to ``parameters``,
    /// an array to ``listParameters``: `["page": 2, "ids": [1, 2], "q": "x"]`. A
    /// `[String: String]` passes as it is.
    public init(_ method: HTTPMethod, _ path: String, parameters: [String: any ParameterValue] = [:],
                headers: HTTPHeaders = HTTPHeaders(), body: Body? = nil, options: CallOptions = CallOptions()) {
        self.method = method
        self.path = path
        self.route = nil
        self.parameters = [:]
        self.headers = headers
        self.body = body
        self.options = options
        for (name, value) in parameters { setParameter(name, value) }
    }

    /// A call of the configured route `name` (its method and path pattern come from the config).
    public init(route name: String, parameters: [String: any ParameterValue] = [:], headers: HTTPHeaders = HTTPHeaders(),
                body: Body? = nil, options: CallOptions = CallOptions()) {
        self.init(.get, "", parameters: parameters, headers: headers, body: body, options: options)
        route = name
    }

    /// `GET path`.
    public static func get(_ path: String, parameters: [String: any ParameterValue] = [:]) -> Request {
        Request(.get, path, parameters: parameters)
    }

    /// `POST path` with `body`.
    public static func post(_ path: String, body: Body?) -> Request { Request(.post, path, body: body) }

    /// `PUT path` with `body`.
    public static func put(_ path: String, body: Body?) -> Request { Request(.put, path, body: body) }

    /// `DELETE path`.
    public static func delete(_ path: String) -> Request { Request(.delete, path) }
}

/// The options of one call: how it is carried out (retry, retry budget, circuit breaker,
/// redirects, timeouts, response size, where the body goes, progress and events), each laid
/// over the route's and then the client's policy. nil fields keep the route's setting, then
/// the client's. C's `gw_call_options` nested structs and Python's keyword arguments
/// (`gatewire.CallOptions`) carry the same fields.
public struct CallOptions: Sendable {
    /// The retry policy for this call, replacing the route's or the client's whole policy.
    public var retryPolicy: RetryPolicy?
    /// Retries after the first attempt for this call, replacing only ``RetryPolicy/maxRetries``
    /// of the policy the call uses: ``retryPolicy`` when set, else the route's, else the
    /// client's. Its status codes, methods, delays and jitter stay, so a route that retries
    /// only 502 after 0.2 s still does. nil keeps the count; otherwise 0...100
    /// (`CallLimits/maxRetries`, as the config's `retry.maxRetries`): any other count
    /// fails the call before anything is sent, with kind `invalidArgument` and the message
    /// `options.maxRetries: 150 is out of range (nil = the route's or client's policy, or
    /// 0...100 retries)`. The CLI's `--max-retries`, C's `gw_call_options.max_retries` and
    /// Python's `max_retries=` set this field.
    public var maxRetries: Int?
    /// The caller's test, asked once per failed attempt whether to retry (see ``RetryVerdict``).
    public var retryTest: RetryTest?
    /// Timeouts for this call, replacing the client's ``GatewayConfig/timeouts`` whole; nil
    /// keeps them. A value outside the ranges ``Timeouts`` gives fails the call before
    /// anything is sent, with kind `invalidArgument` and a message naming the field
    /// (`options.timeouts.deadline: 100000.0 is out of range (nil or infinity = no limit,
    /// or 0.001...86400 seconds)`).
    public var timeouts: Timeouts?
    /// The retry budget for this call (``RetryBudget/off`` for none); nil keeps the route's
    /// or the client's.
    public var retryBudget: RetryBudget?
    /// The circuit breaker for this call (``CircuitBreakerPolicy/off`` for none); nil keeps
    /// the route's or the client's.
    public var circuitBreaker: CircuitBreakerPolicy?
    /// The rate limit for this call (``RateLimitPolicy/off`` for none); nil keeps the route's
    /// or the client's.
    public var rateLimit: RateLimitPolicy?
    /// Which redirects this call follows and how (``RedirectPolicy``); nil keeps the route's
    /// or the client's.
    public var redirectPolicy: RedirectPolicy?
    /// The largest decoded response body this call accepts, in bytes (see
    /// `ResponseSizeLimit`; a larger one fails with kind `responseTooLarge`); nil keeps
    /// the route's or the client's (default 64 MiB). 1...2^62 (`CallLimits/maxResponseBytes`):
    /// another value fails the call before anything is sent, with kind `invalidArgument` and
    /// the message `options.maxResponseBytes: 0 is out of range 1...4611686018427387904`.
    public var maxResponseBytes: Int?
    /// How ``Request/listParameters`` are written for this call; nil keeps the config's
    /// `arrayParameters` (default ``ArrayParameterStyle/repeat``).
    public var arrayParameters: ArrayParameterStyle?
    /// Sees each attempt's upload and download progress (``ProgressHandler``); nil (the
    /// default) leaves libcurl's progress meter off.
    public var onProgress: ProgressHandler?
    /// Sees this call's ``CallEvent``s, after the client's event monitors; nil for none.
    public var onEvent: EventMonitor?
    /// The statuses this call accepts, within those the status gate accepts (any 2xx, a
    /// 1xx or 3xx a matching response descriptor lists: `ResponseMapper`): a response the
    /// gate accepts whose status is not in the set fails with kind `httpStatus`, as
    /// Alamofire's `validate(statusCode:)` fails a request. It only narrows the gate: a 4xx
    /// or 5xx fails whether listed or not (read it from the error's `response`). A refused
    /// status is final, not retried. nil (default): the gate alone. ``Request/validate(statusCode:)`` sets it.
    public var acceptableStatusCodes: StatusCodeSet?
    /// Where a `2xx` body goes instead of memory: a file or a chunk consumer (``BodySink``);
    /// nil (the default) keeps it in ``HTTPResponse/body``.
    public var bodySink: BodySink?

    /// Overrides; nil keeps the route's or the client's setting.
    public init(retryPolicy: RetryPolicy? = nil, maxRetries: Int? = nil, retryTest: RetryTest? = nil,
                timeouts: Timeouts? = nil, retryBudget: RetryBudget? = nil,
                circuitBreaker: CircuitBreakerPolicy? = nil, redirectPolicy: RedirectPolicy? = nil,
                maxResponseBytes: Int? = nil) {
        self.redirectPolicy = redirectPolicy
        self.retryPolicy = retryPolicy
        self.maxRetries = maxRetries
        self.retryTest = retryTest
        self.timeouts = timeouts
        self.retryBudget = retryBudget
        self.circuitBreaker = circuitBreaker
        self.maxResponseBytes = maxResponseBytes
    }

    /// The retry policy a call of `route` uses under these options: ``retryPolicy``, else
    /// `route`'s, else `client`'s, with ``maxRetries`` replaced when set. The one place this
    /// rule lives: calls, the C ABI and the CLI all resolve it here.
    ///
    /// - Parameters:
    ///   - route: the route's own policy, nil when the call has no route or the route sets none.
    ///   - client: the client's (the config's top-level) policy.
    package func retryPolicy(route: borrowing RetryPolicy?, client: borrowing RetryPolicy) -> RetryPolicy {
        // One copy, of the policy chosen (`??` would copy the route's into its operand too).
        var policy: RetryPolicy
        if let own = retryPolicy {
            policy = own
        } else if let route = copy route {
            policy = route
        } else {
            policy = copy client
        }
        if let maxRetries { policy.maxRetries = maxRetries }
        return policy
    }
}
