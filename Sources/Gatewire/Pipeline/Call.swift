/// One logical call on the event loop: it owns its attempts, its retry delays and its
/// deadline, and completes exactly once.
///
/// Every method runs on the client's event-loop thread (the state needs no lock):
/// `start` -> for each attempt: plugins' `prepare` -> transfer -> plugins' `didReceive` ->
/// retry decision -> delay timer or finish; finish maps the response, notifies the failure
/// observers (failures only) and then calls the completion.
final class Call: @unchecked Sendable {
    typealias Completion = @Sendable (Result<Response, GatewireError>) -> Void

    private let core: ClientCore
    private let prepared: PreparedRequest
    private let policy: RetryPolicy
    private let retryTest: RetryTest?
    private let timeouts: Timeouts
    private let completion: Completion
    private var generator: SeededGenerator

    private var startTime = 0.0
    private var attempts: [Attempt] = []
    private var transfer: Transfer?
    private var delayTimer: Int?
    private var deadlineTimer: Int?
    private var stopKind: ErrorKind?
    private var finished = false

    init(core: ClientCore, prepared: PreparedRequest, options: CallOptions, completion: @escaping Completion) {
        self.core = core
        self.prepared = prepared
        policy = options.retryPolicy ?? core.retryPolicy
        retryTest = options.retryTest
        timeouts = options.timeouts ?? core.timeouts
        self.completion = completion
        generator = core.makeGenerator()
    }

    // MARK: Lifecycle (loop thread)

    func start() {
        startTime = MonotonicClock.now()
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
            fail(kind: kind, status: attempts.last?.status ?? 0, message: Self.stopMessage(kind))
        }
    }

    private static func stopMessage(_ kind: ErrorKind) -> String {
        kind == .deadline ? "the call's deadline passed" : "the call was cancelled"
    }

    private var elapsed: Double { MonotonicClock.now() - startTime }

    private var remaining: Double? { timeouts.deadline.map { max(0, $0 - elapsed) } }

    private func startAttempt() {
        let number = attempts.count + 1
        var request = HTTPRequest(method: prepared.method, url: prepared.url, headers: prepared.headers,
                                  body: prepared.body)
        let context = PluginContext(method: prepared.method, path: prepared.path, route: prepared.route, attempt: number)
        for plugin in core.plugins {
            do {
                try plugin.prepare(&request, context: context)
            } catch {
                return fail(kind: .plugin, status: 0, message: "plugin \(plugin.name) failed: \(error)")
            }
        }
        var options = core.transferOptions
        options.connectTimeout = timeouts.connect
        // The deadline timer ends the call (kind `deadline`); libcurl's own timeout is the
        // attempt's, or a safety net just past the deadline when that comes first.
        if let remaining, remaining < timeouts.attempt ?? .infinity {
            options.timeout = remaining + 0.25
        } else {
            options.timeout = timeouts.attempt
        }
        let offset = elapsed
        let transfer = Transfer(request: request, options: options) { [self] result in
            attemptFinished(result, number: number, offset: offset, context: context)
        }
        self.transfer = transfer
        core.loop.start(transfer)
    }

    private func attemptFinished(_ result: TransferResult, number: Int, offset: Double, context: PluginContext) {
        transfer = nil
        var error = result.error
        if error?.kind == .timeout, let deadline = timeouts.deadline, elapsed >= deadline {
            error?.kind = .deadline  // the attempt was cut short by the call's deadline
        }
        var attempt = Attempt(number: number, startOffset: offset, duration: elapsed - offset,
                              status: result.response?.status ?? 0, errorKind: error?.kind,
                              curlCode: error?.curlCode ?? 0, message: error?.message, timings: result.timings,
                              bytesSent: result.bytesSent, delayAfter: nil, decision: "")
        for plugin in core.plugins.reversed() {
            plugin.didReceive(attempt, response: result.response, context: context)
        }
        if let stopKind {
            attempt.decision = Self.stopMessage(stopKind)
            attempts.append(attempt)
            return fail(kind: stopKind, status: attempt.status, message: Self.stopMessage(stopKind), response: result.response)
        }
        let failed = error != nil || (result.response?.status ?? 0) >= 400
        guard failed else {
            attempts.append(attempt)
            return finish(result)
        }
        let outcome = AttemptOutcome(attempt: number, status: attempt.status, errorKind: error?.kind,
                                     headers: result.response?.headers ?? HTTPHeaders(), elapsed: elapsed,
                                     requestSent: result.requestSent)
        let decision = policy.decide(method: prepared.method, outcome: outcome, test: retryTest,
                                     hasIdempotencyKey: prepared.headers.contains("Idempotency-Key"),
                                     remaining: remaining, using: &generator)
        switch decision {
        case .retry(let delay, let reason):
            attempt.delayAfter = delay
            attempt.decision = reason
            attempts.append(attempt)
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

    // MARK: Finishing

    private func finish(_ result: TransferResult) {
        guard let response = result.response else {
            let error = result.error ?? TransportError(kind: .network, curlCode: 0, message: "no response")
            return fail(kind: error.kind, status: 0, message: error.message)
        }
        let outcome = core.catalog.map(MappableResponse(
            method: prepared.method, path: prepared.path, status: response.status,
            contentType: response.headers["Content-Type"], body: response.body,
            headers: response.headers, url: prepared.url))
        if let mappingError = outcome.error {
            return fail(kind: .mapping, status: response.status, message: mappingError.description,
                        errorObjects: outcome.errorObjects, response: response)
        }
        guard outcome.accepted else {
            return fail(kind: .httpStatus, status: response.status,
                        message: "status \(response.status) is not accepted", errorObjects: outcome.errorObjects,
                        response: response)
        }
        complete(.success(Response(method: prepared.method, path: prepared.path, http: response,
                                   mapped: outcome.mapped, pathParameters: outcome.pathParameters,
                                   attempts: attempts, body: outcome.body, metadata: outcome.metadata)))
    }

    private func fail(kind: ErrorKind, status: Int, message: String, errorObjects: JSONValue? = nil,
                      response: HTTPResponse? = nil) {
        let error = GatewireError(kind: kind, status: status, message: message, method: prepared.method,
                                  path: prepared.path, errorObjects: errorObjects, response: response,
                                  attempts: attempts)
        complete(.failure(error))
    }

    private func complete(_ result: Result<Response, GatewireError>) {
        guard !finished else { return }
        finished = true
        if let deadlineTimer { core.loop.cancelTimer(deadlineTimer) }
        deadlineTimer = nil
        if case .failure(let error) = result { core.observers.notify(error) }
        completion(result)
    }
}
