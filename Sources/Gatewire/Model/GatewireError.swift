/// The result of a failed call: why (``kind``), the final status (0 for none), the last
/// response (``response``), the error objects the error descriptors mapped, and the attempt
/// history.
///
/// Global failure observers receive the same value, once per failed call, before the call's
/// own completion. Messages never contain header values (credentials stay out of errors).
public struct GatewireError: Error, Sendable, CustomStringConvertible {
    /// Why the call failed.
    public var kind: ErrorKind
    /// The final HTTP status, or 0 when no response arrived ("no connection").
    public var status: Int
    /// A sentence for people: what failed and where.
    public var message: String
    /// The call's method.
    public var method: HTTPMethod
    /// The call's path relative to the base URL (or its route pattern when it could not be
    /// built), with the values of secret query parameters redacted (`api_key=<redacted>`).
    public var path: String
    /// The objects the error descriptors mapped from the failure's body (a JSON array), or nil.
    public var errorObjects: JSONValue?
    /// The final response when there was one (its headers and body bytes).
    public var response: HTTPResponse?
    /// Every attempt, oldest first (empty when the call failed before sending anything).
    public var attempts: [Attempt]
    /// For kind ``ErrorKind/rateLimited``: the seconds until the limit frees a slot, or until
    /// the `Retry-After` pause of its host or route ends; nil for every other failure.
    public var retryAfter: Double?
    /// Whether a decision of the call's circuit breaker or rate limit shared through the
    /// config's `sharedState` (an attempt's admission, or the recording of its outcome) was
    /// made in process because the store was failing (an error, or no answer within its
    /// `timeout`; docs/fleet.md "When Redis fails"): the call was still limited and guarded,
    /// by this client's own counts only. Always false without `sharedState`.
    public var sharedStateLocal = false

    /// A failure; `status` 0 means no response arrived.
    public init(kind: ErrorKind, status: Int = 0, message: String, method: HTTPMethod, path: String,
                errorObjects: JSONValue? = nil, response: HTTPResponse? = nil, attempts: [Attempt] = [],
                retryAfter: Double? = nil) {
        self.kind = kind
        self.status = status
        self.message = message
        self.method = method
        self.path = path
        self.errorObjects = errorObjects
        self.response = response
        self.attempts = attempts
        self.retryAfter = retryAfter
    }

    /// The first bytes of the failure's body as text (at most 512 bytes), e.g. the title of
    /// a proxy's HTML error page; empty without a response.
    public var bodyPreview: String {
        guard let body = response?.body else { return "" }
        return String(decoding: body.prefix(512), as: UTF8.self)
    }

    public var description: String {
        let status = status == 0 ? "no response" : "status \(status)"
        return "\(kind) (\(status)) for \(method) \(path): \(message)"
    }

    /// The error as a JSON object: `{"kind", "status", "message", "method", "path",
    /// "error_objects", "attempts"}`, `"retry_after"` (seconds) for kind `rate_limited`, and
    /// `"shared_state_local": true` when ``sharedStateLocal``.
    public var json: JSONValue {
        let object = JSONValue.object()
        object.set("kind", .string(kind.name))
        object.set("status", .integer(Int64(status)))
        object.set("message", .string(message))
        object.set("method", .string(method.rawValue))
        object.set("path", .string(path))
        object.set("error_objects", errorObjects ?? .null())
        object.set("attempts", attempts.json)
        if let retryAfter { object.set("retry_after", .number(retryAfter)) }
        if sharedStateLocal { object.set("shared_state_local", .bool(true)) }
        return object
    }
}
