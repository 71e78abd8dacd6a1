/// The life of one ``Call`` as a value, in the shape of async-http-client's
/// `RequestBag.StateMachine`: each state carries the data that exists in it, each event is a
/// mutating method that returns its own action, and ``Call`` is the driver that feeds the
/// events and performs every action it is given on the loop thread. Pure (no loop, no
/// clock, no socket: times and facts come in with the events), so every transition is tested
/// without libcurl.
///
/// ```text
/// state               event                  -> next state            action
/// idle                start                  -> preparing(1)          prepareAttempt(1)
/// idle                buildFailed            -> finished              fail
/// preparing(n)        requestPrepared        -> sending(attempt)      startTransfer
///                     cacheAnswered          -> mapping               map (nothing sent)
///                     prepareFailed          -> finished              fail (rate limit, breaker, plugin)
///                     rateLimitWait          -> throttled(n)          scheduleWait, then throttleTimerArmed
/// throttled(n)        throttleElapsed        -> preparing(n)          prepareAttempt(n) (its slot reserved,
///                                                                     or asking again after a pause)
/// sending(attempt)    transferFinished       -> sending (next hop)    followRedirect, then hopStarted
///                                            -> reportingAttempt      reportAttempt
///                     stop                   -> stopping              abortTransfer
/// stopping            transferFinished       -> reportingAttempt      reportAttempt (cut short)
/// reportingAttempt    attemptReported        -> finished              fail (cut short)
///                                            -> mapping               map (a success)
///                                            -> awaitingCredential    askCredential (a 401, once)
///                                            -> decidingRetry         decideRetry (a failure)
/// decidingRetry       retryDecided           -> backingOff(n + 1)     scheduleRetry, then retryTimerArmed
///                                            -> mapping               map (stop, body sink refusal)
///                                            -> finished              fail (deadline)
/// backingOff(n)       delayElapsed           -> preparing(n)          prepareAttempt(n)
/// awaitingCredential  credentialAsked, then credentialAnswered
///                                            -> preparing(n + 1)      prepareAttempt (replay)
///                                            -> mapping | finished    map (keep) | fail (auth)
/// mapping             mappingOffloaded, then mappingFinished
///                                            -> finished              complete
/// any but stopping    stop                   -> finished              fail (reportingAttempt: on attemptReported)
/// ```
///
/// `stop(kind)` (cancel, a closing loop, or the deadline) is an event of every state: in
/// `sending` it aborts the transfer and moves to `stopping`, whose transfer's completion then
/// fails the call; in `reportingAttempt` it marks the attempt cut short (`attemptReported`
/// fails the call); in `stopping` and `finished` it does nothing; everywhere else it fails
/// the call at once (releasing the retry timer, the rate limit's wait timer and the slot it
/// held, or the loop's close observer the state held). The machine hands out exactly one terminal
/// action per call (a `fail` or a `complete`); the events that may still arrive after it are
/// named in each method (a stop, a delay timer, the credential's or a worker's late answer)
/// and answer `.none`. Any other event in a state that cannot see it is a bug of the driver:
/// a `preconditionFailure`.
///
/// Hot path: the large payloads (an attempt in flight, an ended one, a mapping) are classes,
/// so a transition moves one reference; a value payload is taken out and the state set to
/// `.modifying` before it is changed and put back, so no enum payload is copied on write.
struct CallStateMachine {
    // MARK: State

    enum State {
        case idle
        /// The rate limit, the breaker, the plugins and the cache are asked about attempt `number`.
        case preparing(PreparingState)
        /// The attempt waits for its rate limit's slot, or for a `Retry-After` pause to end.
        case throttled(ThrottleState)
        /// A transfer of the attempt is in flight (each redirect followed is its next hop).
        case sending(AttemptState)
        /// A stop came while a transfer was in flight: it is being aborted.
        case stopping(AttemptState, ErrorKind)
        /// The attempt ended; the driver reports it (plugins, monitors, the resilience
        /// recorder, the cache) before the call goes on.
        case reportingAttempt(EndedAttempt)
        /// The attempt failed: the retry layer decides.
        case decidingRetry(EndedAttempt)
        /// The retry delay runs; attempt `next` follows it.
        case backingOff(BackoffState)
        /// A 401 is with the refreshing credential (at most once per call).
        case awaitingCredential(CredentialState)
        /// The final response is mapped, on the loop or on the worker pool.
        case mapping(MappingInput)
        case finished
        /// Only while a payload is being changed (never seen between events).
        case modifying
    }

    struct PreparingState {
        let attempt: Int
        /// What a stop or an open breaker reports: the last retried response.
        let reported: HTTPResponse?
        /// Whether the rate limit already reserved the attempt's slot (it waited for it).
        var slotReserved = false
        /// Seconds the attempt waited for its rate limit (its record's queued time).
        var waited = 0.0
    }

    /// An attempt waiting for its rate limit: since `since` seconds into the call, after
    /// `waited` seconds of earlier waits.
    struct ThrottleState {
        let attempt: Int
        let reported: HTTPResponse?
        /// Whether the slot at the wait's end is the attempt's (else it asks again: a pause).
        let reserved: Bool
        let since: Double
        let waited: Double
        var timer: Int?
    }

    /// What the driver built to send an attempt: the request as it goes out and the facts of
    /// its first transfer.
    struct SentAttempt {
        /// The transfer of the hop in flight (the driver starts it).
        var transfer: Transfer
        /// The hop's request as sent (what the credential signed, what the cache sees).
        var request: HTTPRequest
        /// Seconds into the call when the attempt started, and its monotonic start time.
        let startOffset: Double
        let sentAt: Double
        /// Whether the attempt is the half-open breaker's trial.
        let trial: Bool
        let context: PluginContext
        /// The first hop's transport options; a later hop gets what is left of its timeout.
        let options: TransferOptions
        /// What the HTTP cache made of the request; nil when the call does not use it.
        let cache: CacheExchange?
    }

    /// The HTTP cache's part in one attempt.
    struct CacheExchange {
        let lookup: HTTPCache.Lookup
        /// When the request went out (wall clock seconds).
        let requestTime: Double
    }

    /// An attempt in flight. A class, as the other large payloads: a state holds one reference,
    /// so a transition moves a pointer instead of copying the request, the transport options
    /// and the result with a retain for each of their references.
    final class AttemptState {
        let number: Int
        let reported: HTTPResponse?
        /// Seconds the attempt waited for its rate limit before it was sent.
        let waited: Double
        var sent: SentAttempt
        /// The redirects followed, and the timings and bytes of the hops before the current one.
        var hops: [RedirectHop] = []
        var earlier = (timings: TransferTimings(), bytesSent: Int64(0))
        /// Why the policy did not follow the last hop's redirect (the `redirect` failure's message).
        var refusedRedirect: String?

        init(number: Int, reported: HTTPResponse?, waited: Double = 0, sent: consuming SentAttempt) {
            self.number = number
            self.reported = reported
            self.waited = waited
            self.sent = sent
        }
    }

    /// An attempt that ended, with its whole chain's result (a class: see ``AttemptState``).
    final class EndedAttempt {
        let number: Int
        let reported: HTTPResponse?
        var result: TransferResult
        let request: HTTPRequest
        let sentAt: Double
        let redirected: Bool
        let refusedRedirect: String?
        let unauthorized: Bool
        /// The stop that cut the attempt short (while in flight, or while it was reported).
        var cutShort: ErrorKind?
        var revalidated = false

        init(number: Int, reported: HTTPResponse?, result: TransferResult, request: HTTPRequest, sentAt: Double,
             redirected: Bool, refusedRedirect: String?, unauthorized: Bool, cutShort: ErrorKind? = nil,
             revalidated: Bool = false) {
            self.number = number
            self.reported = reported
            self.result = result
            self.request = request
            self.sentAt = sentAt
            self.redirected = redirected
            self.refusedRedirect = refusedRedirect
            self.unauthorized = unauthorized
            self.cutShort = cutShort
            self.revalidated = revalidated
        }
    }

    struct BackoffState {
        let next: Int
        let reported: HTTPResponse?
        var timer: Int?
    }

    struct CredentialState {
        let ended: EndedAttempt
        var closeObserver: Int?
    }

    /// What the call maps: the final result and how it came about, and the mapping state's
    /// waits. A class (see ``AttemptState``): the mapping state and the action that maps it
    /// share it.
    final class MappingInput {
        var result: TransferResult
        /// Why a redirect in it was not followed (then it fails with kind `redirect` unless a
        /// response descriptor accepts its status).
        let refusedRedirect: String?
        /// Whether the attempt followed redirects (`@metadata.url` is then the last hop's).
        let redirected: Bool
        let fromCache: Bool
        let revalidated: Bool
        /// What a stop reports: the last retried response, then once a worker maps, the final one.
        var reported: HTTPResponse?
        /// Set while a worker maps (the loop's close observer).
        var closeObserver: Int?

        init(result: TransferResult, refusedRedirect: String?, redirected: Bool, fromCache: Bool, revalidated: Bool,
             reported: HTTPResponse?) {
            self.result = result
            self.reported = reported
            self.refusedRedirect = refusedRedirect
            self.redirected = redirected
            self.fromCache = fromCache
            self.revalidated = revalidated
        }
    }

    /// Why the call fails without mapping a response: the error's kind, status, message and
    /// the response it reports.
    struct CallFailure {
        var kind: ErrorKind
        var status: Int
        var message: String
        var response: HTTPResponse?
        /// For kind `rateLimited`: the seconds until a slot frees.
        var retryAfter: Double?
    }

    /// Why an attempt was not sent.
    enum PrepareFailure {
        /// The rate limit of `limit` (``RateLimitKey/description``) refused the attempt: a slot
        /// frees in `retryAfter` seconds, or then its `Retry-After` pause ends (`paused`).
        case rateLimited(limit: String, retryAfter: Double, paused: Bool)
        /// The host's circuit breaker is open; `retryIn` seconds until its next trial (0:
        /// a trial call is running).
        case circuitOpen(host: String, retryIn: Double)
        /// A plugin's `prepare` threw or left an invalid request.
        case plugin(message: String)
    }

    /// The waits a call holds outside a transfer, released as it ends.
    struct Waits {
        var retryTimer: Int?
        /// The timer of a wait for the rate limit.
        var admissionTimer: Int?
        /// Whether the wait held its rate limit's slot: the call ends without using it, so the
        /// driver gives it back (``RateLimiter/returnSlot(now:)``) for another attempt to take.
        var reservedSlot = false
        var closeObserver: Int?
    }

    private(set) var state = State.idle
    /// The attempts made, each with its decision (every result and error reports them).
    private(set) var attempts: [Attempt] = []
    /// Whether the client has a refreshing credential (asked after a 401 of the call's origin).
    private let hasCredential: Bool
    /// Whether the credential already answered a 401 of this call (it replays at most once).
    private var askedCredential = false

    init(hasCredential: Bool) { self.hasCredential = hasCredential }

    static func stopMessage(_ kind: ErrorKind) -> String {
        kind == .deadline ? "the call's deadline passed" : "the call was cancelled"
    }

    // MARK: Starting

    enum PrepareAttemptAction {
        /// Ask the breaker, the plugins and the cache about attempt `n`; then
        /// `requestPrepared`, `cacheAnswered` or `prepareFailed`.
        case prepareAttempt(Int)
        /// Nothing: the call already ended (stopped before it started, or before the delay
        /// timer's or the credential's answer came).
        case none
    }

    mutating func start() -> PrepareAttemptAction {
        switch state {
        case .idle:
            state = .preparing(PreparingState(attempt: 1, reported: nil))
            return .prepareAttempt(1)
        case .finished:
            return .none  // stopped before it started
        case .preparing, .throttled, .sending, .stopping, .reportingAttempt, .decidingRetry, .backingOff, .awaitingCredential,
             .mapping, .modifying:
            preconditionFailure("start in state \(state)")
        }
    }

    enum BuildFailedAction {
        /// Fail the call with the build's error (terminal; no attempt, no plugin, no event).
        case fail(GatewireError)
    }

    /// The call could not be built (``ClientCore/prepare(_:)``, the body sink, a closed
    /// client): it fails before it starts.
    mutating func buildFailed(_ error: GatewireError) -> BuildFailedAction {
        guard case .idle = state else { preconditionFailure("buildFailed in state \(state)") }
        state = .finished
        return .fail(error)
    }

    // MARK: Preparing

    enum PreparedAction {
        /// Start the transfer (the attempt's first hop).
        case startTransfer(Transfer)
        /// Map the cache's fresh response (nothing was sent, no attempt is recorded); record
        /// the outcome (a trial held is given back).
        case map(MappingInput, record: ResilienceOutcome, trial: Bool)
        /// Fail the call (terminal); record the outcome when an admitted attempt was refused.
        case fail(CallFailure, record: ResilienceOutcome?, trial: Bool)
    }

    /// The breaker admitted the attempt and the plugins prepared it: `sent` goes out.
    mutating func requestPrepared(_ sent: consuming SentAttempt) -> PreparedAction {
        guard case .preparing(let preparing) = state else { preconditionFailure("requestPrepared in state \(state)") }
        let transfer = sent.transfer
        state = .sending(AttemptState(number: preparing.attempt, reported: preparing.reported, waited: preparing.waited,
                                      sent: sent))
        return .startTransfer(transfer)
    }

    /// The HTTP cache answered the prepared request with a fresh stored `response`.
    mutating func cacheAnswered(_ response: HTTPResponse, trial: Bool) -> PreparedAction {
        guard case .preparing(let preparing) = state else { preconditionFailure("cacheAnswered in state \(state)") }
        let input = MappingInput(result: TransferResult(stored: response), refusedRedirect: nil, redirected: false,
                                 fromCache: true, revalidated: false, reported: preparing.reported)
        state = .mapping(input)
        return .map(input, record: .uncounted, trial: trial)
    }

    /// The attempt was not sent (`failure` says why); `trial` when the breaker had admitted
    /// it as its trial (a plugin refused it afterwards).
    mutating func prepareFailed(_ failure: PrepareFailure, trial: Bool) -> PreparedAction {
        guard case .preparing(let preparing) = state else { preconditionFailure("prepareFailed in state \(state)") }
        state = .finished
        switch failure {
        case .rateLimited(let limit, let retryAfter, let paused):
            let seconds = (retryAfter * 1000).rounded() / 1000
            let why = paused ? "is paused by a Retry-After for another \(seconds.formatted)s"
                : "is reached (a slot frees in \(seconds.formatted)s)"
            let what = attempts.isEmpty ? "nothing was sent" : "no retry was sent"
            if !attempts.isEmpty { attempts[attempts.count - 1].decision += "; the rate limit refused the retry" }
            return .fail(CallFailure(kind: .rateLimited, status: lastStatus, message: "the rate limit of \(limit) \(why); \(what)",
                                     response: preparing.reported, retryAfter: retryAfter), record: nil, trial: false)
        case .circuitOpen(let host, let wait):
            let seconds = (wait * 1000).rounded() / 1000
            let when = wait > 0 ? "the next trial in \(seconds.formatted)s" : "a trial call is running"
            let what = attempts.isEmpty ? "nothing was sent" : "no retry was sent"
            if !attempts.isEmpty { attempts[attempts.count - 1].decision += "; the open circuit breaker refused the retry" }
            let message = "the circuit breaker for \(host) is open (\(when)); \(what)"
            return .fail(CallFailure(kind: .circuitOpen, status: lastStatus, message: message,
                                     response: preparing.reported), record: nil, trial: false)
        case .plugin(let message):
            return .fail(CallFailure(kind: .plugin, status: 0, message: message, response: nil),
                         record: .uncounted, trial: trial)
        }
    }

    // MARK: Waiting for the rate limit

    enum RateLimitWaitAction {
        /// Schedule a timer of `seconds`, then `throttleTimerArmed`; `throttleElapsed` when it fires.
        case scheduleWait(Double)
    }

    /// The rate limit made attempt `n` wait `seconds` (from `elapsed` seconds into the call);
    /// `reserved` when the slot at the wait's end is the attempt's.
    mutating func rateLimitWait(_ seconds: Double, reserved: Bool, elapsed: Double) -> RateLimitWaitAction {
        guard case .preparing(let preparing) = state else { preconditionFailure("rateLimitWait in state \(state)") }
        state = .throttled(ThrottleState(attempt: preparing.attempt, reported: preparing.reported, reserved: reserved,
                                         since: elapsed, waited: preparing.waited))
        return .scheduleWait(seconds)
    }

    /// The wait's timer was scheduled (`id` for cancelling it).
    mutating func throttleTimerArmed(_ id: Int) {
        guard case .throttled(var throttle) = state else { preconditionFailure("throttleTimerArmed in state \(state)") }
        state = .modifying
        throttle.timer = id
        state = .throttled(throttle)
    }

    /// The wait for the rate limit ended, `elapsed` seconds into the call.
    mutating func throttleElapsed(elapsed: Double) -> PrepareAttemptAction {
        switch state {
        case .throttled(let throttle):
            state = .preparing(PreparingState(attempt: throttle.attempt, reported: throttle.reported,
                                              slotReserved: throttle.reserved,
                                              waited: throttle.waited + max(0, elapsed - throttle.since)))
            return .prepareAttempt(throttle.attempt)
        case .finished:
            return .none  // a stop came first (its timer was cancelled; a late firing is harmless)
        case .idle, .preparing, .sending, .stopping, .reportingAttempt, .decidingRetry, .backingOff,
             .awaitingCredential, .mapping, .modifying:
            preconditionFailure("throttleElapsed in state \(state)")
        }
    }

    /// Whether the attempt being prepared already holds its rate limit's slot (the driver
    /// then does not ask the limit again).
    var slotReserved: Bool {
        if case .preparing(let preparing) = state { return preparing.slotReserved }
        return false
    }

    // MARK: Sending

    /// The next hop's transfer started (after `followRedirect`).
    mutating func hopStarted(_ transfer: Transfer) {
        guard case .sending(let attempt) = state else { preconditionFailure("hopStarted in state \(state)") }
        state = .modifying
        attempt.sent.transfer = transfer
        state = .sending(attempt)
    }

    /// The transfer in flight, to resume its paused body; nil when none is.
    var transferInFlight: Transfer? {
        if case .sending(let attempt) = state { return attempt.sent.transfer }
        return nil
    }

    enum TransferFinishedAction {
        /// Run the plugins' `willSend` for `request`, start its transfer with `options`, then
        /// `hopStarted`.
        case followRedirect(request: HTTPRequest, options: TransferOptions, context: PluginContext, attempt: Int,
                            startOffset: Double)
        /// The attempt ended: give `report` to the plugins, the monitors, the resilience
        /// recorder and the cache, then `attemptReported`.
        case reportAttempt(AttemptReport)
    }

    /// An ended attempt, as the driver reports it.
    struct AttemptReport {
        let attempt: Attempt
        /// The last hop's response as received (before the cache's revalidation).
        let response: HTTPResponse?
        /// After redirects, the last hop's own timings (``Attempt/timings`` adds up every hop's);
        /// nil when the attempt had one request.
        let lastHop: TransferTimings?
        let context: PluginContext
        let record: ResilienceOutcome
        let trial: Bool
        /// The cache's part when the cache takes the response: the request, its lookup, and
        /// whether the response came without a redirect.
        let cache: (exchange: CacheExchange, request: HTTPRequest, direct: Bool)?
    }

    /// A transfer of the attempt in flight ended with `hop`. The driver gives the facts it
    /// read off the hop: `redirect`, the policy's decision on its response; `elapsed`,
    /// seconds into the call; `deadlinePassed`, whether the call's deadline has passed (a
    /// `timeout` is then the deadline's); `leftOrigin`, whether a 401 came from another
    /// origin than the call's (not the credential's to answer).
    mutating func transferFinished(_ hop: consuming TransferResult, redirect: RedirectDecision, elapsed: Double,
                                   deadlinePassed: Bool, leftOrigin: Bool) -> TransferFinishedAction {
        var attempt: AttemptState
        var cutShort: ErrorKind?
        switch state {
        case .sending(let inFlight):
            attempt = inFlight
        case .stopping(let inFlight, let kind):
            attempt = inFlight
            cutShort = kind
        case .idle, .preparing, .throttled, .reportingAttempt, .decidingRetry, .backingOff, .awaitingCredential, .mapping,
             .finished, .modifying:
            preconditionFailure("transferFinished in state \(state): no transfer is in flight")
        }
        state = .modifying
        if cutShort == nil {
            switch redirect {
            case .follow(let next):
                attempt.hops.append(RedirectHop(status: hop.response?.status ?? 0, url: attempt.sent.context.redactor.url(next.url)))
                attempt.earlier.timings.add(hop.timings)
                attempt.earlier.bytesSent += hop.bytesSent
                var options = attempt.sent.options
                if let timeout = options.timeout {
                    options.timeout = max(0.001, timeout - (elapsed - attempt.sent.startOffset))
                }
                attempt.sent.request = next
                let action = TransferFinishedAction.followRedirect(
                    request: next, options: options, context: attempt.sent.context, attempt: attempt.number,
                    startOffset: attempt.sent.startOffset)
                state = .sending(attempt)
                return action
            case .refuse(let reason):
                attempt.refusedRedirect = "redirect not followed: \(hop.response?.status ?? 0) to "
                    + "\(attempt.sent.context.redactor.url(hop.response?.redirectURL ?? "")): \(reason)"
            case .final:
                break
            }
        }
        var result = hop  // the whole chain: the last hop's outcome, with every hop's time and bytes
        let redirected = !attempt.hops.isEmpty
        let lastHop = redirected ? result.timings : nil
        if redirected {
            result.timings.add(attempt.earlier.timings)
            result.bytesSent += attempt.earlier.bytesSent
        }
        if result.error?.kind == .timeout, deadlinePassed {
            result.error?.kind = .deadline  // the attempt was cut short by the call's deadline
        }
        let status = result.response?.status ?? 0
        let error = result.error
        // The wait for the rate limit is the attempt's, as time queued before it went out.
        result.timings.queued += attempt.waited
        result.timings.total += attempt.waited
        let startOffset = attempt.sent.startOffset - attempt.waited
        let record = Attempt(number: attempt.number, startOffset: startOffset, duration: elapsed - startOffset, status: status, errorKind: error?.kind,
                             curlCode: error?.curlCode ?? 0, message: error?.message, timings: result.timings,
                             bytesSent: result.bytesSent, bytesReceived: result.bytesReceived, delayAfter: nil,
                             decision: "", redirects: attempt.hops)
        attempts.append(record)  // its decision is written once known
        var cache: (exchange: CacheExchange, request: HTTPRequest, direct: Bool)?
        if let exchange = attempt.sent.cache, error == nil, result.response != nil {
            cache = (exchange, attempt.sent.request, !redirected)
        }
        let report = AttemptReport(attempt: record, response: result.response, lastHop: lastHop, context: attempt.sent.context,
                                   record: ResilienceOutcome(errorKind: error?.kind, status: status,
                                                             cutShort: cutShort != nil),
                                   trial: attempt.sent.trial, cache: cache)
        state = .reportingAttempt(EndedAttempt(
            number: attempt.number, reported: attempt.reported, result: result, request: attempt.sent.request,
            sentAt: attempt.sent.sentAt, redirected: redirected, refusedRedirect: attempt.refusedRedirect,
            unauthorized: status == 401 && hasCredential && !leftOrigin, cutShort: cutShort))
        return .reportAttempt(report)
    }

    // MARK: After an attempt

    enum AttemptReportedAction {
        /// Ask the retry layer about `outcome` (its `elapsed` is the driver's); then `retryDecided`.
        case decideRetry(AttemptOutcome, previousDelay: Double?)
        /// Ask the refreshing credential about the 401 of `request` (sent at `sentAt`); then
        /// `credentialAsked` and, once it answers, `credentialAnswered`.
        case askCredential(request: HTTPRequest, sentAt: Double)
        /// Map the final response; then `mappingOffloaded` or `mappingFinished`.
        case map(MappingInput)
        /// Fail the call (terminal).
        case fail(CallFailure)
    }

    /// The driver reported the ended attempt; `response` is its response as the cache left it
    /// (a 304 to a revalidation becomes the stored response, `revalidated`).
    mutating func attemptReported(response: consuming HTTPResponse?, revalidated: Bool,
                                  elapsed: Double) -> AttemptReportedAction {
        guard case .reportingAttempt(let ended) = state else { preconditionFailure("attemptReported in state \(state)") }
        state = .modifying
        ended.result.response = response
        ended.revalidated = revalidated
        let last = attempts.count - 1
        if let kind = ended.cutShort {
            state = .finished
            attempts[last].decision = Self.stopMessage(kind)
            return .fail(CallFailure(kind: kind, status: attempts[last].status, message: Self.stopMessage(kind),
                                     response: ended.result.response))
        }
        if ended.unauthorized, !askedCredential {
            askedCredential = true
            attempts[last].decision = "401: asking the credential"
            let action = AttemptReportedAction.askCredential(request: ended.request, sentAt: ended.sentAt)
            state = .awaitingCredential(CredentialState(ended: ended))
            return action
        }
        guard ended.result.error != nil || attempts[last].status >= 400 else {
            let input = Self.input(ended)
            state = .mapping(input)
            return .map(input)
        }
        let outcome = AttemptOutcome(attempt: ended.number, status: attempts[last].status,
                                     errorKind: ended.result.error?.kind,
                                     headers: ended.result.response?.headers ?? HTTPHeaders(), elapsed: elapsed,
                                     requestSent: ended.result.requestSent)
        state = .decidingRetry(ended)
        return .decideRetry(outcome, previousDelay: last > 0 ? attempts[last - 1].delayAfter : nil)
    }

    private static func input(_ ended: EndedAttempt) -> MappingInput {
        MappingInput(result: ended.result, refusedRedirect: ended.refusedRedirect, redirected: ended.redirected,
                     fromCache: ended.revalidated, revalidated: ended.revalidated, reported: ended.reported)
    }

    private var lastStatus: Int { attempts.last?.status ?? 0 }

    // MARK: Retrying

    enum RetryDecidedAction {
        /// Emit `retryScheduled` for the last attempt, schedule the delay (seconds), then
        /// `retryTimerArmed`; `delayElapsed` when it passes.
        case scheduleRetry(delay: Double, reason: String, attempt: Attempt)
        /// Map the failed attempt's response (the call ends with it).
        case map(MappingInput)
        /// Fail the call (terminal).
        case fail(CallFailure)
        /// Nothing: the call was stopped while the retry layer decided.
        case none
    }

    /// The retry layer's verdict on the failed attempt; `bodySinkRefusal` says why the
    /// call's body sink refuses any retry (body bytes already reached a chunk consumer,
    /// which cannot take them back), or nil. A refused retry stops with the attempt's result.
    mutating func retryDecided(_ verdict: RetryPolicy.CallVerdict, bodySinkRefusal: String?) -> RetryDecidedAction {
        let ended: EndedAttempt
        switch state {
        case .decidingRetry(let decided):
            ended = decided
        case .finished:
            return .none  // stopped meanwhile
        case .idle, .preparing, .throttled, .sending, .stopping, .reportingAttempt, .backingOff, .awaitingCredential, .mapping,
             .modifying:
            preconditionFailure("retryDecided in state \(state)")
        }
        let last = attempts.count - 1
        switch verdict {
        case .retry(let delay, let reason):
            if let bodySinkRefusal { return stopRetrying(ended, reason: bodySinkRefusal) }
            attempts[last].delayAfter = delay
            attempts[last].decision = reason
            state = .backingOff(BackoffState(next: ended.number + 1, reported: ended.result.response))
            return .scheduleRetry(delay: delay, reason: reason, attempt: attempts[last])
        case .stop(let reason):
            return stopRetrying(ended, reason: reason)
        case .failDeadline(let reason):
            attempts[last].decision = reason
            state = .finished
            return .fail(CallFailure(kind: .deadline, status: attempts[last].status,
                                     message: "the call's deadline would pass before the next attempt (\(reason))",
                                     response: ended.result.response))
        }
    }

    private mutating func stopRetrying(_ ended: EndedAttempt, reason: String) -> RetryDecidedAction {
        attempts[attempts.count - 1].decision = reason
        let input = Self.input(ended)
        state = .mapping(input)
        return .map(input)
    }

    /// The retry delay's timer was scheduled (`id` for cancelling it).
    mutating func retryTimerArmed(_ id: Int) {
        guard case .backingOff(var backoff) = state else { preconditionFailure("retryTimerArmed in state \(state)") }
        state = .modifying
        backoff.timer = id
        state = .backingOff(backoff)
    }

    /// The retry delay passed.
    mutating func delayElapsed() -> PrepareAttemptAction {
        switch state {
        case .backingOff(let backoff):
            state = .preparing(PreparingState(attempt: backoff.next, reported: backoff.reported))
            return .prepareAttempt(backoff.next)
        case .finished:
            return .none  // a stop came first (its timer was cancelled; a late firing is harmless)
        case .idle, .preparing, .throttled, .sending, .stopping, .reportingAttempt, .decidingRetry, .awaitingCredential, .mapping,
             .modifying:
            preconditionFailure("delayElapsed in state \(state)")
        }
    }

    // MARK: The credential

    /// The credential was asked; `closeObserver` ends the call if the loop closes first.
    mutating func credentialAsked(closeObserver: Int) {
        guard case .awaitingCredential(var waiting) = state else { preconditionFailure("credentialAsked in state \(state)") }
        state = .modifying
        waiting.closeObserver = closeObserver
        state = .awaitingCredential(waiting)
    }

    enum CredentialAnsweredAction {
        /// Replay: prepare attempt `n` (after releasing `waits`).
        case prepareAttempt(Int, release: Waits)
        /// Keep the 401: map it.
        case map(MappingInput, release: Waits)
        /// Fail the call with kind `auth` (terminal).
        case fail(CallFailure, release: Waits)
        /// Nothing: the call was stopped while the credential refreshed.
        case none
    }

    mutating func credentialAnswered(_ verdict: RefreshingCredential.Verdict) -> CredentialAnsweredAction {
        let waiting: CredentialState
        switch state {
        case .awaitingCredential(let asked):
            waiting = asked
        case .finished:
            return .none  // stopped meanwhile
        case .idle, .preparing, .throttled, .sending, .stopping, .reportingAttempt, .decidingRetry, .backingOff, .mapping,
             .modifying:
            preconditionFailure("credentialAnswered in state \(state)")
        }
        let last = attempts.count - 1
        let release = Waits(closeObserver: waiting.closeObserver)
        let ended = waiting.ended
        switch verdict {
        case .replay:
            attempts[last].decision = "401: replayed with the refreshed credential"
            state = .preparing(PreparingState(attempt: ended.number + 1, reported: ended.reported))
            return .prepareAttempt(ended.number + 1, release: release)
        case .fail(let message):
            attempts[last].decision = "401: " + message
            state = .finished
            return .fail(CallFailure(kind: .auth, status: 401, message: message, response: ended.result.response),
                         release: release)
        case .keep(let reason):
            attempts[last].decision = "401: " + reason
            let input = Self.input(ended)
            state = .mapping(input)
            return .map(input, release: release)
        }
    }

    // MARK: Mapping

    /// The body went to the worker pool (too large to map on the loop); `closeObserver`
    /// ends the call if the loop closes before the outcome comes back.
    mutating func mappingOffloaded(closeObserver: Int) {
        guard case .mapping(let input) = state else { preconditionFailure("mappingOffloaded in state \(state)") }
        input.reported = input.result.response
        input.closeObserver = closeObserver
    }

    enum MappingFinishedAction {
        /// Complete the call with the mapped `input` (terminal: the mapping outcome decides
        /// between success and a mapping or status failure).
        case complete(MappingInput, release: Waits)
        /// Nothing: the call was stopped while a worker mapped.
        case none
    }

    mutating func mappingFinished() -> MappingFinishedAction {
        switch state {
        case .mapping(let input):
            state = .finished
            return .complete(input, release: Waits(closeObserver: input.closeObserver))
        case .finished:
            return .none  // stopped meanwhile
        case .idle, .preparing, .throttled, .sending, .stopping, .reportingAttempt, .decidingRetry, .backingOff,
             .awaitingCredential, .modifying:
            preconditionFailure("mappingFinished in state \(state)")
        }
    }

    // MARK: Stopping

    enum StopAction {
        /// Abort the transfer in flight; its completion (`transferFinished`) fails the call.
        case abortTransfer(Transfer, ErrorKind)
        /// Fail the call (terminal), releasing `waits`.
        case fail(CallFailure, release: Waits)
        /// Nothing: the call already ended, or is already stopping.
        case none
    }

    /// Cancel (`cancelled`, also a closing loop) or the call's deadline (`deadline`).
    mutating func stop(_ kind: ErrorKind) -> StopAction {
        let failure = CallFailure(kind: kind, status: lastStatus, message: Self.stopMessage(kind), response: nil)
        switch state {
        case .idle:
            state = .finished
            return .fail(failure, release: Waits())
        case .preparing(let preparing):
            state = .finished
            return .fail(failure.reporting(preparing.reported), release: Waits())
        case .throttled(let throttle):
            state = .finished
            return .fail(failure.reporting(throttle.reported),
                         release: Waits(admissionTimer: throttle.timer, reservedSlot: throttle.reserved))
        case .sending(let attempt):
            state = .stopping(attempt, kind)
            return .abortTransfer(attempt.sent.transfer, kind)
        case .stopping:
            return .none  // the first stop's abort ends the call
        case .reportingAttempt(let ended):
            state = .modifying
            ended.cutShort = ended.cutShort ?? kind  // `attemptReported` fails the call
            state = .reportingAttempt(ended)
            return .none
        case .decidingRetry(let ended):
            state = .finished
            return .fail(failure.reporting(ended.result.response), release: Waits())
        case .backingOff(let backoff):
            state = .finished
            return .fail(failure.reporting(backoff.reported), release: Waits(retryTimer: backoff.timer))
        case .awaitingCredential(let waiting):
            state = .finished
            return .fail(failure.reporting(waiting.ended.reported), release: Waits(closeObserver: waiting.closeObserver))
        case .mapping(let input):
            state = .finished
            return .fail(failure.reporting(input.reported), release: Waits(closeObserver: input.closeObserver))
        case .finished:
            return .none
        case .modifying:
            preconditionFailure("stop while a payload is being changed")
        }
    }
}

extension CallStateMachine.CallFailure {
    /// The failure reporting `response`.
    fileprivate func reporting(_ response: HTTPResponse?) -> Self {
        var failure = self
        failure.response = response
        return failure
    }
}
