/// One logical call on the event loop: it owns its attempts, its retry delays and its
/// deadline, and completes exactly once.
///
/// ``CallStateMachine`` holds the call's state, and each state the data that exists in it
/// (the transfer in flight, the retry timer, the response a stop reports...); this class is
/// its driver: it feeds the events and performs the actions each event returns. Every method
/// runs on the client's event-loop thread (the state needs no lock):
/// `start` -> for each attempt: the rate limit (perhaps a wait for its slot), the circuit
/// breaker, plugins' `prepare` (a header a plugin set
/// that RFC 9110 forbids fails the call with kind `plugin`), the HTTP cache (a fresh hit is
/// the call's response) -> plugins' `willSend` -> transfer -> for each redirect the
/// ``RedirectPolicy`` follows, `willSend` and a transfer of the next hop, in the same attempt
/// (`prepare` does not run again: see ``RedirectPolicy``) -> plugins' `didReceive` (reverse
/// order), the host's resilience recorder and the cache -> on a 401 the refreshing
/// credential (if any) may replay the attempt once -> retry decision -> delay timer or
/// finish; finish maps the response, runs the plugins' `process` (reverse order), notifies
/// the failure observers (failures only) and then calls the completion. Event monitors see
/// each step.
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
    /// The request and every policy and limit of the call, resolved once (``ResolvedCall``).
    private let plan: ResolvedCall
    /// Where a `2xx` body goes instead of memory (``BodySink``), or nil.
    private let sink: BodySinkSession?
    private let completion: Completion
    private let callID: UInt64
    /// The path as sent with its secrets hidden: what results, errors and events report.
    private let reportedPath: String
    /// The host's retry budget and circuit breaker; nil when both are off (the default).
    private let resilience: (any ResilienceRecorder)?
    /// The rate limit of the call's host or route; nil when off (the default).
    private let rateGate: RateGate?
    /// The client's HTTP cache when the call's route (else the config) uses it.
    private let cache: HTTPCache?
    /// The call's spans and its attempts' `traceparent`; nil when telemetry is off and the
    /// caller gave no parent.
    private let trace: CallTrace?
    // The call's own listeners (``CallOptions/onEvent``, ``CallOptions/onProgress``).
    let onEvent: EventMonitor?
    let onProgress: ProgressHandler?

    /// The state, and for each event the next action (``CallStateMachine``).
    @exclusivity(unchecked) private var machine: CallStateMachine
    /// The retry jitter source; nil until the first retry decision when the client has no seed.
    @exclusivity(unchecked) private var generator: SeededGenerator?
    @exclusivity(unchecked) private var startTime = 0.0
    /// The call's deadline timer, from `start` to the completion.
    @exclusivity(unchecked) private var deadlineTimer: Int?
    /// The final progress of the hop that just ended, reported once its attempt ends (Call+Progress).
    @exclusivity(unchecked) var endedHopProgress: TransferProgress?
    /// Whether a shared breaker or rate limit decided or recorded for the call in process
    /// while its store failed (``Response/sharedStateLocal``).
    @exclusivity(unchecked) private var sharedStateLocal = false

    /// `plan` is moved into the call (consumed: a copy would retain each of its references).
    init(core: ClientCore, plan: consuming ResolvedCall, options: borrowing CallOptions, sink: BodySinkSession? = nil,
         completion: @escaping Completion) {
        self.core = core
        self.sink = sink
        self.completion = completion
        cache = plan.usesCache ? core.cache : nil
        onEvent = options.onEvent
        onProgress = options.onProgress
        generator = core.makeGenerator()
        callID = core.nextCallID()
        reportedPath = core.redactor.url(plan.prepared.path)
        if plan.retryBudget.isEnabled || plan.circuitBreaker.isEnabled {
            let host = ResilienceKey.host(of: plan.prepared.url)
            resilience = HostResilience(retryBudget: core.resilience.budget(host: host, plan.retryBudget),
                                        breaker: core.resilience.breaker(host: host, plan.circuitBreaker),
                                        retryableStatusCodes: plan.retryPolicy.retryableStatusCodes)
        } else {
            resilience = nil  // both off (the default): no host key to compute
        }
        rateGate = core.resilience.rateGate(url: plan.prepared.url, route: plan.prepared.route, plan.rateLimit)
        trace = core.telemetry.trace(for: plan, parent: options.traceParent, core: core)
        machine = CallStateMachine(hasCredential: core.credential != nil)
        self.plan = plan
    }

    /// Fails a call that could not be built (`error`: a bad request or option, the body
    /// sink's file, a closed client) through the machine and ``tell(_:observers:completion:)``,
    /// as every other failure: the observers, then `completion`. No attempt, plugin or event.
    static func failUnbuilt(_ error: GatewireError, core: ClientCore, completion: Completion) {
        var machine = CallStateMachine(hasCredential: false)
        switch machine.buildFailed(error) {
        case .fail(let error): tell(.failure(error), observers: core.observers, completion: completion)
        }
    }

    /// The one place a call's result leaves the library: the failure observers see a failure
    /// (exactly once per call), then the completion runs.
    private static func tell(_ result: consuming Result<Response, GatewireError>, observers: FailureObservers,
                             completion: Completion) {
        if case .failure(let failure) = result { observers.notify(failure) }
        completion(result)
    }

    private func event(_ kind: CallEvent.Kind, attempt: Int, status: Int = 0, errorKind: ErrorKind? = nil,
                       delay: Double? = nil, reason: String? = nil, record: Attempt? = nil) -> CallEvent {
        CallEvent(kind: kind, callID: callID, method: plan.prepared.method, path: reportedPath, attempt: attempt,
                  elapsed: elapsed, status: status, errorKind: errorKind, delay: delay, reason: reason, record: record)
    }

    private var elapsed: Double { MonotonicClock.now() - startTime }

    private var remaining: Double? { plan.timeouts.deadline.map { max(0, $0 - elapsed) } }

    // MARK: Events from outside (loop thread)

    func start() {
        switch machine.start() {
        case .prepareAttempt(let number):
            startTime = MonotonicClock.now()
            trace?.callStarted()
            core.events.emit(event(.callStarted, attempt: 0), to: onEvent)
            if let deadline = plan.timeouts.deadline {
                deadlineTimer = core.loop.schedule(after: deadline) { [self] fired in
                    deadlineTimer = nil
                    stop(fired ? .deadline : .cancelled)
                }
            }
            prepareAttempt(number)
        case .none:
            return  // stopped before it started
        }
    }

    /// Stops the call at once with `kind` (`cancelled` or `deadline`): aborts the attempt in
    /// flight, or ends the retry delay, the credential's refresh or the worker's mapping; no
    /// attempt starts after it.
    func stop(_ kind: ErrorKind) {
        switch machine.stop(kind) {
        case .abortTransfer(let transfer, let kind):
            // The transfer's completion (`transferFinished`) then fails the call.
            core.loop.abort(transfer, with: TransportError(kind: kind, curlCode: 0,
                                                           message: CallStateMachine.stopMessage(kind)))
        case .fail(let failure, let release):
            fail(failure, release: release)
        case .none:
            return
        }
    }

    /// Lets the transfer in flight take body bytes again after its chunk consumer paused it
    /// (``ChunkVerdict/pause``); nothing when none is in flight.
    func resumeBody() { machine.transferInFlight?.resumeBody() }

    // MARK: Attempts

    /// The rate limit (which may make the attempt wait: ``throttle(_:reserved:)``), the
    /// breaker, the plugins' `prepare`, the cache, then the plugins' `willSend` and the first
    /// transfer of attempt `number`.
    private func prepareAttempt(_ number: Int) {
        // A call the breaker will refuse takes no slot of the rate limit (a shared one would
        // lend the fleet's slots to calls that are never sent).
        if let rateGate, !machine.slotReserved, resilience?.refuses(now: MonotonicClock.now()) != true {
            let admission = rateGate.admit(now: MonotonicClock.now(), remaining: remaining)
            noteLocalDecisions()
            switch admission {
            case .admitted:
                break
            case .wait(let seconds, let reserved):
                trace?.rateLimitWaiting(seconds, offset: elapsed)
                return throttle(seconds, reserved: reserved)
            case .refused(let retryAfter, let paused):
                let refusal = CallStateMachine.PrepareFailure.rateLimited(limit: rateGate.key.description,
                                                                          retryAfter: retryAfter, paused: paused)
                trace?.rateLimited(retryAfter: retryAfter, paused: paused, offset: elapsed)
                return perform(machine.prepareFailed(refusal, trial: false))
            }
        }
        var trial = false
        if let resilience {
            let permission = resilience.admit(now: MonotonicClock.now())
            noteLocalDecisions()
            switch permission {
            case .allowed(let isTrial):
                trial = isTrial
            case .rejected(let wait):
                // A refused retry keeps what the call had: the last attempt's status and response.
                let refusal = CallStateMachine.PrepareFailure.circuitOpen(host: ResilienceKey.host(of: plan.prepared.url),
                                                                          retryIn: wait)
                trace?.breakerRefused(retryIn: wait, offset: elapsed)
                return perform(machine.prepareFailed(refusal, trial: false))
            }
        }
        var request = HTTPRequest(method: plan.prepared.method, url: plan.prepared.url, headers: plan.prepared.headers,
                                  body: plan.prepared.body)
        request.parts = plan.prepared.parts
        let context = PluginContext(method: plan.prepared.method, path: plan.prepared.path, route: plan.prepared.route, attempt: number,
                                    callID: callID, redactor: core.redactor)
        for plugin in core.plugins {
            if let message = Self.prepare(&request, with: plugin, context: context) {
                return perform(machine.prepareFailed(.plugin(message: message), trial: trial))
            }
        }
        // The cache sees the request as it would go out (a plugin's Authorization and the
        // fields Vary names included): a fresh hit ends here, a revalidation adds its fields.
        var exchange: CallStateMachine.CacheExchange?
        if let cache {
            let requestTime = WallClock.now()
            let loop = core.loop
            let lookup = cache.lookup(&request, jarCookies: { loop.cookies() }, maxBodyBytes: plan.maxResponseBytes,
                                      now: requestTime)
            if case .fresh(let response) = lookup {
                trace?.cacheHit(offset: elapsed)
                return perform(machine.cacheAnswered(response, trial: trial))
            }
            exchange = CallStateMachine.CacheExchange(lookup: lookup, requestTime: requestTime)
        }
        sink?.prepare(&request)
        trace?.attemptStarting(&request, number: number, offset: elapsed)
        for plugin in core.plugins { plugin.willSend(request, context: context) }
        let sentAt = MonotonicClock.now()
        core.events.emit(event(.attemptStarted, attempt: number), to: onEvent)
        var options = core.transferOptions
        options.connectTimeout = plan.timeouts.connect
        options.maxResponseBytes = plan.maxResponseBytes
        options.freshConnection = !plan.retryPolicy.allowsRetryAfterSending(plan.prepared.method,
                                                                  hasIdempotencyKey: plan.prepared.headers.contains(IdempotencyKey.headerName))
        // The deadline timer ends the call (kind `deadline`); libcurl's own timeout is the
        // attempt's, or a safety net just past the deadline when that comes first.
        if let remaining, remaining < plan.timeouts.attempt ?? .infinity {
            options.timeout = remaining + 0.25
        } else {
            options.timeout = plan.timeouts.attempt
        }
        let offset = elapsed
        let sent = CallStateMachine.SentAttempt(
            transfer: transfer(request, options: options, number: number, offset: offset, hop: 0), request: request,
            startOffset: offset, sentAt: sentAt, trial: trial, context: context, options: options, cache: exchange)
        perform(machine.requestPrepared(sent))
    }

    /// Waits `seconds` for the rate limit, then prepares the attempt again (`reserved`: with
    /// the slot it holds).
    private func throttle(_ seconds: Double, reserved: Bool) {
        switch machine.rateLimitWait(seconds, reserved: reserved, elapsed: elapsed) {
        case .scheduleWait(let delay):
            machine.throttleTimerArmed(core.loop.schedule(after: delay) { [self] fired in
                guard fired else { return stop(.cancelled) }  // the loop closed
                switch machine.throttleElapsed(elapsed: elapsed) {
                case .prepareAttempt(let number): prepareAttempt(number)
                case .none: return  // stopped first
                }
            })
        }
    }

    private func perform(_ action: consuming CallStateMachine.PreparedAction) {
        switch consume action {
        case .startTransfer(let transfer):
            core.loop.start(transfer)
        case .map(let input, let record, let trial):
            resilience?.record(record, trial: trial, now: MonotonicClock.now())
            noteLocalDecisions()
            map(input)
        case .fail(let failure, let record, let trial):
            if let record {
                resilience?.record(record, trial: trial, now: MonotonicClock.now())
                noteLocalDecisions()
            }
            fail(failure, release: CallStateMachine.Waits())
        }
    }

    /// Notes whether the decision or recording just made by the call's shared breaker or rate
    /// limit was made in process because their store is failing (one store health per client,
    /// so either one answers for both).
    private func noteLocalDecisions() {
        if resilience?.decidesLocally == true || rateGate?.limiter.decidesLocally == true { sharedStateLocal = true }
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

    /// The transfer of one request of attempt `number` (hop `hop`: 0 for its first) that
    /// started `offset` seconds into the call.
    private func transfer(_ request: HTTPRequest, options: TransferOptions, number: Int, offset: Double,
                          hop: Int) -> Transfer {
        let transfer = Transfer(request: request, options: options, writer: sink?.writer) { [self] result in
            transferFinished(result, request: request, hop: hop)
        }
        if onProgress != nil { transfer.progress = progressReporter(attempt: number) }
        return transfer
    }

    /// A transfer ended: the facts the machine needs are read off it here (the redirect
    /// policy's decision, the deadline, the 401's origin), then the machine says what follows.
    private func transferFinished(_ hop: consuming TransferResult, request: HTTPRequest, hop index: Int) {
        var redirect = RedirectDecision.final
        // Only the status and the Location are read: binding the response would copy it.
        if hop.error == nil, let status = hop.response?.status {
            redirect = plan.redirects.decide(after: request, status: status, location: hop.response?.redirectURL,
                                             followed: index, secrets: core.redactor)
        }
        let now = elapsed
        let deadlinePassed = plan.timeouts.deadline.map { now >= $0 } ?? false
        let leftOrigin = hop.response?.status == 401 && index > 0 && core.credential != nil
            && URLOrigin(request.url) != URLOrigin(plan.prepared.url)
        // What the trace needs of a redirect the call follows (its own client span), read
        // before the machine takes the hop.
        var followed: (status: Int, timings: TransferTimings, httpVersion: String?)?
        if trace != nil, case .follow = redirect {
            followed = (hop.response?.status ?? 0, hop.timings, hop.response?.httpVersion)
        }
        switch machine.transferFinished(hop, redirect: redirect, elapsed: now, deadlinePassed: deadlinePassed,
                                        leftOrigin: leftOrigin) {
        case .followRedirect(var next, let options, let context, let number, let offset):
            if let followed {
                trace?.redirectFollowed(status: followed.status, timings: followed.timings, httpVersion: followed.httpVersion,
                                        offset: now, next: &next, url: core.redactor.url(next.url))
            }
            for plugin in core.plugins { plugin.willSend(next, context: context) }
            endedHopProgress = nil  // the attempt goes on: its next hop counts from 0
            let transfer = transfer(next, options: options, number: number, offset: offset, hop: index + 1)
            machine.hopStarted(transfer)
            core.loop.start(transfer)
        case .reportAttempt(let report):
            reportAttempt(report)
        }
    }

    /// The attempt ended: plugins' `didReceive`, the event, the host's resilience state and
    /// the cache see it, then the machine says what follows.
    private func reportAttempt(_ report: CallStateMachine.AttemptReport) {
        reportAttemptProgress()
        // The record is read in place (binding it would copy its strings and redirects).
        for plugin in core.plugins.reversed() {
            plugin.didReceive(report.attempt, response: report.response, context: report.context)
        }
        core.events.emit(event(.attemptFinished, attempt: report.attempt.number, status: report.attempt.status,
                               errorKind: report.attempt.errorKind, record: report.attempt), to: onEvent)
        trace?.attemptFinished(report.attempt, httpVersion: report.response?.httpVersion, lastHop: report.lastHop)
        resilience?.record(report.record, trial: report.trial, now: MonotonicClock.now())
        rateGate?.observe(report.response, now: MonotonicClock.now(), wallNow: WallClock.now())
        noteLocalDecisions()
        var response = report.response
        var revalidated = false
        if let cache, let exchange = report.cache, let received = response {
            // A 304 to the cache's revalidation becomes the stored response (the attempt
            // keeps the 304 it was); a new response may be kept.
            let outcome = cache.received(received, to: exchange.request, lookup: exchange.exchange.lookup,
                                         requestTime: exchange.exchange.requestTime, direct: exchange.direct)
            (response, revalidated) = outcome
            if revalidated { trace?.cacheRevalidated() }
        }
        switch machine.attemptReported(response: response, revalidated: revalidated, elapsed: elapsed) {
        case .decideRetry(let outcome, let previousDelay):
            decideRetry(outcome, previousDelay: previousDelay)
        case .askCredential(let request, let sentAt):
            askCredential(request, sentAt: sentAt)
        case .map(let input):
            map(input)
        case .fail(let failure):
            fail(failure, release: CallStateMachine.Waits())
        }
    }

    /// Asks the retry layer about the failed attempt, then performs what the machine makes
    /// of its verdict and the body sink's refusal.
    private func decideRetry(_ outcome: AttemptOutcome, previousDelay: Double?) {
        var jitter = generator ?? SeededGenerator()
        let verdict = plan.retryPolicy.decideForCall(
            method: plan.prepared.method, outcome: outcome, test: plan.retryTest,
            hasIdempotencyKey: plan.prepared.headers.contains(IdempotencyKey.headerName), remaining: remaining,
            previousDelay: previousDelay, budget: resilience?.retryBudget, url: plan.prepared.url, using: &jitter)
        generator = jitter
        switch machine.retryDecided(verdict, bodySinkRefusal: sink?.refusesRetry) {
        case .scheduleRetry(let delay, let reason, let attempt):
            core.events.emit(event(.retryScheduled, attempt: attempt.number, status: attempt.status,
                                   errorKind: attempt.errorKind, delay: delay, reason: reason), to: onEvent)
            trace?.retryScheduled(after: attempt.number, delay: delay, reason: reason,
                                  errorType: attempt.errorKind?.name ?? String(attempt.status), offset: elapsed)
            machine.retryTimerArmed(core.loop.schedule(after: delay) { [self] fired in
                guard fired else { return stop(.cancelled) }  // the loop closed
                switch machine.delayElapsed() {
                case .prepareAttempt(let number): prepareAttempt(number)
                case .none: return  // stopped first
                }
            })
        case .map(let input):
            map(input)
        case .fail(let failure):
            fail(failure, release: CallStateMachine.Waits())
        case .none:
            return  // stopped while the retry layer decided
        }
    }

    /// Entering a wait outside the loop (the credential's refresh, a worker's mapping): a
    /// closing loop stops the call `cancelled`, as a cancel would, because it refuses the
    /// wait's answer (`execute`) and its drain is then the only way to end the call.
    private func observeClose() -> Int {
        core.loop.onClose { [self] in stop(.cancelled) }
    }

    /// Gives back what the machine's state held as the call leaves it.
    private func release(_ waits: CallStateMachine.Waits) {
        if let timer = waits.retryTimer { core.loop.cancelTimer(timer) }
        if let timer = waits.admissionTimer { core.loop.cancelTimer(timer) }
        if waits.reservedSlot { rateGate?.limiter.returnSlot(now: MonotonicClock.now()) }
        if let observer = waits.closeObserver { core.loop.removeCloseObserver(observer) }
    }

    // MARK: Authentication

    /// After a 401 the credential says whether to replay (the machine asks it once per call).
    private func askCredential(_ request: HTTPRequest, sentAt: Double) {
        guard let credential = core.credential else {
            preconditionFailure("the machine asks the credential only when the client has one")
        }
        machine.credentialAsked(closeObserver: observeClose())
        let loop = core.loop
        credential.unauthorized(signedWith: request.headers[credential.header], sentAt: sentAt) { [self] verdict in
            loop.execute { [self] in credentialAnswered(verdict) }
        }
    }

    private func credentialAnswered(_ verdict: RefreshingCredential.Verdict) {
        switch machine.credentialAnswered(verdict) {
        case .prepareAttempt(let number, let waits):
            release(waits)
            prepareAttempt(number)
        case .map(let input, let waits):
            release(waits)
            map(input)
        case .fail(let failure, let waits):
            fail(failure, release: waits)
        case .none:
            return  // stopped meanwhile
        }
    }

    // MARK: Finishing

    /// Maps the final response, on the loop or on the worker pool.
    private func map(_ input: CallStateMachine.MappingInput) {
        guard let response = input.result.response else { return mappingFinished(nil) }
        // `@metadata.url`: the call's URL, or after redirects the last hop's; the metadata
        // redacts it with the client's rule (a Location may carry what the caller never put
        // in the path).
        var mappable = MappableResponse(method: plan.prepared.method, path: plan.prepared.path, status: response.status,
                                        headers: response.headers, body: response.body,
                                        url: input.redirected ? response.effectiveURL : plan.prepared.url)
        mappable.redactor = core.redactor
        // The mapper is used in place: binding it to a local would copy the catalog's mapper.
        let triage = core.config.catalog.responseMapper.triage(mappable, readingJSONBody: plan.prepared.readsJSONBody)
        guard triage.needsParse else { return mappingFinished(triage.outcome) }
        if response.body.count >= WorkerPool.offloadThreshold, !core.loop.isStopping {
            machine.mappingOffloaded(closeObserver: observeClose())
            return mapOnWorker(triage)
        }
        mappingFinished(core.config.catalog.responseMapper.mapBody(of: triage))
    }

    /// Parses and maps a large body on the ``WorkerPool`` while the loop runs other calls;
    /// the outcome comes back to the loop thread (``mappingFinished(_:)``), where the call
    /// finishes as it would inline. The worker reads only the Sendable triage and the
    /// read-only catalog, never the call's state. A stop meanwhile ends the call at once (the
    /// machine then ignores the outcome); a closing loop stops it through its close observer.
    private func mapOnWorker(_ triage: ResponseMapper.Triage) {
        let mapper = core.catalog.responseMapper
        let loop = core.loop
        loop.offload { [self] home in
            let outcome = mapper.mapBody(of: triage).homed(home)
            // Refused once the loop is closing; its drain then runs the call's close observer.
            loop.execute { [self] in mappingFinished(outcome) }
        }
    }

    /// The mapping's outcome; nil for a result without a response (nothing to map).
    private func mappingFinished(_ outcome: consuming MappingOutcome?) {
        switch machine.mappingFinished() {
        case .complete(let input, let waits):
            complete(input, outcome: outcome, release: waits)
        case .none:
            return  // cancelled, past its deadline, or the loop closed first
        }
    }

    private func complete(_ input: CallStateMachine.MappingInput, outcome: consuming MappingOutcome?,
                          release waits: CallStateMachine.Waits) {
        // The input's last use (the machine has finished and let go of it): its response
        // moves into the result instead of being copied.
        guard let outcome, let response = input.result.response.take() else {
            let error = input.result.error ?? TransportError(kind: .network, curlCode: 0, message: "no response")
            return fail(kind: error.kind, status: 0, message: error.message, release: waits)
        }
        if outcome.accepted, let acceptableStatusCodes = plan.acceptableStatusCodes,
           !acceptableStatusCodes.contains(response.status) {
            return fail(kind: .httpStatus, status: response.status,
                        message: "status \(response.status) is not accepted by the call (it accepts \(acceptableStatusCodes))",
                        response: response, release: waits)
        }
        if let mappingError = outcome.error {
            return fail(kind: .mapping, status: response.status, message: mappingError.description,
                        errorObjects: outcome.errorObjects, response: response, release: waits)
        }
        guard outcome.accepted else {
            // A redirect the policy did not follow is the response: accepted when a response
            // descriptor lists its status, else a `redirect` failure that says why.
            if let refused = input.refusedRedirect {
                return fail(kind: .redirect, status: response.status, message: refused,
                            errorObjects: outcome.errorObjects, response: response, release: waits)
            }
            return fail(kind: .httpStatus, status: response.status,
                        message: "status \(response.status) is not accepted", errorObjects: outcome.errorObjects,
                        response: response, release: waits)
        }
        let url = core.redactor.url(response.effectiveURL.isEmpty ? plan.prepared.url : response.effectiveURL)
        var success = Response(method: plan.prepared.method, path: reportedPath, url: url, http: response,
                               mapped: outcome.mapped, pathParameters: outcome.pathParameters,
                               attempts: machine.attempts, json: outcome.json, metadata: outcome.metadata,
                               fromCache: input.fromCache, revalidated: input.revalidated)
        success.sharedStateLocal = sharedStateLocal
        finish(.success(success), release: waits)
    }

    private func fail(_ failure: CallStateMachine.CallFailure, release waits: CallStateMachine.Waits) {
        fail(kind: failure.kind, status: failure.status, message: failure.message, response: failure.response,
             retryAfter: failure.retryAfter, release: waits)
    }

    private func fail(kind: ErrorKind, status: Int, message: String, errorObjects: JSONValue? = nil,
                      response: HTTPResponse? = nil, retryAfter: Double? = nil, release waits: CallStateMachine.Waits) {
        var error = GatewireError(kind: kind, status: status, message: message, method: plan.prepared.method,
                                  path: reportedPath, errorObjects: errorObjects,
                                  response: response, attempts: machine.attempts, retryAfter: retryAfter)
        error.sharedStateLocal = sharedStateLocal
        finish(.failure(error), release: waits)
    }

    /// The one end of a started call: every path reaches it through a terminal action of
    /// the machine.
    private func finish(_ result: consuming Result<Response, GatewireError>, release waits: CallStateMachine.Waits) {
        release(waits)
        if let deadlineTimer { core.loop.cancelTimer(deadlineTimer) }
        deadlineTimer = nil
        if !core.plugins.isEmpty {
            // Built only for plugins: it copies the path, the route and the client's redactor.
            let context = PluginContext(method: plan.prepared.method, path: plan.prepared.path,
                                        route: plan.prepared.route, attempt: machine.attempts.count, callID: callID,
                                        redactor: core.redactor)
            for plugin in core.plugins.reversed() { result = plugin.process(result, context: context) }
        }
        sink?.complete(&result)
        trace?.callFinished(result, offset: elapsed)
        core.events.emit(finishedEvent(result), to: onEvent)
        Self.tell(result, observers: core.observers, completion: completion)
    }

    /// The `callFinished` event of the call's final `result` (built only for event monitors).
    private func finishedEvent(_ result: borrowing Result<Response, GatewireError>) -> CallEvent {
        let attempts = machine.attempts.count
        switch result {
        case .success(let response): return event(.callFinished, attempt: attempts, status: response.status)
        case .failure(let failure):
            return event(.callFinished, attempt: attempts, status: failure.status, errorKind: failure.kind)
        }
    }
}
