/// One logical call on the event loop: it owns its attempts, its retry delays and its
/// deadline, and completes exactly once.
///
/// Every method runs on the client's event-loop thread (the state needs no lock):
/// `start` -> for each attempt: plugins' `prepare` (a header a plugin set that RFC 9110
/// forbids fails the call with kind `plugin`) -> plugins' `willSend` -> transfer -> for each
/// redirect the ``RedirectPolicy`` follows, `willSend` and a transfer of the next hop, in
/// the same attempt (`prepare` does not run again: see ``RedirectPolicy``) ->
/// plugins' `didReceive` (reverse order) -> on a 401 the refreshing credential (if any) may
/// replay the attempt once -> retry decision -> delay timer or finish; finish maps the
/// response, runs the plugins' `process` (reverse order), notifies the failure observers
/// (failures only) and then calls the completion. Event monitors see each step.
///
/// The one step that may leave the loop thread is parsing and mapping a body of at least
/// ``WorkerPool/offloadThreshold`` bytes: a worker computes the ``MappingOutcome`` and hands
/// it back with `loop.execute`; everything after it (plugins' `process`, observers, monitors,
/// the completion) runs on the loop thread as for a small body.
// @unchecked: every stored property is read and written on the loop thread only (see above);
// a worker-pool job holds a reference just to hand it back to the loop, never touching state.
// For the same reason the mutable state is `@exclusivity(unchecked)`: one thread, and no
// access overlaps another, so the run-time check (about 80 instructions each) is dropped.
final class Call: @unchecked Sendable {
    typealias Completion = @Sendable (Result<Response, GatewireError>) -> Void

    private let core: ClientCore
    @exclusivity(unchecked) private var prepared: PreparedRequest
    private let policy: RetryPolicy
    private let retryTest: RetryTest?
    private let timeouts: Timeouts
    private let redirects: RedirectPolicy
    private let maxResponseBytes: Int
    private let completion: Completion
    /// The retry jitter source; nil until the first retry decision when the client has no seed.
    @exclusivity(unchecked) private var generator: SeededGenerator?

    @exclusivity(unchecked) private var startTime = 0.0
    @exclusivity(unchecked) private var attempts: [Attempt] = []
    @exclusivity(unchecked) private var transfer: Transfer?
    @exclusivity(unchecked) private var delayTimer: Int?
    @exclusivity(unchecked) private var deadlineTimer: Int?
    @exclusivity(unchecked) private var stopKind: ErrorKind?
    @exclusivity(unchecked) private var finished = false
    private let callID: UInt64
    /// The path as sent with its secrets hidden: what results, errors and events report.
    private let reportedPath: String
    /// The request of the attempt in flight (what the credential signed).
    @exclusivity(unchecked) private var sentRequest: HTTPRequest?
    @exclusivity(unchecked) private var sentAt = 0.0
    /// Whether the credential already replayed this call once after a 401.
    @exclusivity(unchecked) private var authReplayed = false
    // Resilience: shared per-host state, and what this call holds of it.
    private let budget: RetryBudgetState?
    private let breaker: CircuitBreaker?
    @exclusivity(unchecked) private var holdsTrial = false
    @exclusivity(unchecked) private var lastResponse: HTTPResponse?
    // The attempt in flight's redirect chain: the hops followed, the transport options and
    // the timings and bytes of its earlier hops, and why a redirect was not followed.
    @exclusivity(unchecked) private var hops: [RedirectHop] = []
    @exclusivity(unchecked) private var attemptOptions = TransferOptions()
    @exclusivity(unchecked) private var earlierHops = (timings: TransferTimings(), bytesSent: Int64(0))
    @exclusivity(unchecked) private var refusedRedirect: String?

    init(core: ClientCore, prepared: PreparedRequest, options: CallOptions, completion: @escaping Completion) {
        self.core = core
        self.prepared = prepared
        let route = prepared.resolved  // the shared route, not a copy of its `Route`
        policy = options.retryPolicy(route: route?.route.retryPolicy, client: core.retryPolicy)
        retryTest = options.retryTest
        timeouts = options.timeouts ?? core.timeouts
        redirects = options.redirectPolicy ?? route?.route.redirectPolicy ?? core.config.redirectPolicy
        maxResponseBytes = options.maxResponseBytes ?? route?.route.maxResponseBytes ?? core.config.maxResponseBytes
        self.completion = completion
        generator = core.makeGenerator()
        callID = core.nextCallID()
        reportedPath = core.redactor.url(prepared.path)
        let budgetPolicy = options.retryBudget ?? route?.route.retryBudget ?? core.config.retryBudget
        let breakerPolicy = options.circuitBreaker ?? route?.route.circuitBreaker ?? core.config.circuitBreaker
        if budgetPolicy.isEnabled || breakerPolicy.isEnabled {
            let host = ResilienceState.host(of: prepared.url)
            budget = core.resilience.budget(host: host, budgetPolicy)
            breaker = core.resilience.breaker(host: host, breakerPolicy)
        } else {
            budget = nil  // both off (the default): no host key to compute
            breaker = nil
        }
        if policy.idempotencyKey, !prepared.method.isIdempotent, !prepared.headers.contains(IdempotencyKey.headerName) {
            self.prepared.headers.set(IdempotencyKey.headerName, IdempotencyKey.generate())
        }
    }

    private func event(_ kind: CallEvent.Kind, attempt: Int, status: Int = 0, errorKind: ErrorKind? = nil,
                       delay: Double? = nil, record: Attempt? = nil) -> CallEvent {
        CallEvent(kind: kind, callID: callID, method: prepared.method, path: reportedPath, attempt: attempt,
                  elapsed: elapsed, status: status, errorKind: errorKind, delay: delay, record: record)
    }

    // MARK: Lifecycle (loop thread)

    func start() {
        startTime = MonotonicClock.now()
        core.events.emit(event(.callStarted, attempt: 0))
        if let deadline = timeouts.deadline {
            deadlineTimer = core.loop.schedule(after: deadline) { [self] fired in
                deadlineTimer = nil
                stop(fired ? .deadline : .cancelled)
            }
        }
        startAttempt()
    }

    /// Stops the call at once with `kind` (`cancelled` or `deadline`): aborts the attempt in
    /// flight or drops the pending delay; no attempt starts after it.
    func stop(_ kind: ErrorKind) {
        guard !finished, stopKind == nil else { return }
        stopKind = kind
        if let transfer {
            // The transfer's completion (below) sees `stopKind` and finishes the call.
            core.loop.abort(transfer, with: TransportError(kind: kind, curlCode: 0, message: Self.stopMessage(kind)))
        } else {
            if let delayTimer { core.loop.cancelTimer(delayTimer) }
            delayTimer = nil
            fail(kind: kind, status: attempts.last?.status ?? 0, message: Self.stopMessage(kind), response: lastResponse)
        }
    }

    private static func stopMessage(_ kind: ErrorKind) -> String {
        kind == .deadline ? "the call's deadline passed" : "the call was cancelled"
    }

    private var elapsed: Double { MonotonicClock.now() - startTime }

    private var remaining: Double? { timeouts.deadline.map { max(0, $0 - elapsed) } }

    private func startAttempt() {
        let number = attempts.count + 1
        if let breaker {
            switch breaker.acquire(now: MonotonicClock.now()) {
            case .allowed(let trial):
                holdsTrial = trial
            case .rejected(let wait):
                // A refused retry keeps what the call had: the last attempt's status and response.
                let host = ResilienceState.host(of: prepared.url)
                let seconds = (wait * 1000).rounded() / 1000
                let when = wait > 0 ? "the next trial in \(seconds.formatted)s" : "a trial call is running"
                let what = attempts.isEmpty ? "nothing was sent" : "no retry was sent"
                if !attempts.isEmpty { attempts[attempts.count - 1].decision += "; the open circuit breaker refused the retry" }
                return fail(kind: .circuitOpen, status: attempts.last?.status ?? 0,
                            message: "the circuit breaker for \(host) is open (\(when)); \(what)",
                            response: lastResponse)
            }
        }
        var request = HTTPRequest(method: prepared.method, url: prepared.url, headers: prepared.headers,
                                  body: prepared.body)
        let context = PluginContext(method: prepared.method, path: prepared.path, route: prepared.route, attempt: number,
                                    callID: callID, redactor: core.redactor)
        for plugin in core.plugins {
            do {
                try plugin.prepare(&request, context: context)
            } catch {
                return fail(kind: .plugin, status: 0, message: "plugin \(plugin.name) failed: \(error)")
            }
            if let problem = request.headers.problem {  // a plugin's header is checked like a caller's
                return fail(kind: .plugin, status: 0, message: "plugin \(plugin.name) set an invalid \(problem)")
            }
            if let problem = request.method.bodyProblem(hasBody: request.body != nil) {  // and its method and body
                return fail(kind: .plugin, status: 0, message: "plugin \(plugin.name) set a body: \(problem)")
            }
        }
        for plugin in core.plugins { plugin.willSend(request, context: context) }
        sentAt = MonotonicClock.now()
        core.events.emit(event(.attemptStarted, attempt: number))
        hops = []
        earlierHops = (TransferTimings(), 0)
        refusedRedirect = nil
        var options = core.transferOptions
        options.connectTimeout = timeouts.connect
        options.maxResponseBytes = maxResponseBytes
        options.freshConnection = !policy.allowsRetryAfterSending(prepared.method,
                                                                  hasIdempotencyKey: prepared.headers.contains("Idempotency-Key"))
        // The deadline timer ends the call (kind `deadline`); libcurl's own timeout is the
        // attempt's, or a safety net just past the deadline when that comes first.
        if let remaining, remaining < timeouts.attempt ?? .infinity {
            options.timeout = remaining + 0.25
        } else {
            options.timeout = timeouts.attempt
        }
        attemptOptions = options
        send(request, number: number, offset: elapsed, context: context)
    }

    /// Sends one request of attempt `number` (its first, or a redirect's next hop), which
    /// started `offset` seconds into the call: a hop gets what is left of the attempt's timeout.
    private func send(_ request: HTTPRequest, number: Int, offset: Double, context: PluginContext) {
        var options = attemptOptions
        if !hops.isEmpty, let timeout = options.timeout { options.timeout = max(0.001, timeout - (elapsed - offset)) }
        sentRequest = request
        let transfer = Transfer(request: request, options: options) { [self] result in
            attemptFinished(result, number: number, offset: offset, context: context)
        }
        self.transfer = transfer
        core.loop.start(transfer)
    }

    /// Follows a redirect the policy allows (a new hop of the same attempt: true), or notes
    /// why it refused one for the failure ``finish(_:outcome:)`` reports.
    private func followsRedirect(_ result: TransferResult, number: Int, offset: Double, context: PluginContext) -> Bool {
        guard stopKind == nil, result.error == nil, let response = result.response, let request = sentRequest else {
            return false
        }
        switch redirects.decide(after: request, status: response.status, location: response.redirectURL,
                                followed: hops.count, secrets: core.redactor) {
        case .final:
            return false
        case .refuse(let reason):
            refusedRedirect = "redirect not followed: \(response.status) to "
                + "\(core.redactor.url(response.redirectURL ?? "")): \(reason)"
            return false
        case .follow(let next):
            hops.append(RedirectHop(status: response.status, url: core.redactor.url(next.url)))
            earlierHops.timings.add(result.timings)
            earlierHops.bytesSent += result.bytesSent
            for plugin in core.plugins { plugin.willSend(next, context: context) }
            send(next, number: number, offset: offset, context: context)
            return true
        }
    }

    private func attemptFinished(_ hop: TransferResult, number: Int, offset: Double, context: PluginContext) {
        transfer = nil
        if followsRedirect(hop, number: number, offset: offset, context: context) { return }
        var result = hop  // the whole chain: the last hop's outcome, with every hop's time and bytes
        if !hops.isEmpty {
            result.timings.add(earlierHops.timings)
            result.bytesSent += earlierHops.bytesSent
        }
        let response = result.response  // one copy for every use below
        var error = result.error
        if error?.kind == .timeout, let deadline = timeouts.deadline, elapsed >= deadline {
            error?.kind = .deadline  // the attempt was cut short by the call's deadline
        }
        var attempt = Attempt(number: number, startOffset: offset, duration: elapsed - offset,
                              status: response?.status ?? 0, errorKind: error?.kind,
                              curlCode: error?.curlCode ?? 0, message: error?.message, timings: result.timings,
                              bytesSent: result.bytesSent, bytesReceived: result.bytesReceived, delayAfter: nil,
                              decision: "", redirects: hops)
        for plugin in core.plugins.reversed() {
            plugin.didReceive(attempt, response: response, context: context)
        }
        core.events.emit(event(.attemptFinished, attempt: number, status: attempt.status, errorKind: attempt.errorKind,
                               record: attempt))
        recordForResilience(attempt)
        if let stopKind {
            attempt.decision = Self.stopMessage(stopKind)
            attempts.append(attempt)
            return fail(kind: stopKind, status: attempt.status, message: Self.stopMessage(stopKind), response: response)
        }
        if attempt.status == 401, !authReplayed, let credential = core.credential, !leftOrigin {
            return awaitCredential(credential, attempt: attempt, result: result)
        }
        let failed = error != nil || attempt.status >= 400
        guard failed else {
            attempts.append(attempt)
            return finish(result)
        }
        let outcome = AttemptOutcome(attempt: number, status: attempt.status, errorKind: error?.kind,
                                     headers: response?.headers ?? HTTPHeaders(), elapsed: elapsed,
                                     requestSent: result.requestSent)
        var jitter = generator ?? SeededGenerator()
        var (decision, cause) = policy.decideWithCause(
            method: prepared.method, outcome: outcome, test: retryTest,
            hasIdempotencyKey: prepared.headers.contains("Idempotency-Key"), remaining: remaining, now: nil,
            previousDelay: attempts.last?.delayAfter, using: &jitter)
        generator = jitter
        if decision.isRetry, let budget, !budget.allowsRetry {
            let host = ResilienceState.host(of: prepared.url)
            decision = .stop(reason: "the retry budget for \(host) is spent (\(budget.tokens.formatted) of "
                + "\(budget.budget.maxTokens.formatted) tokens; retries need more than half)")
        }
        if case .stop(let reason) = decision, cause == .deadline {
            attempt.decision = reason
            attempts.append(attempt)
            let message = "the call's deadline would pass before the next attempt (\(reason))"
            return fail(kind: .deadline, status: attempt.status, message: message, response: response)
        }
        switch decision {
        case .retry(let delay, let reason):
            attempt.delayAfter = delay
            attempt.decision = reason
            attempts.append(attempt)
            lastResponse = response
            core.events.emit(event(.retryScheduled, attempt: number, status: attempt.status,
                                   errorKind: attempt.errorKind, delay: delay))
            delayTimer = core.loop.schedule(after: delay) { [self] fired in
                delayTimer = nil
                if fired { startAttempt() } else { stop(.cancelled) }
            }
        case .stop(let reason):
            attempt.decision = reason
            attempts.append(attempt)
            finish(result)
        }
    }

    /// Whether the attempt's redirects ended at another origin than the call's URL: a 401
    /// from there is not the credential's to answer (it was never sent there).
    private var leftOrigin: Bool {
        guard !hops.isEmpty, let sentRequest else { return false }
        return URLOrigin(sentRequest.url) != URLOrigin(prepared.url)
    }

    /// Feeds an attempt's outcome to the host's retry budget and circuit breaker.
    private func recordForResilience(_ attempt: Attempt) {
        let cutShort = stopKind != nil || attempt.errorKind == .deadline || attempt.errorKind == .cancelled
        let transportFailure = attempt.errorKind.map { $0.isTransport } ?? false
        if let budget, !cutShort {
            if transportFailure || policy.retryableStatusCodes.contains(attempt.status) {
                budget.recordFailure()
            } else if attempt.errorKind == nil, attempt.status < 400 {
                budget.recordSuccess()
            }
        }
        if let breaker {
            let failed: Bool? = cutShort ? nil
                : transportFailure || breaker.policy.failureStatusCodes.contains(attempt.status)
            breaker.record(failed: failed, trial: holdsTrial, now: MonotonicClock.now())
            holdsTrial = false
        }
    }

    // MARK: Authentication

    /// After a 401: asks the credential whether to replay (once per call). While it refreshes,
    /// a far-off timer stands in for the call's pending work, so `stop` and a loop shutdown
    /// end the call as they would end a retry delay.
    private func awaitCredential(_ credential: RefreshingCredential, attempt: Attempt, result: TransferResult) {
        authReplayed = true
        var attempt = attempt
        attempt.decision = "401: asking the credential"
        attempts.append(attempt)
        delayTimer = core.loop.schedule(after: 366 * 86_400) { [self] fired in
            delayTimer = nil
            stop(fired ? .deadline : .cancelled)
        }
        let loop = core.loop
        let signed = sentRequest?.headers[credential.header]
        credential.unauthorized(signedWith: signed, sentAt: sentAt) { [self] verdict in
            loop.execute { [self] in credentialAnswered(verdict, result: result) }
        }
    }

    private func credentialAnswered(_ verdict: RefreshingCredential.Verdict, result: TransferResult) {
        guard !finished, stopKind == nil else { return }
        if let delayTimer { core.loop.cancelTimer(delayTimer) }
        delayTimer = nil
        switch verdict {
        case .replay:
            attempts[attempts.count - 1].decision = "401: replayed with the refreshed credential"
            startAttempt()
        case .fail(let message):
            attempts[attempts.count - 1].decision = "401: " + message
            fail(kind: .auth, status: 401, message: message, response: result.response)
        case .keep(let reason):
            attempts[attempts.count - 1].decision = "401: " + reason
            finish(result)
        }
    }

    // MARK: Finishing

    private func finish(_ result: TransferResult) {
        guard let response = result.response else {
            let error = result.error ?? TransportError(kind: .network, curlCode: 0, message: "no response")
            return fail(kind: error.kind, status: 0, message: error.message)
        }
        // `@metadata.url`: the call's URL, or after redirects the last hop's; the metadata
        // redacts it with the client's rule (a Location may carry what the caller never put
        // in the path).
        var mappable = MappableResponse(method: prepared.method, path: prepared.path, status: response.status,
                                        headers: response.headers, body: response.body,
                                        url: hops.isEmpty ? prepared.url : response.effectiveURL)
        mappable.redactor = core.redactor
        let mapper = core.catalog.responseMapper
        let triage = mapper.triage(mappable, readingJSONBody: prepared.readsJSONBody)
        guard triage.needsParse else { return finish(response, outcome: triage.outcome) }
        if response.body.count >= WorkerPool.offloadThreshold, !core.loop.isStopping {
            return mapOnWorker(triage, response: response)
        }
        finish(response, outcome: mapper.mapBody(of: triage))
    }

    /// Parses and maps a large body on the ``WorkerPool`` while the loop runs other calls;
    /// the outcome comes back to the loop thread (``mappingFinished(_:response:)``), where
    /// the call finishes as it would inline. The worker reads only the Sendable response and
    /// the read-only catalog, never the call's state.
    ///
    /// Meanwhile a far-off timer stands in for the pending work (as for a credential
    /// refresh): `stop` (cancel, the deadline) ends the call at once, and a closing loop
    /// fires the timer, so the call completes `cancelled` if the outcome cannot come back.
    /// Whichever comes first completes the call; the other finds it finished.
    private func mapOnWorker(_ triage: ResponseMapper.Triage, response: HTTPResponse) {
        lastResponse = response  // what a cancelled or timed-out call reports
        delayTimer = core.loop.schedule(after: 366 * 86_400) { [self] fired in
            delayTimer = nil
            stop(fired ? .deadline : .cancelled)
        }
        let mapper = core.catalog.responseMapper
        let loop = core.loop
        loop.offload { [self] home in
            let outcome = mapper.mapBody(of: triage).homed(home)
            // Refused once the loop is closing; its drain then fires the stand-in timer.
            loop.execute { [self] in mappingFinished(outcome, response: response) }
        }
    }

    private func mappingFinished(_ outcome: MappingOutcome, response: HTTPResponse) {
        guard !finished else { return }  // cancelled, past its deadline, or the loop closed first
        if let delayTimer { core.loop.cancelTimer(delayTimer) }
        delayTimer = nil
        finish(response, outcome: outcome)
    }

    private func finish(_ response: HTTPResponse, outcome: MappingOutcome) {
        if let mappingError = outcome.error {
            return fail(kind: .mapping, status: response.status, message: mappingError.description,
                        errorObjects: outcome.errorObjects, response: response)
        }
        guard outcome.accepted else {
            // A redirect the policy did not follow is the response: accepted when a response
            // descriptor lists its status, else a `redirect` failure that says why.
            if let refusedRedirect {
                return fail(kind: .redirect, status: response.status, message: refusedRedirect,
                            errorObjects: outcome.errorObjects, response: response)
            }
            return fail(kind: .httpStatus, status: response.status,
                        message: "status \(response.status) is not accepted", errorObjects: outcome.errorObjects,
                        response: response)
        }
        complete(.success(Response(method: prepared.method, path: reportedPath, http: response,
                                   mapped: outcome.mapped, pathParameters: outcome.pathParameters,
                                   attempts: attempts, json: outcome.json, metadata: outcome.metadata)))
    }

    private func fail(kind: ErrorKind, status: Int, message: String, errorObjects: JSONValue? = nil,
                      response: HTTPResponse? = nil) {
        let error = GatewireError(kind: kind, status: status, message: message, method: prepared.method,
                                  path: reportedPath, errorObjects: errorObjects,
                                  response: response, attempts: attempts)
        complete(.failure(error))
    }

    private func complete(_ result: consuming Result<Response, GatewireError>) {
        guard !finished else { return }
        finished = true
        if let deadlineTimer { core.loop.cancelTimer(deadlineTimer) }
        deadlineTimer = nil
        let context = PluginContext(method: prepared.method, path: prepared.path, route: prepared.route,
                                    attempt: attempts.count, callID: callID, redactor: core.redactor)
        for plugin in core.plugins.reversed() { result = plugin.process(result, context: context) }
        core.events.emit(finishedEvent(result))
        if case .failure(let failure) = result { core.observers.notify(failure) }
        completion(result)
    }

    /// The `callFinished` event of the call's final `result` (built only for event monitors).
    private func finishedEvent(_ result: borrowing Result<Response, GatewireError>) -> CallEvent {
        switch result {
        case .success(let response): event(.callFinished, attempt: attempts.count, status: response.status)
        case .failure(let failure): event(.callFinished, attempt: attempts.count, status: failure.status, errorKind: failure.kind)
        }
    }
}
