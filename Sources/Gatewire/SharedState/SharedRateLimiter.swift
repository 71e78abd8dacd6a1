/// One rate limit shared by a fleet through Redis (``RateLimitScript`` has the rules), with
/// leases as Doorman's (YouTube's global rate limiter): the client leases a few slots of the
/// limit at a time, sized from its recent rate, and admits its calls locally within the lease,
/// so that a call rarely waits for Redis and Redis sees a fraction of an operation per call.
/// Event-loop thread only; times are ``MonotonicClock`` seconds (a time Redis gives is a
/// duration from its reply, so clocks never meet).
///
/// - **Leased slots**: each admits one attempt, from when the lease says (at once, or after
///   the wait Redis reserved them for) until ``leaseDuration`` after it; slots left then are
///   given back (`return`). When fewer are left than half a lease at the recent rate, the
///   client asks for more before they run out.
/// - **No slot**: the client asks for a lease (one request in flight) and the call waits for
///   the reply (polling every ``leasePoll``; the store's `timeout` bounds it). A lease refused
///   (no slot within the wait the call allowed) tells when a slot frees: calls that cannot
///   wait that long fail at once until then.
/// - **Pauses**: a `Retry-After` this client sees goes to Redis (`pause`), and every reply
///   says whether the limit is paused; a client holding slots, or with pauses only, asks at
///   most every ``pauseCheckInterval`` when no other request told it.
/// - **Store failing** (``StoreHealth/decidesLocally``): the in-process ``local`` limiter
///   decides, and pauses apply locally too.
final class SharedRateLimiter: RateLimiter {
    /// How long a leased slot stays usable after the lease's start, in seconds: long enough
    /// that a client calling a few times a second leases several calls at once, short enough
    /// that unused slots go back to the fleet soon.
    static let leaseDuration = 1.0
    /// How often a client asks whether the limit is paused when no lease request told it, in
    /// seconds: a pause reaches every client within this (and a round trip).
    static let pauseCheckInterval = 0.2
    /// How long a call waits for a lease request in flight before it asks again, in seconds
    /// (the store's `timeout` bounds the whole wait: past it the in-process limiter decides).
    static let leasePoll = 0.002

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
    /// Whether a request (a lease, a return is not one) is in flight.
    private var asking = false
    /// When the last request went out (each reply says whether the limit is paused).
    private var lastAsked = -Double.infinity
    /// When a slot frees, as the last refused lease said (calls that cannot wait fail until then).
    private var freeAt = 0.0
    private var pausedUntil = 0.0
    /// Admissions since `windowStart`, and the rate of the last whole window (per second).
    private var admissions = 0
    private var windowStart = 0.0
    private var lastRate = 0.0
    /// The lease size the demand asks for, before the recent rate shows it: doubled each time
    /// a lease runs low within its duration, halved each time slots go back unused.
    private var demand = 1

    init(key: RateLimitKey, store: RedisRateLimitStore) {
        policy = key.policy
        self.store = store
        local = LocalRateLimiter(policy: key.policy)
        let tag = store.settings.keyPrefix + "{" + Self.keyName(key) + "}"
        keys = [Array((tag + ":tat").utf8), Array((tag + ":pause").utf8)]
        let interval = (policy.interval ?? 1) * 1_000_000
        policyArguments = [String(interval), String(policy.tolerance * 1_000_000)].map { Array($0.utf8) }
    }

    var decidesLocally: Bool { store.health.decidesLocally }

    func admit(now: Double, maxWait: Double) -> RateAdmission {
        if pausedUntil > now {
            let left = pausedUntil - now
            return left <= maxWait ? .wait(left, reserved: false) : .refused(retryAfter: left, paused: true)
        }
        if !asking, now - lastAsked >= Self.pauseCheckInterval, policy.interval == nil || slots > 0 {
            request(want: 0, maxWait: 0, now: now)  // is the limit paused? (a lease of nothing)
        }
        if store.health.decidesLocally {
            // While the store fails the in-process limiter decides; the requests above and
            // below ask whether it is back (none while the client has stopped asking).
            if !asking, policy.interval != nil { request(want: 1, maxWait: 0, now: now) }
            return local.admit(now: now, maxWait: maxWait)
        }
        guard policy.interval != nil else { return .admitted }  // pauses only
        if slots > 0, now >= leaseEnd { giveBack() }
        if slots > 0 {
            let wait = usableAt - now
            guard wait <= maxWait else { return .refused(retryAfter: wait, paused: false) }
            slots -= 1
            count(now)
            if slots <= Int(lastRate * Self.leaseDuration / 2), !asking {
                demand = min(policy.burst + 1, demand * 2)  // running out within the lease
                request(want: leaseSize(), maxWait: maxWait, now: now)  // renewed before it runs out
            }
            return wait > 0 ? .wait(wait, reserved: true) : .admitted
        }
        if freeAt > now, freeAt - now > maxWait { return .refused(retryAfter: freeAt - now, paused: false) }
        if !asking {
            if now < leaseEnd { demand = min(policy.burst + 1, demand * 2) }  // ran out within the lease
            request(want: leaseSize(), maxWait: maxWait, now: now)
        }
        return .wait(Self.leasePoll, reserved: false)  // then asks again: the lease's reply has come, or not yet
    }

    func pause(seconds: Double, now: Double) {
        pausedUntil = max(pausedUntil, now + seconds)
        local.pause(seconds: seconds, now: now)
        let milliseconds = max(1, Int((seconds * 1000).rounded(.up)))
        store.run(keys: keys, arguments: [Array("pause".utf8)] + policyArguments + [Array(String(milliseconds).utf8)]) { _ in }
    }

    func returnSlot(now: Double) {
        // While the store fails the in-process limiter reserved the slot; else the lease did,
        // and the slot goes back to it (given back to the fleet with the lease's others when
        // the lease ends unused).
        if store.health.decidesLocally {
            local.returnSlot(now: now)
        } else {
            slots += 1
        }
    }

    // MARK: Leases

    /// The slots a lease asks for: the recent rate's share of ``leaseDuration`` or the
    /// demand's, whichever is larger, at most a burst + 1 (what GCRA gives at once).
    private func leaseSize() -> Int {
        min(policy.burst + 1, max(demand, Int((lastRate * Self.leaseDuration).rounded(.up))))
    }

    /// Asks for `want` slots (0: only whether the limit is paused), which may be reserved up
    /// to `maxWait` seconds ahead; the reply adds them to the lease, or tells when a slot
    /// frees, and says whether the limit is paused.
    private func request(want: Int, maxWait: Double, now: Double) {
        asking = true
        lastAsked = now
        let wait = Int(min(maxWait, 86_400) * 1_000_000)
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
            } else if want > 0 {
                freeAt = now + reply.wait
            }
        }
    }

    /// Gives the slots left of a lapsed lease back to the fleet.
    private func giveBack() {
        let count = slots
        slots = 0
        demand = max(1, demand / 2)
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
