/// What the ``ResponseMapper`` needs to know about a received response.
public struct MappableResponse: Sendable {
    /// The request's method.
    public var method: HTTPMethod
    /// The request path relative to the base URL, as sent (percent-encoded; may carry `?query`).
    public var path: String
    /// The HTTP status code.
    public var status: Int
    /// The `Content-Type` header's value, if any (e.g. `application/json; charset=utf-8`).
    public var contentType: String?
    /// The body bytes as received.
    public var body: [UInt8]

    /// A response to map; `path` is relative to the base URL, as sent.
    public init(method: HTTPMethod, path: String, status: Int, contentType: String?, body: [UInt8]) {
        self.method = method
        self.path = path
        self.status = status
        self.contentType = contentType
        self.body = body
    }
}
