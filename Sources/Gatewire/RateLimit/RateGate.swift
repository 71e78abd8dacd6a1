/// A call's rate limit: the limiter of its host or route (``RateLimitKey``) and the rules a
/// call applies around it: how long it may wait, and which responses pause the limit. Made
/// once per call when its ``RateLimitPolicy`` is on. Event-loop thread only.
struct RateGate {
    let limiter: any RateLimiter
    let key: RateLimitKey

    /// Asks for the attempt's slot at `now` (``MonotonicClock`` seconds): `remaining` is the
    /// seconds left before the call's deadline (nil: none), which bounds the wait; a policy
    /// with `wait` false allows none.
    func admit(now: Double, remaining: Double?) -> RateAdmission {
        limiter.admit(now: now, maxWait: key.policy.wait ? remaining ?? .infinity : 0)
    }

    /// Reads an ended attempt's response: a `429` or `503` with a `Retry-After` (RFC 9110
    /// section 10.2.3: delay-seconds or an HTTP-date, read against `wallNow`, Unix seconds)
    /// pauses the limit for that long, at most the policy's `maxPause`.
    func observe(_ response: HTTPResponse?, now: Double, wallNow: Double) {
        guard key.policy.pauseOnRetryAfter, let response, response.status == 429 || response.status == 503,
              let value = response.headers["Retry-After"],
              let seconds = RetryAfter.delay(value, now: wallNow), seconds > 0 else { return }
        limiter.pause(seconds: min(seconds, key.policy.maxPause), now: now)
    }
}
