/// An HTTP request method (RFC 9110 section 9).
public enum HTTPMethod: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case get = "GET", head = "HEAD", post = "POST", put = "PUT", patch = "PATCH"
    case delete = "DELETE", options = "OPTIONS", trace = "TRACE"

    /// Parses a method name; case-insensitive ("get" is GET). Nil for an unknown name.
    public init?(name: String) {
        self.init(rawValue: name.uppercased())
    }

    /// Idempotent per RFC 9110 section 9.2.2: GET, HEAD, OPTIONS, TRACE, PUT, DELETE.
    /// These are the methods retried by default (the urllib3 and Alamofire set).
    public var isIdempotent: Bool {
        switch self {
        case .get, .head, .options, .trace, .put, .delete: true
        case .post, .patch: false
        }
    }

    public var description: String { rawValue }

    /// Why a request with this method cannot carry a body (`hasBody`), or nil when it can. Only HEAD refuses one: its response has no content to describe a body's effect,
    /// and libcurl would either drop the body or send another method (RFC 9110 section 9.3.2).
    /// Every other method may carry a body (for GET, DELETE and OPTIONS it has no defined
    /// meaning, section 9.3, but it goes out as asked, with that method).
    package func bodyProblem(hasBody: Bool) -> String? {
        self == .head && hasBody ? "a HEAD request cannot have a body (RFC 9110 section 9.3.2)" : nil
    }
}
