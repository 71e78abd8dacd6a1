/// An attempt's outcome as a host's retry budget and circuit breaker count it. The call's
/// state machine (``CallStateMachine``) classifies each attempt once; a
/// ``ResilienceRecorder`` applies its own policies' status codes to it.
enum ResilienceOutcome: Equatable {
    /// Says nothing of the host's health: cut short by a cancel or the call's deadline, or
    /// never sent (a fresh cache hit, a plugin's refusal). A breaker trial it held is given
    /// back, so that the next call may run one.
    case uncounted
    /// A transport failure (``ErrorKind/isTransport``: connect, dns, tls, timeout, network,
    /// protocol): the host failed whatever the status codes say.
    case transportFailure
    /// The attempt ended with `status` (0 when no response arrived); `failed` when it ended
    /// with an error of another kind (a body too large, a refused resend).
    case ended(status: Int, failed: Bool)

    /// The outcome of an attempt that ended with `errorKind` (nil for none) and `status`;
    /// `cutShort` when the call was stopped while it was in flight.
    init(errorKind: ErrorKind?, status: Int, cutShort: Bool) {
        if cutShort || errorKind == .deadline || errorKind == .cancelled {
            self = .uncounted
        } else if let errorKind, errorKind.isTransport {
            self = .transportFailure
        } else {
            self = .ended(status: status, failed: errorKind != nil)
        }
    }
}

/// Where a call admits its attempts and records their outcomes for the shared resilience
/// state of its host: the retry budget (gRPC's retry throttling) and the circuit breaker.
/// The one place that turns an outcome into budget tokens and breaker counts, so that a store
/// shared between processes can stand in for the in-process one (``HostResilience``).
/// Event-loop thread only.
protocol ResilienceRecorder {
    /// The host's retry budget, which the retry decision reads (never charges); nil when off.
    var retryBudget: RetryBudgetState? { get }

    /// Whether an attempt may be sent now (`now`: ``MonotonicClock`` seconds): the circuit
    /// breaker's answer, `allowed(trial: false)` when there is none. An allowed trial must be
    /// given back with ``record(_:trial:now:)``, whatever becomes of the attempt.
    func admit(now: Double) -> CircuitBreaker.Permission

    /// Whether ``admit(now:)`` would refuse now, changing nothing (``HostCircuitBreaker/refuses(now:)``).
    func refuses(now: Double) -> Bool

    /// Counts `outcome` of an attempt that ``admit(now:)`` allowed; `trial` when it was the
    /// half-open breaker's trial.
    func record(_ outcome: ResilienceOutcome, trial: Bool, now: Double)

    /// Whether the circuit breaker decides and records in process because its shared store
    /// is failing (false without a breaker, or with an in-process one).
    var decidesLocally: Bool { get }
}

/// The client's resilience state for one host (``ResilienceState``): its retry budget (in
/// process) and circuit breaker (in the client's ``BreakerStore``: in process, or shared
/// through Redis), each nil when its policy is off.
///
/// Counting (``CircuitBreakerPolicy`` and ``RetryBudget`` give the rules): a transport
/// failure is a failure for both; a status in the retry policy's ``RetryPolicy/retryableStatusCodes``
/// takes a budget token, and any other status below 400 without an error gives one back; a
/// status in the breaker's ``CircuitBreakerPolicy/failureStatusCodes`` is a breaker failure,
/// every other outcome a success; an uncounted outcome changes neither.
struct HostResilience: ResilienceRecorder {
    let retryBudget: RetryBudgetState?
    let breaker: (any HostCircuitBreaker)?
    /// The call's retry policy's ``RetryPolicy/retryableStatusCodes``.
    let retryableStatusCodes: Set<Int>

    func admit(now: Double) -> CircuitBreaker.Permission {
        breaker?.acquire(now: now) ?? .allowed(trial: false)
    }

    var decidesLocally: Bool { breaker?.decidesLocally ?? false }

    func refuses(now: Double) -> Bool { breaker?.refuses(now: now) ?? false }

    func record(_ outcome: ResilienceOutcome, trial: Bool, now: Double) {
        if let retryBudget {
            switch outcome {
            case .uncounted:
                break
            case .transportFailure:
                retryBudget.recordFailure()
            case .ended(let status, let failed):
                if retryableStatusCodes.contains(status) {
                    retryBudget.recordFailure()
                } else if !failed, status < 400 {
                    retryBudget.recordSuccess()
                }
            }
        }
        if let breaker {
            let failed: Bool? = switch outcome {
            case .uncounted: nil
            case .transportFailure: true
            case .ended(let status, _): breaker.policy.failureStatusCodes.contains(status)
            }
            breaker.record(failed: failed, trial: trial, now: now)
        }
    }
}
