/// One host's circuit breaker in a ``RedisBreakerStore``: the fleet's state lives in Redis
/// (``BreakerScript`` has the rules), and this object keeps what the client knows of it, so
/// that a call's admission never waits for Redis. Event-loop thread only; times are
/// ``MonotonicClock`` seconds (a time Redis gives is a duration from its reply, so clocks
/// never meet).
///
/// - **Closed**: every attempt is allowed at once. Outcomes go to Redis in batches, one
///   `EVALSHA` in flight per breaker: a failure goes out at once when none is in flight,
///   successes after ``batchDelay`` or ``batchSize`` of them, and whatever arrives while one is
///   in flight goes with the next. Each reply says what the fleet's breaker is now.
/// - **Open** (known from a reply): calls fail fast and Redis is asked nothing until the
///   break ends. A client that had calls refused during the break asks for the trial (`claim`)
///   when it ends; one that had none asks when its next call comes, refusing that call.
/// - **Half-open**: the client that won the lease sends the trial with its next call and
///   reports its outcome at once; the others are refused and ask again at most every
///   ``pollInterval(_:)`` until the trial's outcome is known.
/// - **Pushed** (``heard(_:now:)``): an opening or a trial's success that another client's
///   operation made is taken at once from the fleet's channel (``BreakerNews``), so that this
///   client refuses its next call without a failing call of its own first. Without the
///   channel (its connection down) the replies still carry every state, one batch later.
/// - **Store failing** (``StoreHealth/decidesLocally``): the in-process ``local`` breaker, which
///   sees every outcome all along, decides (a break this client knows of still runs out).
final class SharedCircuitBreaker: HostCircuitBreaker {
    /// What the client knows of the fleet's breaker.
    enum Known: Equatable {
        case closed
        /// Open until `until`; past it, the break is over and the trial may be claimed.
        case open(until: Double)
        /// This client holds the trial's lease until `until` and gives it to its next call.
        case trialGranted(until: Double)
        /// This client's trial is in flight.
        case trialRunning
        /// Another client runs the trial; ask again at `until`.
        case trialElsewhere(until: Double)
    }

    /// How long successes wait for company before they go to Redis, in seconds.
    static let batchDelay = 0.005
    /// The most outcomes one batch waits for.
    static let batchSize = 64

    let policy: CircuitBreakerPolicy
    let host: String
    /// The in-process breaker: fed every outcome, deciding while the store fails.
    let local: CircuitBreaker
    private unowned let store: RedisBreakerStore
    /// The state's key and the trial lease's (``BreakerScript``), in one hash slot.
    private let keys: [[UInt8]]
    /// The state's key as ``BreakerNews`` names the breaker.
    let stateKey: String
    /// The arguments of every operation: the policy's (ratio, throughput, durations in ms)
    /// and the fleet's channel.
    private let policyArguments: [[UInt8]]
    private(set) var known = Known.closed
    private var localTrialRunning = false
    /// The lease's token while this client holds the trial.
    private var token: [UInt8]?
    private var pendingFailures = 0
    private var pendingTotal = 0
    private var flushing = false
    private var flushTimer: Int?
    private var claiming = false
    private var claimTimer: Int?
    /// How many openings the channel has told of, so that a batch's reply that Redis gave
    /// before one of them is not taken over it.
    private var openingsHeard = 0

    init(host: String, policy: CircuitBreakerPolicy, store: RedisBreakerStore) {
        self.host = host
        self.policy = policy
        self.store = store
        local = CircuitBreaker(policy: policy)
        let tag = store.settings.keyPrefix + "{" + Self.keyName(host: host, policy: policy) + "}"
        stateKey = tag + ":state"
        keys = [Array(stateKey.utf8), Array((tag + ":trial").utf8)]
        policyArguments = ["\(policy.failureRatio)", "\(policy.minimumThroughput)",
                           "\(Self.milliseconds(policy.samplingDuration))", "\(Self.milliseconds(policy.breakDuration))"]
            .map { Array($0.utf8) } + [store.channel]
    }

    var decidesLocally: Bool { store.health.decidesLocally }

    func acquire(now: Double) -> CircuitBreaker.Permission {
        if localTrialRunning { return .rejected(retryIn: 0) }
        // What the client knows without asking comes first, whatever the store's health.
        switch known {
        case let .open(until) where now < until:
            wantTrial(at: until)
            return .rejected(retryIn: until - now)
        case let .trialElsewhere(until) where now < until:
            wantTrial(at: until)
            return .rejected(retryIn: 0)
        case .trialRunning:
            return .rejected(retryIn: 0)
        default:
            break
        }
        if store.health.decidesLocally {
            // Outcomes go to Redis only while closed: otherwise this is what asks whether the
            // store is back (one claim in flight; none while the client has stopped asking).
            if known != .closed { claim() }
            return acquireLocally(now: now)
        }
        switch known {
        case .closed:
            return .allowed(trial: false)
        case let .trialGranted(until) where now < until:
            known = .trialRunning
            return .allowed(trial: true)
        default:
            // The break is over (or the lease lapsed): ask for the trial; this call is
            // refused unless the asking failed at once (the store is down: decide here).
            claim()
            return store.health.decidesLocally ? acquireLocally(now: now) : .rejected(retryIn: 0)
        }
    }

    func record(failed: Bool?, trial: Bool, now: Double) {
        if trial, localTrialRunning {
            localTrialRunning = false
            local.record(failed: failed, trial: true, now: now)
            return
        }
        local.record(failed: failed, trial: false, now: now)
        if trial, known == .trialRunning, let token {
            endTrial(failed: failed, token: token, now: now)
            return
        }
        // Outcomes of calls admitted before the client learned of a break change nothing.
        guard let failed, known == .closed else { return }
        pendingTotal += 1
        if failed { pendingFailures += 1 }
        guard !flushing else { return }  // the reply sends them
        if failed || pendingTotal >= Self.batchSize {
            flush()
        } else if flushTimer == nil {
            flushTimer = store.loop.schedule(after: Self.batchDelay) { [weak self] fired in
                guard fired, let self else { return }
                flushTimer = nil
                flush()
            }
        }
    }

    /// What the fleet's channel said of this breaker, heard at `now`: an opening is taken at
    /// once (the outcomes waiting for a batch change nothing any more), a close ends a break
    /// or another client's trial this client still waited out. This client's own trial is
    /// never overridden: the client reports its outcome itself.
    func heard(_ news: BreakerNews, now: Double) {
        switch (news, known) {
        case (_, .trialGranted), (_, .trialRunning):
            return
        case let (.opened(_, left), _):
            known = .open(until: now + left)
            openingsHeard += 1
            pendingFailures = 0
            pendingTotal = 0
            cancelTimers()
        case (.closed, .open), (.closed, .trialElsewhere):
            known = .closed
            cancelTimers()
        case (.closed, .closed):
            return
        }
    }

    // MARK: Operations

    private func cancelTimers() {
        if let flushTimer { store.loop.cancelTimer(flushTimer) }
        if let claimTimer { store.loop.cancelTimer(claimTimer) }
        flushTimer = nil
        claimTimer = nil
    }

    func refuses(now: Double) -> Bool {
        if localTrialRunning { return true }
        switch known {
        case let .open(until), let .trialElsewhere(until):
            if now < until { return true }
        case .trialRunning:
            return true
        default:
            break
        }
        return store.health.decidesLocally && local.refuses(now: now)
    }

    private func acquireLocally(now: Double) -> CircuitBreaker.Permission {
        let permission = local.acquire(now: now)
        if permission == .allowed(trial: true) { localTrialRunning = true }
        return permission
    }

    /// Sends the outcomes waiting, if any.
    private func flush() {
        if let flushTimer { store.loop.cancelTimer(flushTimer) }
        flushTimer = nil
        guard pendingTotal > 0 else { return }
        let arguments = [Array("record".utf8)] + policyArguments
            + [Array(String(pendingFailures).utf8), Array(String(pendingTotal).utf8)]
        pendingFailures = 0
        pendingTotal = 0
        flushing = true
        let openingsBefore = openingsHeard
        store.run(keys: keys, arguments: arguments) { [weak self] reply in
            guard let self else { return }
            flushing = false
            // Redis answered "closed" before an opening the channel has told of since: stale.
            let stale = reply?.state == .closed && openingsHeard != openingsBefore
            if let reply, !stale, known == .closed || Self.isOpen(known) { learn(reply) }
            if known == .closed, pendingTotal > 0 {
                flush()
            } else if known != .closed {
                pendingFailures = 0
                pendingTotal = 0
            }
        }
    }

    /// Asks for the trial's lease at `until` (when the break or the other's lease ends), once.
    private func wantTrial(at until: Double) {
        guard claimTimer == nil else { return }
        claimTimer = store.loop.schedule(after: until - MonotonicClock.now()) { [weak self] fired in
            guard fired, let self else { return }
            claimTimer = nil
            claim()
        }
    }

    private func claim() {
        guard !claiming else { return }
        claiming = true
        let candidate = Self.newToken()
        store.run(keys: keys, arguments: [Array("claim".utf8)] + policyArguments + [candidate]) { [weak self] reply in
            guard let self else { return }
            claiming = false
            guard let reply, known != .trialRunning else { return }
            if case .trialGranted = reply.state { token = candidate }
            learn(reply)
        }
    }

    /// Reports this client's trial: the fleet's breaker closes or opens for another break.
    private func endTrial(failed: Bool?, token: [UInt8], now: Double) {
        self.token = nil
        let outcome: String
        switch failed {
        case true?:
            known = .open(until: now + policy.breakDuration)  // until the reply says when, by Redis's clock
            outcome = "failure"
        case false?:
            known = .closed
            outcome = "success"
        case nil:
            known = .open(until: now)  // given back: the next call asks for the trial again
            outcome = "void"
        }
        store.run(keys: keys, arguments: [Array("trial".utf8)] + policyArguments + [token, Array(outcome.utf8)]) {
            [weak self] reply in
            guard let self, let reply, known != .trialRunning else { return }
            learn(reply)
        }
    }

    /// Takes what a reply says as what the client knows, and announces the transition the
    /// reply made (once for the fleet: ``BreakerScript``).
    private func learn(_ reply: BreakerScript.Reply) {
        let now = MonotonicClock.now()
        switch reply.state {
        case .closed:
            known = .closed
        case let .open(left):
            known = .open(until: now + left)
        case let .trialGranted(lease):
            known = token == nil ? .open(until: now) : .trialGranted(until: now + lease)
        case let .trialElsewhere(left):
            known = .trialElsewhere(until: now + min(left, Self.pollInterval(policy)))
        }
        guard reply.announce else { return }
        store.onTransition(host, known == .closed ? "closed" : "open")
        if known == .closed {
            Diagnostics.report("circuit breaker of \(host): closed for every client of \(store.settings.serverDescription) "
                + "(its trial succeeded)")
        } else {
            Diagnostics.report("circuit breaker of \(host): opened for every client of \(store.settings.serverDescription) "
                + "for \(policy.breakDuration) s (failureRatio \(policy.failureRatio) over at least "
                + "\(policy.minimumThroughput) calls in \(policy.samplingDuration) s, counted by the fleet)")
        }
    }

    // MARK: Names and values

    /// How often a client refused during another's trial asks whether it ended, in seconds:
    /// a tenth of the break, between 0.05 s and 1 s.
    static func pollInterval(_ policy: CircuitBreakerPolicy) -> Double {
        min(1, max(0.05, policy.breakDuration / 10))
    }

    private static func isOpen(_ known: Known) -> Bool {
        if case .open = known { return true }
        return false
    }

    private static func milliseconds(_ seconds: Double) -> Int { max(1, Int((seconds * 1000).rounded())) }

    /// `host|policy`: the host as calls name it (`{` and `}` replaced, so the hash tag holds)
    /// and a 64-bit FNV-1a of the policy's values in hex, so that the number of keys is bounded
    /// by hosts times policies, never by URLs.
    static func keyName(host: String, policy: CircuitBreakerPolicy) -> String {
        let safeHost = String(host.map { $0 == "{" || $0 == "}" ? "_" : $0 })
        let values = "\(policy.failureRatio)|\(policy.minimumThroughput)|\(policy.samplingDuration)|"
            + "\(policy.breakDuration)|" + policy.failureStatusCodes.sorted().map(String.init).joined(separator: ",")
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in values.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return safeHost + "|" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// A lease token: 16 random hex digits (the system's generator).
    private static func newToken() -> [UInt8] {
        let hex = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return Array((String(repeating: "0", count: 16 - hex.count) + hex).utf8)
    }
}
