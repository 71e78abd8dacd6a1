/// How fast calls may go out to one host or route, and what a call over the limit does
/// (config key `rateLimit`, per client, route or call). The limit is GCRA's (the generic
/// cell rate algorithm of ATM networks, as redis-cell implements it): ``requests`` every
/// ``per`` seconds, evenly spaced, with up to ``burst`` more at once after a quiet time, so
/// that over any span of `t` seconds at most `t * requests / per + burst + 1` attempts go out.
///
/// - Every attempt takes a slot, retries included (each one reaches the backend).
/// - A call over the limit waits for its slot when ``wait`` is true and the wait ends before
///   the call's deadline: the slot is reserved, so waiting calls go out in the order they
///   came, and the wait shows in the attempt's ``TransferTimings/queued`` time. Otherwise it
///   fails at once with kind ``ErrorKind/rateLimited``, nothing sent, its
///   ``GatewireError/retryAfter`` saying when a slot frees.
/// - A `429` or `503` with `Retry-After` (RFC 9110 section 10.2.3) pauses the limit's host or
///   route until then, at most ``maxPause`` seconds (``pauseOnRetryAfter``): calls wait for
///   the pause's end, or fail as above. Without ``requests`` the policy keeps only the pauses.
///
/// One limit per ``scope`` key (a host and policy value, or a route name and policy value),
/// shared by the client's calls; in process, or by every client of a `sharedState` store.
/// Off by default (``off``).
public struct RateLimitPolicy: Sendable, Hashable {
    /// What one limit counts.
    public enum Scope: String, Sendable, Hashable, CaseIterable {
        /// Every call to the host (`host[:port]`), whatever its route (the default).
        case host
        /// Every call of the route (a call without a route counts under its host).
        case route
    }

    /// Whether the limit applies. ``off`` is false.
    public var isEnabled: Bool
    /// Attempts allowed every ``per`` seconds: 1...1000000, or nil for pauses only.
    public var requests: Int?
    /// The span ``requests`` are counted over, in seconds (0.001...86400, default 1).
    public var per: Double
    /// Attempts allowed at once beyond the even spacing (GCRA's burst tolerance, redis-cell's
    /// `max_burst`): 0...1000000, default 0.
    public var burst: Int
    /// What one limit counts (default ``Scope/host``).
    public var scope: Scope
    /// Whether a call over the limit waits for its slot (default true) or fails at once. A
    /// shared limit's call that finds no leased slot waits for the lease's reply either way,
    /// at most the store's `timeout` (``SharedStateSettings/timeout``).
    public var wait: Bool
    /// Whether a `429` or `503` with `Retry-After` pauses the host or route (default true).
    public var pauseOnRetryAfter: Bool
    /// The longest pause a `Retry-After` starts, in seconds (0...86400, default 60): a
    /// longer one is cut to it.
    public var maxPause: Double

    /// No limit and no pauses.
    public static let off = RateLimitPolicy(isEnabled: false)

    /// A limit of `requests` every `per` seconds; every other parameter has the documented default.
    public init(requests: Int?, per: Double = 1, burst: Int = 0, scope: Scope = .host, wait: Bool = true,
                pauseOnRetryAfter: Bool = true, maxPause: Double = 60) {
        self.init(isEnabled: true, requests: requests, per: per, burst: burst, scope: scope, wait: wait,
                  pauseOnRetryAfter: pauseOnRetryAfter, maxPause: maxPause)
    }

    private init(isEnabled: Bool, requests: Int? = nil, per: Double = 1, burst: Int = 0, scope: Scope = .host,
                 wait: Bool = true, pauseOnRetryAfter: Bool = true, maxPause: Double = 60) {
        self.isEnabled = isEnabled
        self.requests = requests
        self.per = per
        self.burst = burst
        self.scope = scope
        self.wait = wait
        self.pauseOnRetryAfter = pauseOnRetryAfter
        self.maxPause = maxPause
    }

    /// GCRA's emission interval: the seconds between two evenly spaced attempts; nil without a rate.
    var interval: Double? { requests.map { per / Double($0) } }

    /// GCRA's burst tolerance, in seconds: how far ahead of the even spacing an attempt may go.
    var tolerance: Double { Double(burst) * (interval ?? 0) }

    /// The range of ``burst``, 0...1000000; ``requests`` takes 1 up to the same bound.
    static let countRange: ClosedRange<Int64> = 0...1_000_000
}
