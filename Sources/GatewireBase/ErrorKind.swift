/// Why a call failed. The same kinds, with the same numbers, are the C ABI's `GW_KIND_*`
/// constants and the Python binding's `ErrorKind`.
///
/// Transport kinds (`connect`, `dns`, `tls`, `timeout`, `network`, `protocol`) come with status 0:
/// no HTTP response was received.
public enum ErrorKind: Int32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// No connection could be made: refused, unreachable, or a timeout passed before the
    /// request began to go out.
    case connect = 1
    /// The host name could not be resolved.
    case dns = 2
    /// TLS handshake or certificate verification failed.
    case tls = 3
    /// The attempt's timeout passed once its request had begun to go out, on a new or a
    /// kept-alive connection (libcurl's `CURLINFO_PRETRANSFER_TIME_T`, or bytes written): the
    /// server may have seen the request.
    case timeout = 4
    /// The connection failed mid-exchange: reset, send or receive error, empty or partial reply.
    case network = 5
    /// A response arrived whose status the descriptors do not accept (every 4xx and 5xx).
    case httpStatus = 6
    /// The body could not be parsed or mapped.
    case mapping = 7
    /// The caller cancelled the call.
    case cancelled = 8
    /// The call's overall deadline passed (across all attempts and delays).
    case deadline = 9
    /// The call could not be built: unknown route, missing parameter, bad URL or body.
    case invalidArgument = 10
    /// A plugin refused or failed to prepare the request.
    case plugin = 11
    /// Authentication failed for good: the credential could not be refreshed after a 401.
    case auth = 12
    /// The host's circuit breaker is open (too many recent failures): the call failed without
    /// sending (status 0), or the breaker refused a retry (the last attempt's status).
    case circuitOpen = 13
    /// The server's reply broke HTTP: not an HTTP response (HTTP/0.9 or garbage), a malformed
    /// status line or header section, or framing libcurl rejects. Status 0.
    case protocolViolation = 14
    /// The response body grew past the call's `maxResponseBytes` (decoded size); the transfer
    /// was aborted when it crossed the limit.
    case responseTooLarge = 15
    /// A redirect the call's ``RedirectPolicy`` does not follow, whose status no response
    /// descriptor accepts: too many hops, a downgrade from https to http, a body that would be
    /// re-sent to another origin, another origin under `sameOrigin`, or any redirect when
    /// following is off. The status and response are the redirect's.
    case redirect = 16
    /// The host's or route's rate limit (``RateLimitPolicy``) refused the attempt: the wait
    /// for its slot, or for the end of a `Retry-After` pause, was not allowed (`wait` false)
    /// or would pass the call's deadline. Nothing (more) was sent; ``GatewireError/retryAfter``
    /// says when a slot frees. Status 0, or the last attempt's when a retry was refused.
    case rateLimited = 17

    /// The snake_case name used in JSON, the CLI and Python, e.g. `http_status`.
    package var name: String { staticName.description }

    /// ``name`` in static storage (NUL-terminated), for C callers that keep the pointer
    /// (`gw_result_error_kind_name`). The one place each kind's name is written.
    package var staticName: StaticString {
        switch self {
        case .connect: "connect"
        case .dns: "dns"
        case .tls: "tls"
        case .timeout: "timeout"
        case .network: "network"
        case .httpStatus: "http_status"
        case .mapping: "mapping"
        case .cancelled: "cancelled"
        case .deadline: "deadline"
        case .invalidArgument: "invalid_argument"
        case .plugin: "plugin"
        case .auth: "auth"
        case .circuitOpen: "circuit_open"
        case .protocolViolation: "protocol"
        case .responseTooLarge: "response_too_large"
        case .redirect: "redirect"
        case .rateLimited: "rate_limited"
        }
    }

    /// Whether this kind means no HTTP response was received (status 0).
    public var isTransport: Bool { [.connect, .dns, .tls, .timeout, .network, .protocolViolation].contains(self) }

    public var description: String { name }
}
