/// How many connections a client's event loop opens and how it shares them: the gateway
/// config's `maxConnectionsPerHost`, `maxConnections` and `http2.maxConcurrentStreams`, kept
/// by the loop's `AdmissionQueue` (which hands libcurl only the calls that can run) and set
/// on its libcurl multi handle too, once, when the client is made.
///
/// A call that would go beyond a limit waits in the loop's queue until a call ends; it is not
/// refused. Each origin's calls wait first in first out, and the origins that wait take
/// turns at the places that free up (round robin), so a burst of calls to one origin does
/// not hold back the calls to another. The wait counts against the call's deadline and its attempt
/// timeout (a call still waiting when its attempt timeout passes fails as `connect`, nothing
/// sent, so any method may retry it), and ``TransferTimings/queued`` says how long it was.
///
/// Defaults come from aiohttp's `TCPConnector` (`limit=100`, `limit_per_host=0`): like
/// Gatewire it runs many calls on one event loop, and it is the Python peer the bench
/// measures. OkHttp's Dispatcher allows 64 requests in flight and 5 per host, and queues the
/// rest before any connection is chosen; 5 per host would cut a single-host HTTP/1.1 gateway
/// to 5 calls at a time. urllib3's pool `maxsize` (1 by default) only bounds how many idle
/// connections are kept, not how many are open (`block=False`), so it is no limit at all.
public struct ConnectionLimits: Sendable, Equatable {
    /// Connections open to one host (scheme, name and port) at once
    /// (`CURLMOPT_MAX_HOST_CONNECTIONS`); 0 (the default) sets no limit of its own, so
    /// ``maxConnections`` bounds it.
    public var maxConnectionsPerHost = 0
    /// Connections open at once across all hosts (`CURLMOPT_MAX_TOTAL_CONNECTIONS`); 0 for no
    /// limit. Default 100. When it is reached, libcurl closes an idle connection to make room
    /// before a call waits. It is also how many idle connections are kept open for later calls
    /// (100, or ``maxConnectionsPerHost`` if more, when it is 0).
    public var maxConnections = 100
    /// Streams (calls) one HTTP/2 connection carries at once, at most
    /// (`CURLMOPT_MAX_CONCURRENT_STREAMS`); the server's own `SETTINGS_MAX_CONCURRENT_STREAMS`
    /// bounds it too, but libcurl 7.88 does not say what that is, so the queue hands libcurl
    /// this many per connection: keep it at most the server's. Default 100, libcurl's, which
    /// is also the least a server should allow (RFC 9113 section 6.5.2).
    public var maxConcurrentStreams = 100

    /// How many idle connections the loop keeps open for later calls (its libcurl multi
    /// handle's `CURLMOPT_MAXCONNECTS`): ``maxConnections``, or, with no total limit, 100 or
    /// ``maxConnectionsPerHost`` if that is more. libcurl's own size, four per transfer it has
    /// at the moment, would close idle connections whenever fewer calls run than connections
    /// are open, since the loop's queue hands libcurl only the transfers that run: a lone
    /// call after a burst would cost the next burst new connections (and TLS handshakes).
    package var idleConnections: Int {
        maxConnections > 0 ? maxConnections : max(ConnectionLimits().maxConnections, maxConnectionsPerHost)
    }

    /// The accepted connection counts: 0 (no limit) to 1,000,000.
    package static let connectionRange = 0...1_000_000
    /// The accepted stream counts: 1 to 2^31 - 1 (libcurl's range).
    package static let streamRange = 1...Int(Int32.max)

    /// The defaults above.
    public init() {}
}
