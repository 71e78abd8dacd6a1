/// A rate limit kept in process: GCRA's one value (``GCRA``) and the end of the current
/// `Retry-After` pause, for this client's calls only. Event-loop thread only; times are
/// ``MonotonicClock`` seconds.
final class LocalRateLimiter: RateLimiter {
    let policy: RateLimitPolicy
    /// GCRA's theoretical arrival time (0: never used).
    private(set) var tat = 0.0
    /// When the pause ends (0: none).
    private(set) var pausedUntil = 0.0

    init(policy: RateLimitPolicy) { self.policy = policy }

    func admit(now: Double, maxWait: Double) -> RateAdmission {
        if pausedUntil > now {
            let left = pausedUntil - now
            return left <= maxWait ? .wait(left, reserved: false) : .refused(retryAfter: left, paused: true)
        }
        guard let interval = policy.interval else { return .admitted }
        switch GCRA.decide(tat: tat, now: now, interval: interval, tolerance: policy.tolerance, maxWait: maxWait) {
        case .admit(let next):
            tat = next
            return .admitted
        case .wait(let seconds, let next):
            tat = next
            return .wait(seconds, reserved: true)
        case .refuse(let retryAfter):
            return .refused(retryAfter: retryAfter, paused: false)
        }
    }

    func pause(seconds: Double, now: Double) {
        pausedUntil = max(pausedUntil, now + seconds)
    }

    func returnSlot(now: Double) {
        guard let interval = policy.interval else { return }
        // GCRA's bound counts the slots taken: moving the TAT back one interval (never before
        // now, as a TAT in the past means a full burst) frees exactly the slot not used.
        if tat > now { tat = max(now, tat - interval) }
    }
}

/// The in-process store (the default): each limit counts only this client's calls.
/// Event-loop thread only.
final class LocalRateLimitStore: RateLimitStore {
    private var limiters: [RateLimitKey: LocalRateLimiter] = [:]

    func limiter(_ key: RateLimitKey) -> any RateLimiter {
        if let limiter = limiters[key] { return limiter }
        let limiter = LocalRateLimiter(policy: key.policy)
        limiters[key] = limiter
        return limiter
    }
}
