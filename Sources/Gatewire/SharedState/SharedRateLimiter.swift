/// One rate limit shared by a fleet through Redis (``RateLimitScript`` has the rules), with
/// leases as Doorman's (YouTube's global rate limiter): the client leases a few slots of the
/// limit at a time, sized from its recent rate, and admits its calls locally within the lease,
/// so that a call rarely waits for Redis and Redis sees a fraction of an operation per call.
/// Event-loop thread only; times are ``MonotonicClock`` seconds (a time Redis gives is a
/// duration from its reply, so clocks never meet).
///
/// - **Leased slots**: each admits one attempt, from when the lease says (at once, or after
///   the wait Redis reserved them for) until ``leaseDuration`` after it; a slot left then is
///   given back (`return`). When the slots run low the client asks for more before they run out.
/// - **No slot**: the client asks for a lease (one request in flight) and the call waits for
///   the reply, at most the store's `timeout`, then asks again. A lease refused (no slot before
///   the call could wait) tells when a slot frees: calls that cannot wait that long fail until then.
/// - **Pauses**: a `Retry-After` this client sees goes to Redis (`pause`), and every lease
///   reply says whether the limit is paused, so each client learns a pause with its next lease.
/// - **Store failing** (``StoreHealth/decidesLocally``): the in-process ``local`` limiter
///   decides, and pauses apply locally too.
final class SharedRateLimiter: RateLimiter {
    /// How long a leased slot stays usable, in seconds: short, so that a pause or a busier
    /// neighbour takes effect soon and unused slots go back soon.
    static let leaseDuration = 0.2

    let policy: RateLimitPolicy
    /// The in-process limiter: deciding while the store fails.
    let local: LocalRateLimiter
    private unowned let store: RedisRateLimitStore
    /// The TAT's key and the pause's (``RateLimitScript``), in one hash slot.
    private let keys: [[UInt8]]
    /// The interval and tolerance in microseconds, the arguments of every operation.
    private let policyArguments: [[UInt8]]
    private var slots = 0
    private var usableAt = 0.0
    private var leaseEnd = 0.0
    private var asking = false
    /// When a slot frees, as the last refused lease said (calls that cannot wait fail until then).
    private var freeAt = 0.0
    private var pausedUntil = 0.0
    /// When a pauses-only limit last asked whether it is paused.
    private var lastCheck = -Double.infinity
    /// Admissions since `windowStart`, and those of the last whole window: the recent rate.
    private var admissions = 0
    private var windowStart = 0.0
    private var lastRate = 0.0
    /// Calls that waited for a lease since the last request (demand the rate does not show yet).
    private var waiting = 0

    init(key: RateLimitKey, store: RedisRateLimitStore) {
        policy = key.policy
        self.store = store
        local = LocalRateLimiter(policy: key.policy)
        let tag = store.settings.keyPrefix + "{" + Self.keyName(key) + "}"
        keys = [Array((tag + ":tat").utf8), Array((tag + ":pause").utf8)]
        let interval = (policy.interval ?? 1) * 1_000_000
        policyArguments = [String(interval), String(policy.tolerance * 1_000_000)].map { Array($0.utf8) }
    }

    func admit(now: Double, maxWait: Double) -> RateAdmission {
        if pausedUntil > now {
            let left = pausedUntil - now
            return left <= maxWait ? .wait(left, reserved: false) : .refused(retryAfter: left, paused: true)
        }
        guard policy.interval != nil else {
            // Pauses only: admitted at once; the client asks whether the limit is paused at
            // most once per lease duration, and learns a pause with the reply.
            if !asking, now - lastCheck >= Self.leaseDuration { check(now: now) }
            return store.health.decidesLocally ? local.admit(now: now, maxWait: maxWait) : .admitted
        }
        if store.health.decidesLocally {
            if !asking { lease(now: now, maxWait: maxWait) }  // asks whether the store is back
            return local.admit(now: now, maxWait: maxWait)
        }
        if slots > 0, now >= leaseEnd { giveBack() }
        if slots > 0 {
            let wait = usableAt - now
            guard wait <= maxWait else { return .refused(retryAfter: wait, paused: false) }
            slots -= 1
            count(now)
            if slots <= Self.lowWater(lastRate), !asking { lease(now: now, maxWait: maxWait) }
            return wait > 0 ? .wait(wait, reserved: true) : .admitted
        }
        if freeAt > now, freeAt - now > maxWait { return .refused(retryAfter: freeAt - now, paused: false) }
        waiting += 1
        if !asking { lease(now: now, maxWait: maxWait) }
        // The reply comes within the store's timeout; the call asks again then.
        return .wait(store.settings.timeout, reserved: false)
    }

    func pause(seconds: Double, now: Double) {
        pausedUntil = max(pausedUntil, now + seconds)
        local.pause(seconds: seconds, now: now)
        let milliseconds = max(1, Int((seconds * 1000).rounded(.up)))
        store.run(keys: keys, arguments: [Array("pause".utf8)] + policyArguments + [Array(String(milliseconds).utf8)]) { _ in }
    }

    // MARK: Leases

    /// Asks for slots: the recent rate's share of ``leaseDuration`` plus the calls waiting,
    /// at most a burst (what GCRA can give at once); `maxWait` is how long they may be reserved ahead.
    private func lease(now: Double, maxWait: Double) {
        let burst = policy.burst + 1
        let want = min(burst, max(1, Int((lastRate * Self.leaseDuration).rounded(.up)) + waiting))
        waiting = 0
        asking = true
        let wait = maxWait.isFinite ? Int(min(maxWait, 86_400) * 1_000_000) : 86_400_000_000
        store.run(keys: keys, arguments: [Array("lease".utf8)] + policyArguments
                  + [Array(String(want).utf8), Array(String(wait).utf8)]) { [weak self] reply in
            guard let self else { return }
            asking = false
            guard let reply else { return }
            let now = MonotonicClock.now()
            if reply.paused > 0 {
                pausedUntil = max(pausedUntil, now + reply.paused)
            } else if reply.granted > 0 {
                if slots > 0, now >= leaseEnd { giveBack() }
                slots += reply.granted
                usableAt = max(usableAt, now + reply.wait)
                leaseEnd = usableAt + Self.leaseDuration
            } else {
                freeAt = now + reply.wait
            }
        }
    }

    /// Asks whether the limit is paused (a lease of no slot).
    private func check(now: Double) {
        lastCheck = now
        asking = true
        store.run(keys: keys, arguments: [Array("lease".utf8)] + policyArguments + [Array("0".utf8), Array("0".utf8)]) {
            [weak self] reply in
            guard let self else { return }
            asking = false
            if let reply, reply.paused > 0 { pausedUntil = max(pausedUntil, MonotonicClock.now() + reply.paused) }
        }
    }

    /// Gives the slots left of a lapsed lease back to the fleet.
    private func giveBack() {
        let count = slots
        slots = 0
        store.run(keys: keys, arguments: [Array("return".utf8)] + policyArguments + [Array(String(count).utf8)]) { _ in }
    }

    private func count(_ now: Double) {
        if now - windowStart >= 1 {
            lastRate = Double(admissions) / max(1, now - windowStart)
            admissions = 0
            windowStart = now
        }
        admissions += 1
    }

    /// The slots left at which the client asks for more: half of what the recent rate uses
    /// in a lease, so that the next lease comes before these run out.
    private static func lowWater(_ rate: Double) -> Int { Int(rate * leaseDuration / 2) }

    // MARK: Names

    /// `rate|scope|name|policy`: the host or route as calls name it (`{` and `}` replaced, so
    /// the hash tag holds) and a 64-bit FNV-1a of the values the fleet must share (requests,
    /// per, burst), so that the number of keys is bounded by hosts and routes times policies.
    static func keyName(_ key: RateLimitKey) -> String {
        let safe = String(key.name.map { $0 == "{" || $0 == "}" ? "_" : $0 })
        let values = "\(key.policy.requests ?? 0)|\(key.policy.per)|\(key.policy.burst)"
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in values.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "rate|\(key.scope.rawValue)|" + safe + "|" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// The shared rate limits' store: each limit's state lives in Redis (``RateLimitScript``),
/// reached through the client's shared breaker store's connection and health (one connection
/// and one ``StoreHealth`` per client). Event-loop thread only.
final class RedisRateLimitStore: RateLimitStore {
    private let connection: RedisBreakerStore
    private var limiters: [RateLimitKey: SharedRateLimiter] = [:]

    init(connection: RedisBreakerStore) { self.connection = connection }

    var settings: SharedStateSettings { connection.settings }
    var health: StoreHealth { connection.health }

    func limiter(_ key: RateLimitKey) -> any RateLimiter {
        if let limiter = limiters[key] { return limiter }
        let limiter = SharedRateLimiter(key: key, store: self)
        limiters[key] = limiter
        return limiter
    }

    /// Runs ``RateLimitScript`` (``RedisBreakerStore/evaluate(_:keys:arguments:parse:_:)``).
    func run(keys: [[UInt8]], arguments: [[UInt8]], _ done: @escaping (RateLimitScript.Reply?) -> Void) {
        connection.evaluate(RateLimitScript.script, keys: keys, arguments: arguments,
                            parse: RateLimitScript.Reply.init, done)
    }
}
