/// One logical call on the event loop: it owns its attempts, its retry delays and its
/// deadline, and completes exactly once.
///
/// ``CallStateMachine`` holds the phase and says, for each event, what to do next; this class
/// is its driver: it feeds the events and performs the actions. Every method runs on the
/// client's event-loop thread (the state needs no lock):
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
    private let acceptableStatusCodes: StatusCodeSet?
    /// Where a `2xx` body goes instead of memory (``BodySink``), or nil.
    private let sink: BodySinkSession?
    private let completion: Completion
    /// The retry jitter source; nil until the first retry decision when the client has no seed.
    @exclusivity(unchecked) private var generator: SeededGenerator?

    @exclusivity(unchecked) private var startTime = 0.0
    /// The phase, and for each event the next action (``CallStateMachine``).
    @exclusivity(unchecked) private var machine = CallStateMachine()
    @exclusivity(unchecked) private var attempts: [Attempt] = []
    @exclusivity(unchecked) private var transfer: Transfer?
    /// The retry delay's timer (phase `backingOff`).
    @exclusivity(unchecked) private var retryTimer: Int?
    /// While the credential or a worker has the call (phases `awaitingCredential` and an
    /// offloaded `mapping`): the loop's close observer, because a closing loop refuses their
    /// answer (`execute`) and its drain is then the only way to end the call.
    @exclusivity(unchecked) private var closeObserver: Int?
    @exclusivity(unchecked) private var deadlineTimer: Int?
    private let callID: UInt64
    /// The path as sent with its secrets hidden: what results, errors and events report.
    private let reportedPath: String
    /// The request of the attempt in flight (what the credential signed).
    @exclusivity(unchecked) private var sentRequest: HTTPRequest?
    @exclusivity(unchecked) private var sentAt = 0.0
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
    /// The client's HTTP cache when the call's route (else the config) uses it; what it made
    /// of the attempt in flight and when that request went out (wall clock); and whether the
    /// call's response came from it (``Response/fromCache``, ``Response/revalidated``).
    private let cache: HTTPCache?
    @exclusivity(unchecked) private var cacheLookup = HTTPCache.Lookup.bypass
    @exclusivity(unchecked) private var cacheRequestTime = 0.0
    @exclusivity(unchecked) private var cacheUse = (fromCache: false, revalidated: false)
    // The call's own listeners (``CallOptions/onEvent``, ``CallOptions/onProgress``), and the
    // final progress of the hop that just ended, reported once its attempt ends (Call+Progress).
    let onEvent: EventMonitor?
    let onProgress: ProgressHandler?
    @exclusivity(unchecked) var endedHopProgress: TransferProgress?

    init(core: ClientCore, prepared: PreparedRequest, options: CallOptions, sink: BodySinkSession? = nil,
         completion: @escaping Completion) {
        self.core = core
        self.prepared = prepared
        let route = prepared.resolved  // the shared route, not a copy of its `Route`
        policy = options.retryPolicy(route: route?.route.retryPolicy, client: core.retryPolicy)
        retryTest = options.retryTest
        timeouts = options.timeouts ?? core.timeouts
        redirects = options.redirectPolicy ?? route?.route.redirectPolicy ?? core.config.redirectPolicy
        maxResponseBytes = options.maxResponseBytes ?? route?.route.maxResponseBytes ?? core.config.maxResponseBytes
        acceptableStatusCodes = options.acceptableStatusCodes
        self.sink = sink
        self.completion = completion
        // A streamed body is neither stored nor served by the cache (docs/http-cache.md).
        cache = sink == nil && (route?.route.cache ?? (core.config.cache != nil)) ? core.cache : nil
        onEvent = options.onEvent
        onProgress = options.onProgress
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
                       delay: Double? = nil, reason: String? = nil, record: Attempt? = nil) -> CallEvent {
        CallEvent(kind: kind, callID: callID, method: prepared.method, path: reportedPath, attempt: attempt,
                  elapsed: elapsed, status: status, errorKind: errorKind, delay: delay, reason: reason, record: record)
    }

    // MARK: Driving the machine (loop thread)

    func start() {
        guard machine.phase == .idle else { return }  // stopped before it started
        startTime = MonotonicClock.now()
        core.events.emit(event(.callStarted, attempt: 0), to: onEvent)
        if let deadline = timeouts.deadline {
            deadlineTimer = core.loop.schedule(after: deadline) { [self] fired in
                deadlineTimer = nil
                stop(fired ? .deadline : .cancelled)
            }
        }
        perform(machine.handle(.start))
    }

    /// Stops the call at once with `kind` (`cancelled` or `deadline`): aborts the attempt in
    /// flight, or ends the retry delay, the credential's refresh or the worker's mapping; no
    /// attempt starts after it.
    func stop(_ kind: ErrorKind) {
        perform(machine.handle(.stop(kind)))
    }

    /// Lets the transfer in flight take body bytes again after its chunk consumer paused it
    /// (``ChunkVerdict/pause``); nothing when none is in flight.
    func resumeBody() { transfer?.resumeBody() }

    /// Performs an action that needs no more than `response` (the attempt's, for a failure
    /// that reports it). The others need the request or the result their event's handler
    /// holds, and are performed there.
    private func perform(_ action: CallStateMachine.Action, response: HTTPResponse? = nil) {
        switch action {
        case .none:
            return
        case .startAttempt(let number):
            startAttempt(number)
        case .abortTransfer(let kind):
            // The transfer's completion (`transferFinished`) then fails the call.
            if let transfer {
                core.loop.abort(transfer, with: TransportError(kind: kind, curlCode: 0, message: Self.stopMessage(kind)))
            }
        case .scheduleRetry(let delay):
            retryTimer = core.loop.schedule(after: delay) { [self] fired in
                retryTimer = nil
                perform(machine.handle(fired ? .delayElapsed : .stop(.cancelled)))
            }
        case .cancelRetryAndFail(let failure):
            if let retryTimer { core.loop.cancelTimer(retryTimer) }
            retryTimer = nil
            fail(failure, response: response)
        case .fail(let failure):
            fail(failure, response: response)
        case .send, .followRedirect, .decideRetry, .refreshCredential, .mapResponse, .complete:
            assertionFailure("\(action) is performed by the handler of the event that asked for it")
        }
    }

    private static func stopMessage(_ kind: ErrorKind) -> String {
        kind == .deadline ? "the call's deadline passed" : "the call was cancelled"
    }

    private var elapsed: Double { MonotonicClock.now() - startTime }

    private var remaining: Double? { timeouts.deadline.map { max(0, $0 - elapsed) } }

    // MARK: Attempts

    /// Phase `preparing(number)`: the breaker, the plugins' `prepare` and `willSend`, then the
    /// first transfer of attempt `number`.
    private func startAttempt(_ number: Int) {
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
                let message = "the circuit breaker for \(host) is open (\(when)); \(what)"
                return perform(machine.handle(.breakerRefused(message: message)))
            }
        }
        var request = HTTPRequest(method: prepared.method, url: prepared.url, headers: prepared.headers,
                                  body: prepared.body)
        request.parts = prepared.parts
        let context = PluginContext(method: prepared.method, path: prepared.path, route: prepared.route, attempt: number,
                                    callID: callID, redactor: core.redactor)
        for plugin in core.plugins {
            if let message = Self.prepare(&request, with: plugin, context: context) {
                return perform(machine.handle(.pluginRefused(message: message)))
            }
        }
        // The cache sees the request as it would go out (a plugin's Authorization and the
        // fields Vary names included): a fresh hit ends here, a revalidation adds its fields.
        if let cache {
            cacheRequestTime = WallClock.now()
            let loop = core.loop
            cacheLookup = cache.lookup(&request, jarCookies: { loop.cookies() }, maxBodyBytes: maxResponseBytes,
                                       now: cacheRequestTime)
            if case .fresh(let response) = cacheLookup { return serveFresh(response) }
        }
        sink?.prepare(&request)
        for plugin in core.plugins { plugin.willSend(request, context: context) }
        guard machine.handle(.requestReady) == .send else { return }
        sentAt = MonotonicClock.now()
        core.events.emit(event(.attemptStarted, attempt: number), to: onEvent)
        hops = []
        earlierHops = (TransferTimings(), 0)
        refusedRedirect = nil
        var options = core.transferOptions
        options.connectTimeout = timeouts.connect
        options.maxResponseBytes = maxResponseBytes
        options.freshConnection = !policy.allowsRetryAfterSending(prepared.method,
                                                                  hasIdempotencyKey: prepared.headers.contains(IdempotencyKey.headerName))
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

    /// A fresh stored response is the call's: nothing goes on the wire, so no attempt is
    /// recorded and no plugin's `willSend` or `didReceive` runs; it is mapped, processed and
    /// observed as a response that had just arrived. A breaker trial it held is given back.
    private func serveFresh(_ response: HTTPResponse) {
        if holdsTrial {
            breaker?.record(failed: nil, trial: true, now: MonotonicClock.now())
            holdsTrial = false
        }
        guard machine.handle(.requestReady) == .send, machine.handle(.transferFinished(.succeeded)) == .mapResponse
        else { return }
        cacheUse = (true, false)
        finish(TransferResult(stored: response))
    }

    /// Runs `plugin`'s `prepare` on `request`; returns why the call fails, or nil. A plugin's
    /// header, method and body are checked like a caller's: its header fields as it sets them
    /// (``HTTPHeaders``), so the verdict read here is the one check, and since the request
    /// entered valid, a bad field is this plugin's.
    private static func prepare(_ request: inout HTTPRequest, with plugin: any Plugin, context: PluginContext) -> String? {
        do {
            try plugin.prepare(&request, context: context)
        } catch {
            return "plugin \(plugin.name) failed: \(error)"
        }
        if let problem = request.headers.problem {
            return "plugin \(plugin.name) set an invalid \(problem)"
        }
        if let problem = request.method.bodyProblem(hasBody: request.hasBody) {
            return "plugin \(plugin.name) set a body: \(problem)"
        }
        if let problem = CStringRule.problem(request.url, what: "the URL") {
            return "plugin \(plugin.name) set a URL libcurl cannot take: \(problem)"
        }
        return nil
    }

    /// Sends one request of attempt `number` (its first, or a redirect's next hop), which
    /// started `offset` seconds into the call: a hop gets what is left of the attempt's timeout.
    private func send(_ request: HTTPRequest, number: Int, offset: Double, context: PluginContext) {
        var options = attemptOptions
        if !hops.isEmpty, let timeout = options.timeout { options.timeout = max(0.001, timeout - (elapsed - offset)) }
        sentRequest = request
        let transfer = Transfer(request: request, options: options, writer: sink?.writer) { [self] result in
            transferFinished(result, number: number, offset: offset, context: context)
        }
        self.transfer = transfer
        if onProgress != nil { transfer.progress = progressReporter(attempt: number) }
        core.loop.start(transfer)
    }

    /// The next hop's request when the redirect policy follows `result`'s response; otherwise
    /// nil, noting why it refused one for the failure ``finish(_:outcome:)`` reports.
    private func redirectTarget(of result: TransferResult) -> HTTPRequest? {
        guard result.error == nil, let response = result.response, let request = sentRequest else { return nil }
        switch redirects.decide(after: request, status: response.status, location: response.redirectURL,
                                followed: hops.count, secrets: core.redactor) {
        case .final:
            return nil
        case .refuse(let reason):
            refusedRedirect = "redirect not followed: \(response.status) to "
                + "\(core.redactor.url(response.redirectURL ?? "")): \(reason)"
            return nil
        case .follow(let next):
            return next
        }
    }

    /// A transfer of attempt `number` ended: the next hop of a redirect, or the attempt's end
    /// (plugins' `didReceive`, the event, the host's resilience state, then the machine).
    private func transferFinished(_ hop: TransferResult, number: Int, offset: Double, context: PluginContext) {
        transfer = nil
        if machine.stopping == nil, let next = redirectTarget(of: hop), machine.handle(.redirect) == .followRedirect {
            hops.append(RedirectHop(status: hop.response?.status ?? 0, url: core.redactor.url(next.url)))
            earlierHops.timings.add(hop.timings)
            earlierHops.bytesSent += hop.bytesSent
            for plugin in core.plugins { plugin.willSend(next, context: context) }
            endedHopProgress = nil  // the attempt goes on: its next hop counts from 0
            return send(next, number: number, offset: offset, context: context)
        }
        reportAttemptProgress()
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
        let attempt = Attempt(number: number, startOffset: offset, duration: elapsed - offset,
                              status: response?.status ?? 0, errorKind: error?.kind,
                              curlCode: error?.curlCode ?? 0, message: error?.message, timings: result.timings,
                              bytesSent: result.bytesSent, bytesReceived: result.bytesReceived, delayAfter: nil,
                              decision: "", redirects: hops)
        for plugin in core.plugins.reversed() {
            plugin.didReceive(attempt, response: response, context: context)
        }
        core.events.emit(event(.attemptFinished, attempt: number, status: attempt.status, errorKind: attempt.errorKind,
                               record: attempt), to: onEvent)
        recordForResilience(attempt)
        if let cache, error == nil, let final = response, let request = sentRequest {
            // A 304 to the cache's revalidation becomes the stored response (the attempt
            // keeps the 304 it was); a new response may be kept.
            let outcome = cache.received(final, to: request, lookup: cacheLookup, requestTime: cacheRequestTime,
                                         direct: hops.isEmpty)
            result.response = outcome.response
            cacheUse = (outcome.revalidated, outcome.revalidated)
        }
        let end: CallStateMachine.TransferEnd
        if attempt.status == 401, core.credential != nil, !leftOrigin {
            end = .unauthorized
        } else {
            end = error != nil || attempt.status >= 400 ? .failed : .succeeded
        }
        attempts.append(attempt)  // its decision is written below, once known
        switch machine.handle(.transferFinished(end)) {
        case .decideRetry:
            decideRetry(result, error: error)
        case .refreshCredential:
            awaitCredential(result)
        case .mapResponse:
            finish(result)
        case let action:
            perform(action, response: result.response)
        }
    }

    /// Asks the retry layer about the failed last attempt, writes its decision, then performs
    /// what the machine makes of it.
    private func decideRetry(_ result: TransferResult, error: TransportError?) {
        let last = attempts.count - 1
        let outcome = AttemptOutcome(attempt: attempts[last].number, status: attempts[last].status, errorKind: error?.kind,
                                     headers: result.response?.headers ?? HTTPHeaders(), elapsed: elapsed,
                                     requestSent: result.requestSent)
        var jitter = generator ?? SeededGenerator()
        let verdict = policy.decideForCall(
            method: prepared.method, outcome: outcome, test: retryTest,
            hasIdempotencyKey: prepared.headers.contains(IdempotencyKey.headerName), remaining: remaining,
            previousDelay: last > 0 ? attempts[last - 1].delayAfter : nil, budget: budget, url: prepared.url,
            bodySinkRefusal: sink?.refusesRetry, using: &jitter)
        generator = jitter
        switch verdict {
        case .retry(let delay, let reason):
            attempts[last].delayAfter = delay
            attempts[last].decision = reason
            lastResponse = result.response
            core.events.emit(event(.retryScheduled, attempt: attempts[last].number, status: attempts[last].status,
                                   errorKind: attempts[last].errorKind, delay: delay, reason: reason), to: onEvent)
        case .stop(let reason), .failDeadline(let reason):
            attempts[last].decision = reason
        }
        switch machine.handle(.retryDecided(verdict)) {
        case .mapResponse:
            finish(result)
        case let action:
            perform(action, response: result.response)
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
        let cutShort = machine.stopping != nil || attempt.errorKind == .deadline || attempt.errorKind == .cancelled
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

    /// Entering a wait outside the loop (the credential's refresh, a worker's mapping): a
    /// closing loop stops the call `cancelled`, as a cancel would (see `closeObserver`).
    private func observeClose() {
        closeObserver = core.loop.onClose { [self] in
            closeObserver = nil
            stop(.cancelled)
        }
    }

    /// Leaving that wait (its answer came back, or the call completed another way).
    private func stopObservingClose() {
        if let closeObserver { core.loop.removeCloseObserver(closeObserver) }
        closeObserver = nil
    }

    // MARK: Authentication

    /// Phase `awaitingCredential`: after a 401 the credential says whether to replay (the
    /// machine asks it once per call).
    private func awaitCredential(_ result: TransferResult) {
        guard let credential = core.credential else { return }  // `unauthorized` means there is one
        attempts[attempts.count - 1].decision = "401: asking the credential"
        observeClose()
        let loop = core.loop
        let signed = sentRequest?.headers[credential.header]
        credential.unauthorized(signedWith: signed, sentAt: sentAt) { [self] verdict in
            loop.execute { [self] in credentialAnswered(verdict, result: result) }
        }
    }

    private func credentialAnswered(_ verdict: RefreshingCredential.Verdict, result: TransferResult) {
        guard case .awaitingCredential = machine.phase else { return }  // stopped meanwhile
        stopObservingClose()
        let last = attempts.count - 1
        switch verdict {
        case .replay: attempts[last].decision = "401: replayed with the refreshed credential"
        case .fail(let message): attempts[last].decision = "401: " + message
        case .keep(let reason): attempts[last].decision = "401: " + reason
        }
        switch machine.handle(.credentialAnswered(verdict)) {
        case .mapResponse:
            finish(result)
        case let action:
            perform(action, response: result.response)
        }
    }

    // MARK: Finishing

    /// Phase `mapping`: maps the final response, on the loop or on the worker pool.
    private func finish(_ result: TransferResult) {
        guard let response = result.response else {
            guard machine.handle(.mappingFinished) == .complete else { return }
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
            _ = machine.handle(.mappingOffloaded)
            return mapOnWorker(triage, response: response)
        }
        finish(response, outcome: mapper.mapBody(of: triage))
    }

    /// Parses and maps a large body on the ``WorkerPool`` while the loop runs other calls;
    /// the outcome comes back to the loop thread (``mappingFinished(_:response:)``), where
    /// the call finishes as it would inline. The worker reads only the Sendable response and
    /// the read-only catalog, never the call's state. A stop meanwhile ends the call at once
    /// (the machine then ignores the outcome); a closing loop stops it through its close observer.
    private func mapOnWorker(_ triage: ResponseMapper.Triage, response: HTTPResponse) {
        lastResponse = response  // what a cancelled or timed-out call reports
        observeClose()
        let mapper = core.catalog.responseMapper
        let loop = core.loop
        loop.offload { [self] home in
            let outcome = mapper.mapBody(of: triage).homed(home)
            // Refused once the loop is closing; its drain then runs the call's close observer.
            loop.execute { [self] in mappingFinished(outcome, response: response) }
        }
    }

    private func mappingFinished(_ outcome: MappingOutcome, response: HTTPResponse) {
        guard machine.phase == .mapping else { return }  // cancelled, past its deadline, or the loop closed first
        stopObservingClose()
        finish(response, outcome: outcome)
    }

    private func finish(_ response: HTTPResponse, outcome: MappingOutcome) {
        guard machine.handle(.mappingFinished) == .complete else { return }
        if outcome.accepted, let acceptableStatusCodes, !acceptableStatusCodes.contains(response.status) {
            return fail(kind: .httpStatus, status: response.status,
                        message: "status \(response.status) is not accepted by the call (it accepts \(acceptableStatusCodes))",
                        response: response)
        }
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
                                   attempts: attempts, json: outcome.json, metadata: outcome.metadata,
                                   fromCache: cacheUse.fromCache, revalidated: cacheUse.revalidated)))
    }

    /// Fails the call as the machine's `failure` says; `response` is the attempt's (for a
    /// failure that reports it), otherwise the call reports the last retried response.
    private func fail(_ failure: CallStateMachine.Failure, response: HTTPResponse?) {
        let status = attempts.last?.status ?? 0
        switch failure {
        case .attemptCutShort(let kind):
            attempts[attempts.count - 1].decision = Self.stopMessage(kind)
            fail(kind: kind, status: status, message: Self.stopMessage(kind), response: response)
        case .stopped(let kind):
            fail(kind: kind, status: status, message: Self.stopMessage(kind), response: lastResponse)
        case .circuitOpen(let message):
            fail(kind: .circuitOpen, status: status, message: message, response: lastResponse)
        case .plugin(let message):
            fail(kind: .plugin, status: 0, message: message)
        case .deadlineBeforeRetry(let reason):
            let message = "the call's deadline would pass before the next attempt (\(reason))"
            fail(kind: .deadline, status: status, message: message, response: response)
        case .credential(let message):
            fail(kind: .auth, status: 401, message: message, response: response)
        }
    }

    private func fail(kind: ErrorKind, status: Int, message: String, errorObjects: JSONValue? = nil,
                      response: HTTPResponse? = nil) {
        let error = GatewireError(kind: kind, status: status, message: message, method: prepared.method,
                                  path: reportedPath, errorObjects: errorObjects,
                                  response: response, attempts: attempts)
        complete(.failure(error))
    }

    /// The one completion: every path reaches it through a terminal action of the machine.
    private func complete(_ result: consuming Result<Response, GatewireError>) {
        if let deadlineTimer { core.loop.cancelTimer(deadlineTimer) }
        deadlineTimer = nil
        stopObservingClose()
        let context = PluginContext(method: prepared.method, path: prepared.path, route: prepared.route,
                                    attempt: attempts.count, callID: callID, redactor: core.redactor)
        for plugin in core.plugins.reversed() { result = plugin.process(result, context: context) }
        sink?.complete(&result)
        core.events.emit(finishedEvent(result), to: onEvent)
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
