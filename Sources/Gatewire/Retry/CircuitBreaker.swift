/// The in-process circuit breaker of one host (see ``CircuitBreakerPolicy`` for the rules):
/// the default store's, and the fallback of a shared one (``SharedCircuitBreaker``).
/// Event-loop thread only; times are ``MonotonicClock`` seconds.
final class CircuitBreaker: HostCircuitBreaker {
    enum State: Equatable {
        case closed
        case open(until: Double)
        case halfOpen(trialRunning: Bool)
    }

    /// The answer to "may this attempt be sent?".
    enum Permission: Equatable {
        /// Send it; `trial` when it is the half-open state's one trial.
        case allowed(trial: Bool)
        /// Fail the call with `circuitOpen`; `retryIn` seconds until the next trial may run.
        case rejected(retryIn: Double)
    }

    let policy: CircuitBreakerPolicy
    private(set) var state = State.closed {
        didSet {
            let entered = Self.name(state)
            if entered != Self.name(oldValue) { onTransition(entered) }
        }
    }
    /// Told the name of each state entered (`open`, `half_open`, `closed`).
    private let onTransition: (String) -> Void
    /// Outcomes in the window: (time, failed), oldest first.
    private var window: [(time: Double, failed: Bool)] = []
    private var failures = 0

    /// A closed breaker under `policy`; `onTransition` hears each state it enters.
    init(policy: CircuitBreakerPolicy, onTransition: @escaping (String) -> Void = { _ in }) {
        self.policy = policy
        self.onTransition = onTransition
    }

    /// A state's name as `gatewire.circuit_breaker.state` has it.
    static func name(_ state: State) -> String {
        switch state {
        case .closed: "closed"
        case .open: "open"
        case .halfOpen: "half_open"
        }
    }

    func acquire(now: Double) -> Permission {
        switch state {
        case .closed:
            return .allowed(trial: false)
        case .open(let until):
            guard now >= until else { return .rejected(retryIn: until - now) }
            state = .halfOpen(trialRunning: true)
            return .allowed(trial: true)
        case .halfOpen(let running):
            guard running else {
                state = .halfOpen(trialRunning: true)
                return .allowed(trial: true)
            }
            return .rejected(retryIn: 0)
        }
    }

    func refuses(now: Double) -> Bool {
        switch state {
        case .closed: false
        case .open(let until): now < until
        case .halfOpen(let running): running
        }
    }

    /// Records an attempt's outcome: `failed` nil for one that does not count (cancelled).
    func record(failed: Bool?, trial: Bool, now: Double) {
        if trial {
            switch failed {
            case true?: state = .open(until: now + policy.breakDuration)
            case false?: state = .closed
            case nil: state = .halfOpen(trialRunning: false)
            }
            window.removeAll()
            failures = 0
            return
        }
        guard state == .closed, let failed else { return }
        window.append((now, failed))
        if failed { failures += 1 }
        prune(now: now)
        if window.count >= policy.minimumThroughput,
           Double(failures) >= policy.failureRatio * Double(window.count), failures > 0 {
            state = .open(until: now + policy.breakDuration)
            window.removeAll()
            failures = 0
        }
    }

    /// Failures and total in the current window, for messages.
    var counts: (failures: Int, total: Int) { (failures, window.count) }

    private func prune(now: Double) {
        let cutoff = now - policy.samplingDuration
        let stale = window.prefix { $0.time < cutoff }
        guard !stale.isEmpty else { return }
        failures -= stale.count { $0.failed }
        window.removeFirst(stale.count)
    }
}
