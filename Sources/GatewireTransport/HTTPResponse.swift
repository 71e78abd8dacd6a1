import GatewireBase

/// A response: what a server answered to one attempt (status, header fields and the decoded
/// body bytes). A call's result carries its final one (`Response.http`).
///
/// A value with copy-on-write storage: copying it (into an attempt's report, the plugins'
/// arguments, a result or an error) retains one reference instead of each of its fields;
/// changing a copy gives that copy its own storage first.
public struct HTTPResponse: Sendable {
    /// The status code (of the final response when the call followed redirects).
    public var status: Int {
        get { storage.status }
        set { unique().status = newValue }
    }
    /// The header fields of the final response, in order.
    public var headers: HTTPHeaders {
        get { storage.headers }
        _modify { yield &unique().headers }
    }
    /// The body, after `Content-Encoding` decoding.
    public var body: [UInt8] {
        get { storage.body }
        _modify { yield &unique().body }
    }
    /// The URL this response came from (after redirects the call followed, the last hop's).
    public var effectiveURL: String {
        get { storage.effectiveURL }
        set { unique().effectiveURL = newValue }
    }
    /// Where a redirect points: its `Location` resolved against ``effectiveURL`` by libcurl
    /// (`CURLINFO_REDIRECT_URL`; libcurl itself never follows), or nil for a response
    /// without one. ``RedirectPolicy`` decides whether the call goes there.
    public var redirectURL: String? {
        get { storage.redirectURL }
        set { unique().redirectURL = newValue }
    }
    /// The HTTP version libcurl used: "1.0", "1.1", "2" or "3".
    public var httpVersion: String {
        get { storage.httpVersion }
        set { unique().httpVersion = newValue }
    }

    private var storage: Storage

    /// A response as libcurl delivered it.
    public init(status: Int, headers: HTTPHeaders, body: [UInt8], effectiveURL: String, httpVersion: String,
                redirectURL: String? = nil) {
        storage = Storage(status: status, headers: headers, body: body, effectiveURL: effectiveURL,
                          httpVersion: httpVersion, redirectURL: redirectURL)
    }

    /// The body as UTF-8 text (invalid bytes become U+FFFD).
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The storage, made this value's own before a change.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    // @unchecked: a Storage shared by several values is never changed (`unique()` copies it
    // first), so only a value's sole owner writes it.
    private final class Storage: @unchecked Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        var effectiveURL: String
        var httpVersion: String
        var redirectURL: String?

        init(status: Int, headers: HTTPHeaders, body: [UInt8], effectiveURL: String, httpVersion: String,
             redirectURL: String?) {
            self.status = status
            self.headers = headers
            self.body = body
            self.effectiveURL = effectiveURL
            self.httpVersion = httpVersion
            self.redirectURL = redirectURL
        }

        func copy() -> Storage {
            Storage(status: status, headers: headers, body: body, effectiveURL: effectiveURL, httpVersion: httpVersion,
                    redirectURL: redirectURL)
        }
    }
}

/// Where the time of one attempt went, from libcurl's `CURLINFO_*_TIME_T` counters, in
/// seconds; 0 when the phase did not happen (no TLS on `http`, a reused connection skips DNS
/// and connect). ``total`` runs from when the attempt was handed to libcurl, the wait for a
/// connection (``queued``) included; the phases (``dns`` to ``firstByte``) from when that
/// wait ended.
public struct TransferTimings: Sendable, Equatable {
    /// Seconds the attempt waited for a connection before libcurl started it: queued behind
    /// ``ConnectionLimits``, or waiting for an HTTP/2 connection to multiplex on
    /// (`CURLOPT_PIPEWAIT`). libcurl 7.88 has no `CURLINFO_QUEUE_TIME_T` (8.6): the event loop
    /// measures the time from handing the transfer over to libcurl's first
    /// `CURLOPT_PREREQFUNCTION` call (about to send), less `CURLINFO_PRETRANSFER_TIME_T` (the
    /// DNS, connect and TLS time after the wait). 0 for an attempt that failed before sending
    /// (a refused connection), except one stopped by the call (deadline, cancel) before
    /// sending: its whole time since the hand-over, queued or connecting.
    public var queued: Double = 0
    /// Name resolution finished.
    public var dns: Double = 0
    /// TCP connection established.
    public var connect: Double = 0
    /// TLS handshake finished (`APPCONNECT`).
    public var tls: Double = 0
    /// First response byte received (time to first byte, `STARTTRANSFER`).
    public var firstByte: Double = 0
    /// Whole attempt.
    public var total: Double = 0

    /// All phases 0.
    public init() {}

    /// Adds `other`'s phases to these: the timings of a chain of redirect hops are the sums
    /// of its transfers' (as libcurl sums them when it follows redirects itself).
    package mutating func add(_ other: TransferTimings) {
        dns += other.dns
        connect += other.connect
        tls += other.tls
        firstByte += other.firstByte
        total += other.total
        queued += other.queued
    }
}

/// A failure of the transport itself (no HTTP response), with libcurl's code and message.
package struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure (connect, dns, tls, timeout, network, cancelled, invalidArgument).
    package var kind: ErrorKind
    /// libcurl's `CURLcode` (0 when the failure did not come from libcurl).
    package var curlCode: Int32
    /// libcurl's detailed message (`CURLOPT_ERRORBUFFER`), or a description.
    package var message: String

    /// A failure of `kind`; `curlCode` 0 when it did not come from libcurl.
    package init(kind: ErrorKind, curlCode: Int32, message: String) {
        self.kind = kind
        self.curlCode = curlCode
        self.message = message
    }

    package var description: String { "\(kind): \(message) (curl \(curlCode))" }
}

/// How one transfer ended: a response or a transport error, its timings and what was sent.
package struct TransferResult: Sendable {
    /// The response, or nil when the transfer failed before a complete response.
    package var response: HTTPResponse?
    /// The transport failure, or nil when a response arrived.
    package var error: TransportError?
    /// The attempt's timings.
    package var timings: TransferTimings
    /// Bytes of request headers and body written to the connection
    /// (`CURLINFO_REQUEST_SIZE` + `CURLINFO_SIZE_UPLOAD_T`).
    package var bytesSent: Int64
    /// Bytes of response body received, after decoding.
    package var bytesReceived: Int64
    /// Whether the request may have reached the server: libcurl began sending it
    /// (`CURLINFO_PRETRANSFER_TIME_T` > 0, on a new or a reused connection) or wrote some of
    /// it. A failure with nothing sent (DNS, refused, connect timeout) is safe to retry for
    /// every method; one after it only as the retry policy's method rule allows.
    package var requestSent: Bool
}
