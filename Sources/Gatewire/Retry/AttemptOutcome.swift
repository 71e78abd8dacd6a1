/// How one attempt ended, as the retry decision sees it.
///
/// Built by the operation after each attempt from the transport's result (libcurl's error
/// code and counters); also handed to the caller's ``RetryTest``.
public struct AttemptOutcome: Sendable {
    /// Which attempt this was, 1-based (1 is the first send, 2 the first retry).
    public var attempt: Int
    /// The HTTP status received, or 0 when no response arrived.
    public var status: Int
    /// Why the attempt failed without a usable response (a transport kind such as
    /// ``ErrorKind/connect``, or ``ErrorKind/cancelled``...); nil when a response arrived.
    public var errorKind: ErrorKind?
    /// The response's header fields in received order (empty without a response).
    public var headers: HTTPHeaders
    /// Seconds since the call started (its first attempt), at the end of this attempt.
    public var elapsed: Double
    /// Whether any byte of the request reached the wire. A failure before that (no
    /// connection, name not resolved, connect timeout) is safe to retry for every method,
    /// POST included, because the server cannot have seen the request.
    public var requestSent: Bool

    /// An outcome; `requestSent` defaults to true for a response (the server answered it)
    /// and must be given for transport failures.
    public init(
        attempt: Int,
        status: Int = 0,
        errorKind: ErrorKind? = nil,
        headers: HTTPHeaders = HTTPHeaders(),
        elapsed: Double = 0,
        requestSent: Bool = true
    ) {
        self.attempt = attempt
        self.status = status
        self.errorKind = errorKind
        self.headers = headers
        self.elapsed = elapsed
        self.requestSent = requestSent
    }

    /// The value of the first header named `name` (case-insensitive, RFC 9110 section 5.1);
    /// nil when absent.
    public func header(_ name: String) -> String? { headers[name] }
}
