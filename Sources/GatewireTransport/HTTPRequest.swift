import GatewireBase

/// One attempt's request, exactly as it goes on the wire.
///
/// Built fresh for every attempt by the call from its ``Request``; plugins adapt it in
/// ``Plugin/prepare(_:context:)`` before it is handed to the transport.
public struct HTTPRequest: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The absolute URL (`http` or `https`), percent-encoded.
    public var url: String
    /// Header fields to send in addition to those libcurl adds (Host, Content-Length,
    /// Accept-Encoding when decoding is on).
    public var headers: HTTPHeaders
    /// The body bytes, or nil for none; nil when ``parts`` is the body (a request with both
    /// fails with `invalidArgument` before anything is sent).
    public var body: [UInt8]?
    /// A `multipart/form-data` body of these parts in order, or nil. libcurl builds its bytes
    /// as they are sent: the boundary and the `Content-Type: multipart/form-data; boundary=...`
    /// field are chosen then, and file parts are read from disk then, so no plugin sees the
    /// body's bytes (a signing plugin signs the parts, or sends an unsigned payload as AWS
    /// SigV4's `UNSIGNED-PAYLOAD`). A plugin may change, add or remove parts.
    public var parts: [MultipartPart]?

    /// Whether a body goes out: ``body`` or ``parts``.
    public var hasBody: Bool { body != nil || parts != nil }

    /// A request for `url` (absolute, percent-encoded).
    public init(method: HTTPMethod, url: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// A request for `url` with a `multipart/form-data` body of `parts`.
    public init(method: HTTPMethod, url: String, headers: HTTPHeaders = HTTPHeaders(), parts: [MultipartPart]) {
        self.init(method: method, url: url, headers: headers)
        self.parts = parts
    }
}

/// Transport settings of one attempt. Times are in seconds.
package struct TransferOptions: Sendable, Equatable {
    /// Longest wait for the TCP (and TLS) connection; default 10 s.
    package var connectTimeout: Double = 10
    /// Longest time for the whole attempt, connect included; nil for no limit. Default 30 s.
    package var timeout: Double? = 30
    /// Verify the server's TLS certificate and host name (default true; turn off only for tests).
    package var verifyTLS: Bool = true
    /// A PEM file of the CA certificates to trust instead of the system's bundle
    /// (`CURLOPT_CAINFO`), for a gateway whose certificate comes from a private CA; nil (the
    /// default) trusts the system's CAs. Verification stays as ``verifyTLS`` says.
    package var caFile: String?
    /// The proxy of every attempt (`CURLOPT_PROXY`): `http://[user:password@]host:port`, or
    /// `https://`, `socks4://`, `socks4a://`, `socks5://`, `socks5h://` (RFC 9110 section
    /// 3.7: the request line then carries the absolute URL). `""` uses no proxy and ignores
    /// the environment. nil (the default) leaves it to libcurl's environment variables:
    /// `http_proxy` (lower case only) for http URLs, `https_proxy` or `HTTPS_PROXY` for https,
    /// `all_proxy` or `ALL_PROXY` for both, with `no_proxy` or `NO_PROXY` exceptions.
    package var proxy: String?
    /// Hosts reached without the proxy (`CURLOPT_NOPROXY`): comma-separated host names (a
    /// name also covers its subdomains), IP addresses or CIDR ranges, or `*` for every host;
    /// it replaces `NO_PROXY`. nil (the default): the environment's `NO_PROXY`.
    package var noProxy: String?
    /// Ask for and decode every `Content-Encoding` libcurl supports (gzip, deflate, br, zstd).
    package var acceptEncoding: Bool = true
    /// Open a new connection instead of reusing a kept-alive one (`CURLOPT_FRESH_CONNECT`).
    /// On a reused connection that dies before any response byte, libcurl would send the
    /// request again by itself; the transfer refuses that re-send (it would be an attempt the
    /// history does not show) and fails as `network` after sending, which a request that must
    /// not be retried after sending (a POST without `Idempotency-Key`) cannot recover from,
    /// so such a request takes a new connection. Default false.
    package var freshConnection: Bool = false
    /// The largest decoded response body accepted, in bytes: the transfer is aborted at the
    /// first byte past it, and a `Content-Length` above it is refused before the body is
    /// read (kind `responseTooLarge`). Default 64 MiB (`ResponseSizeLimit`).
    package var maxResponseBytes: Int = ResponseSizeLimit.defaultBytes
    /// Speak HTTP/2 from the first byte to `http://` URLs (h2c "with prior knowledge", RFC
    /// 9113 section 3.3; libcurl's `CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE`), for a cleartext
    /// gateway known to speak it: its calls then share one multiplexed connection as over
    /// TLS. A server that speaks only HTTP/1.1 fails such a call. `https://` URLs are not
    /// affected: TLS negotiates the version (ALPN, HTTP/2 when the server offers it). Default false.
    package var http2PriorKnowledge: Bool = false

    /// The defaults above.
    package init() {}
}
