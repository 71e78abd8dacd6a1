/// One rate limit (``RateLimitPolicy``) of one host or route, wherever its state lives: in
/// process (``LocalRateLimiter``) or shared by a fleet. What a call asks before each attempt
/// and tells after it. Event-loop thread only; times are ``MonotonicClock`` seconds.
protocol RateLimiter: AnyObject {
    /// The policy whose rules the limiter applies.
    var policy: RateLimitPolicy { get }

    /// Whether an attempt may go out at `now`, answered at once from what the limiter knows
    /// (never waiting for a server); `maxWait` is how long the call may wait (0: not at all).
    func admit(now: Double, maxWait: Double) -> RateAdmission

    /// A response asked the host or route to pause for `seconds` from `now` (`Retry-After`,
    /// already cut to the policy's ``RateLimitPolicy/maxPause``): attempts wait until then.
    func pause(seconds: Double, now: Double)

    /// An attempt that ``admit(now:maxWait:)`` made wait for a reserved slot ended before
    /// its wait did (cancelled, its deadline, a closing loop): the slot goes back to the limit
    /// at `now`, so that the next attempt may take it instead of waiting one slot longer.
    func returnSlot(now: Double)

    /// Whether the limiter's decisions are made in process because its shared store is
    /// failing (``StoreHealth/decidesLocally``); always false for an in-process limiter.
    var decidesLocally: Bool { get }
}

extension RateLimiter {
    var decidesLocally: Bool { false }
}

/// A ``RateLimiter``'s answer for one attempt.
enum RateAdmission: Equatable {
    /// Send now.
    case admitted
    /// Wait `seconds`. `reserved`: the slot at its end is this attempt's (send then without
    /// asking again); otherwise the wait is a pause's, after which the attempt asks again.
    case wait(Double, reserved: Bool)
    /// Over the limit, and the wait was not allowed: nothing is taken; a slot frees (or the
    /// pause ends, `paused`) in `retryAfter` seconds.
    case refused(retryAfter: Double, paused: Bool)
}

/// Where a client's rate limits keep their state. The client holds one, in its
/// ``ResilienceState``. Event-loop thread only.
protocol RateLimitStore: AnyObject {
    /// The limiter of `key`, created on first use and the same object after.
    func limiter(_ key: RateLimitKey) -> any RateLimiter
}

/// What a limit counts under: a host (`host[:port]`, lower-cased) or a route's name, and the
/// limit's values (`requests`, `per`, `burst`: two limits for one host are two limits, as two
/// circuit breakers are). Calls that differ only in what they do over the limit (`wait`,
/// the pause's rules) share one: equality and hashing read the limit's values alone.
struct RateLimitKey: Hashable {
    /// `host` or `route` (a call without a route counts under its host).
    let scope: RateLimitPolicy.Scope
    /// The host or the route's name.
    let name: String
    let policy: RateLimitPolicy

    /// The key of a call to `url` (absolute) of route `route` (nil: none) under `policy`.
    init(url: String, route: String?, policy: RateLimitPolicy) {
        if policy.scope == .route, let route {
            scope = .route
            name = route
        } else {
            scope = .host
            name = ResilienceKey.host(of: url)
        }
        self.policy = policy
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.scope == rhs.scope && lhs.name == rhs.name && lhs.policy.requests == rhs.policy.requests
            && lhs.policy.per == rhs.policy.per && lhs.policy.burst == rhs.policy.burst
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(scope)
        hasher.combine(name)
        hasher.combine(policy.requests)
        hasher.combine(policy.per)
        hasher.combine(policy.burst)
    }

    /// The limit as messages name it: `host 127.0.0.1:8080` or `route "user"`.
    var description: String { scope == .host ? "host \(name)" : "route \"\(name)\"" }
}
