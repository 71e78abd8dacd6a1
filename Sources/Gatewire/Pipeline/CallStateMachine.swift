/// The life of one ``Call`` as a value: its phase, and for each event the one action the
/// call performs next. Pure (no loop, no transfer, no clock), so every transition is tested
/// without libcurl or sockets; ``Call`` is the driver that feeds it events and performs the
/// actions on the loop thread.
///
/// The phases, in order: `idle` -> `preparing(n)` (the breaker is asked, the plugins prepare
/// attempt `n`) -> `sending(n, hop)` (a transfer in flight; each redirect followed is the
/// next hop of the same attempt) -> then one of `backingOff(n + 1)` (the retry delay),
/// `awaitingCredential(n)` (after a 401, at most once per call), `mapping` (the final
/// response is mapped, inline or on the worker pool) -> `finished`. A stop (cancel or the
/// deadline) is a transition from every phase: it aborts the transfer in flight, or ends
/// the call at once. The machine hands out exactly one terminal action (``Action/fail(_:)``
/// or ``Action/complete``) per call; every later event answers ``Action/none``.
struct CallStateMachine {
    /// Where the call is. `n` is an attempt's number, from 1.
    enum Phase: Equatable {
        case idle
        case preparing(attempt: Int)
        case sending(attempt: Int, hop: Int)
        /// Waiting for the retry delay; `next` is the attempt that follows it.
        case backingOff(next: Int)
        /// A 401 of attempt `attempt` is with the refreshing credential.
        case awaitingCredential(attempt: Int)
        case mapping
        case finished
    }

    /// How an attempt's last transfer ended, as the driver classified it.
    enum TransferEnd: Equatable {
        /// No error and a status below 400.
        case succeeded
        /// A 401 from the call's origin, and the client has a refreshing credential.
        case unauthorized
        /// A transport error or a status of 400 or more (the retry layer decides).
        case failed
    }

    /// What happened to the call.
    enum Event {
        case start
        /// The breaker allowed attempt `n` and the plugins prepared it: the request is ready.
        case requestReady
        /// The host's circuit breaker is open: the attempt is not sent (`message` says why).
        case breakerRefused(message: String)
        /// A plugin's `prepare` threw or left an invalid request (`message` says which and why).
        case pluginRefused(message: String)
        /// The redirect policy follows the response of the transfer in flight.
        case redirect
        case transferFinished(TransferEnd)
        case retryDecided(RetryPolicy.CallVerdict)
        case delayElapsed
        case credentialAnswered(RefreshingCredential.Verdict)
        /// The response's body goes to the worker pool (too large to map on the loop).
        case mappingOffloaded
        case mappingFinished
        /// Cancel (`cancelled`, also a closing loop) or the call's deadline (`deadline`).
        case stop(ErrorKind)
    }

    /// Why the call fails without mapping a response.
    enum Failure: Equatable {
        /// Stopped while a transfer was in flight: the attempt it cut short is the last one.
        case attemptCutShort(ErrorKind)
        /// Stopped between attempts (before one, in the retry delay, with the credential, or
        /// while mapping): the last attempt and response stand.
        case stopped(ErrorKind)
        /// The open circuit breaker refused the attempt (kind `circuitOpen`).
        case circuitOpen(message: String)
        /// A plugin failed the attempt before it was sent (kind `plugin`).
        case plugin(message: String)
        /// The next retry's wait would pass the deadline (``RetryPolicy/CallVerdict/failDeadline(reason:)``).
        case deadlineBeforeRetry(reason: String)
        /// The credential failed the 401 (kind `auth`).
        case credential(message: String)
    }

    /// What the driver does next.
    enum Action: Equatable {
        /// Nothing (the event changed nothing, or the call has finished).
        case none
        /// Ask the breaker, run the plugins' `prepare` and `willSend` for attempt `n`; then
        /// ``Event/requestReady``, ``Event/breakerRefused(message:)`` or
        /// ``Event/pluginRefused(message:)``.
        case startAttempt(Int)
        /// Start the transfer of the prepared request.
        case send
        /// Run the plugins' `willSend` for the redirect's next hop and start its transfer.
        case followRedirect
        /// Abort the transfer in flight; its completion brings ``Event/transferFinished(_:)``.
        case abortTransfer(ErrorKind)
        /// Ask the retry layer about the failed attempt; then ``Event/retryDecided(_:)``.
        case decideRetry
        /// Schedule the retry delay (seconds); ``Event/delayElapsed`` when it passes.
        case scheduleRetry(delay: Double)
        /// Cancel the retry delay, then fail the call (terminal).
        case cancelRetryAndFail(Failure)
        /// Ask the refreshing credential about the 401; then ``Event/credentialAnswered(_:)``.
        case refreshCredential
        /// Map the final response (inline, or ``Event/mappingOffloaded`` then
        /// ``Event/mappingFinished``).
        case mapResponse
        /// Fail the call (terminal).
        case fail(Failure)
        /// Complete the call with the mapped response (terminal; the mapping outcome decides
        /// between success and a mapping or status failure).
        case complete
    }

    private(set) var phase = Phase.idle
    /// The stop asked while a transfer was in flight, until its aborted transfer comes back.
    private(set) var stopping: ErrorKind?
    /// Whether the credential already answered a 401 of this call (it replays at most once).
    private var askedCredential = false

    /// The transition: the action `event` asks for in the current phase.
    mutating func handle(_ event: Event) -> Action {
        switch (phase, event) {
        case (.finished, _):
            return .none
        case (_, .stop(let kind)):
            return stop(kind)
        case (.idle, .start):
            phase = .preparing(attempt: 1)
            return .startAttempt(1)
        case (.preparing(let n), .requestReady):
            phase = .sending(attempt: n, hop: 0)
            return .send
        case (.preparing, .breakerRefused(let message)):
            phase = .finished
            return .fail(.circuitOpen(message: message))
        case (.preparing, .pluginRefused(let message)):
            phase = .finished
            return .fail(.plugin(message: message))
        case (.sending(let n, let hop), .redirect):
            guard stopping == nil else { return .none }  // a stopped attempt follows nothing
            phase = .sending(attempt: n, hop: hop + 1)
            return .followRedirect
        case (.sending(let n, _), .transferFinished(let end)):
            return transferFinished(end, attempt: n)
        case (.sending(let n, _), .retryDecided(let verdict)):
            return retryDecided(verdict, attempt: n)
        case (.backingOff(let next), .delayElapsed):
            phase = .preparing(attempt: next)
            return .startAttempt(next)
        case (.awaitingCredential(let n), .credentialAnswered(let verdict)):
            switch verdict {
            case .replay:
                phase = .preparing(attempt: n + 1)
                return .startAttempt(n + 1)
            case .fail(let message):
                phase = .finished
                return .fail(.credential(message: message))
            case .keep:
                phase = .mapping
                return .mapResponse
            }
        case (.mapping, .mappingOffloaded):
            return .none
        case (.mapping, .mappingFinished):
            phase = .finished
            return .complete
        default:
            return .none  // an answer that no longer applies (e.g. a credential after a stop)
        }
    }

    private mutating func stop(_ kind: ErrorKind) -> Action {
        switch phase {
        case .sending:
            guard stopping == nil else { return .none }
            stopping = kind
            return .abortTransfer(kind)
        case .backingOff:
            phase = .finished
            return .cancelRetryAndFail(.stopped(kind))
        case .idle, .preparing, .awaitingCredential, .mapping:
            phase = .finished
            return .fail(.stopped(kind))
        case .finished:
            return .none
        }
    }

    private mutating func transferFinished(_ end: TransferEnd, attempt n: Int) -> Action {
        if let stopping {
            phase = .finished
            return .fail(.attemptCutShort(stopping))
        }
        switch end {
        case .succeeded:
            phase = .mapping
            return .mapResponse
        case .unauthorized where !askedCredential:
            askedCredential = true
            phase = .awaitingCredential(attempt: n)
            return .refreshCredential
        case .unauthorized, .failed:
            return .decideRetry  // still `sending(n, _)` until the verdict
        }
    }

    private mutating func retryDecided(_ verdict: RetryPolicy.CallVerdict, attempt n: Int) -> Action {
        switch verdict {
        case .retry(let delay, _):
            phase = .backingOff(next: n + 1)
            return .scheduleRetry(delay: delay)
        case .stop:
            phase = .mapping
            return .mapResponse
        case .failDeadline(let reason):
            phase = .finished
            return .fail(.deadlineBeforeRetry(reason: reason))
        }
    }
}
