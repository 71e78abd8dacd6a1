/// One call's trace as it happens: the call reports its start, each attempt's start and
/// end, its retry decisions and refusals, and its end; this turns them into the call's span
/// and its attempts' client spans (the OpenTelemetry HTTP client semantic conventions) and
/// gives each attempt its `traceparent`; with telemetry on it also records the call's
/// metrics (``ClientMetrics``: every call, sampled or not, as metrics are not sampled).
/// Made by ``Telemetry/trace(for:parent:core:)``.
///
/// Used on the client's event-loop thread only, by its ``Call``.
final class CallTrace {
    /// What the call's request looks like to the conventions, fixed for the whole call.
    struct Target {
        let method: HTTPMethod
        /// `url.full`: the call's URL, redacted (``Redactor/url(_:)``).
        let url: String
        /// `server.address` and `server.port`, nil when libcurl cannot parse the URL.
        let origin: URLOrigin?
        /// `url.template`: the route's pattern with `{name}` parameters, nil for a call by path.
        let template: String?

        /// `{method} {url.template}`, or `{method}` (the conventions' span name).
        var spanName: String { template.map { "\(method.rawValue) \($0)" } ?? method.rawValue }
    }

    private let telemetry: Telemetry
    private let target: Target
    /// Where the call's measurements go; nil when telemetry is off (nothing is recorded).
    private let metrics: ClientMetrics?
    /// `server.address` and `server.port`: the attributes of Gatewire's own metrics.
    private let serverAttributes: [SpanAttribute]
    /// The request's attributes of `http.client.*` metrics: method, server, `url.template`.
    private let requestAttributes: [SpanAttribute]
    /// The call's points of `http.client.active_requests` and `gatewire.client.queue.wait`,
    /// looked up at its first attempt.
    private var slots: (active: Int, queueWait: Int)?
    /// The caller's context (nil: this call starts a trace).
    private let parent: TraceContext?
    /// The call's own span context; nil when telemetry is off and the call only forwards
    /// `parent` (a non-recording participant, as OpenTelemetry's API propagates without an SDK).
    private let callContext: TraceContext?
    private var wallStart = 0.0
    private var attempts: [Span] = []
    private var events: [SpanEvent] = []
    /// The span of the attempt on the wire: its id and start, until its ``attemptFinished(_:httpVersion:)``.
    private var pending: (spanID: SpanID, number: Int, start: Double)?

    /// A trace of a call under `parent`: recorded by `telemetry`'s sampler when `recording`,
    /// else only `parent` forwarded.
    init(telemetry: Telemetry, target: Target, parent: TraceContext?, recording: Bool) {
        self.telemetry = telemetry
        self.target = target
        self.parent = parent
        var server: [SpanAttribute] = []
        if let origin = target.origin {
            server = [SpanAttribute("server.address", .string(origin.host)),
                      SpanAttribute("server.port", .int(Int64(origin.port)))]
        }
        serverAttributes = server
        requestAttributes = [SpanAttribute("http.request.method", .string(target.method.rawValue))] + server
            + (target.template.map { [SpanAttribute("url.template", .string($0))] } ?? [])
        metrics = recording ? telemetry.metrics : nil
        if recording {
            let traceID = parent?.traceID ?? telemetry.ids.traceID()
            callContext = TraceContext(traceID: traceID, spanID: telemetry.ids.spanID(),
                                       sampled: telemetry.sampler.samples(traceID, parent: parent),
                                       traceState: parent?.traceState)
        } else {
            callContext = nil
        }
    }

    /// Whether this call's spans are recorded and exported.
    private var isSampled: Bool { callContext?.isSampled ?? false }

    /// Seconds since the Unix epoch of a time `offset` seconds into the call.
    private func time(_ offset: Double) -> Double { wallStart + offset }

    // MARK: What the call reports

    /// The call started now (`CLOCK_REALTIME`; offsets are then the call's monotonic ones).
    func callStarted() { wallStart = WallClock.now() }

    /// Attempt `number` is about to be sent `offset` seconds into the call: its `traceparent`
    /// (and the parent's `tracestate`) go into `request`, unless the caller set the field
    /// itself, which is kept as given (W3C Trace Context section 3.2: one value per request).
    func attemptStarting(_ request: inout HTTPRequest, number: Int, offset: Double) {
        let context: TraceContext
        if let callContext {
            let spanID = telemetry.ids.spanID()
            pending = (spanID, number, offset)
            if let metrics {
                let slots = slots ?? (metrics.slot(.activeRequests, requestAttributes), metrics.slot(.queueWait, serverAttributes))
                self.slots = slots
                metrics.add(1, at: slots.active)
            }
            context = TraceContext(traceID: callContext.traceID, spanID: spanID, sampled: callContext.isSampled,
                                   traceState: callContext.traceState)
        } else if let parent {
            context = parent
        } else {
            return
        }
        guard !request.headers.contains("traceparent") else { return }
        request.headers.set("traceparent", context.traceparent)
        if let state = context.traceState, !request.headers.contains("tracestate") {
            request.headers.set("tracestate", state)
        }
    }

    /// The attempt on the wire ended as `attempt` says; `httpVersion`: its response's, if any.
    func attemptFinished(_ attempt: Attempt, httpVersion: String?) {
        guard let callContext, let (spanID, number, _) = pending, number == attempt.number else { return }
        pending = nil
        let errorType = attempt.errorKind?.name ?? (attempt.status >= 400 ? String(attempt.status) : nil)
        recordAttempt(duration: attempt.duration, status: attempt.status, errorType: errorType,
                      httpVersion: httpVersion, queued: attempt.timings.queued)
        for hop in attempt.redirects {
            events.append(SpanEvent(name: "gatewire.redirect", time: time(attempt.startOffset + attempt.duration),
                                    attributes: [SpanAttribute("http.response.status_code", .int(Int64(hop.status))),
                                                 SpanAttribute("url.full", .string(hop.url)),
                                                 SpanAttribute("gatewire.attempt", .int(Int64(attempt.number)))]))
        }
        guard isSampled else { return }
        var attributes = commonAttributes
        if attempt.number > 1 {
            attributes.append(SpanAttribute("http.request.resend_count", .int(Int64(attempt.number - 1))))
        }
        if attempt.status > 0 {
            attributes.append(SpanAttribute("http.response.status_code", .int(Int64(attempt.status))))
        }
        if let httpVersion { attributes.append(SpanAttribute("network.protocol.version", .string(httpVersion))) }
        if let errorType { attributes.append(SpanAttribute("error.type", .string(errorType))) }
        let start = time(attempt.startOffset)
        attempts.append(Span(name: target.spanName,
                             context: TraceContext(traceID: callContext.traceID, spanID: spanID, sampled: true),
                             parentSpanID: callContext.spanID, kind: .client, startTime: start,
                             endTime: start + attempt.duration, attributes: attributes,
                             events: attempt.redirects.isEmpty ? Self.phases(attempt.timings, start: start) : [],
                             status: errorType == nil ? .unset : .error,
                             statusMessage: errorType == nil ? "" : attempt.message ?? "status \(attempt.status)"))
    }

    /// The call waits `delay` seconds after attempt `number` and retries, for `reason` (a
    /// sentence, on the span) because the attempt failed with `errorType` (the bounded
    /// `gatewire.retry.reason` of the retries metric: the failure kind or the status code).
    func retryScheduled(after number: Int, delay: Double, reason: String, errorType: String, offset: Double) {
        metrics?.add(.retries, 1, serverAttributes + [SpanAttribute("gatewire.retry.reason", .string(errorType))])
        events.append(SpanEvent(name: "gatewire.retry", time: time(offset),
                                attributes: [SpanAttribute("gatewire.attempt", .int(Int64(number))),
                                             SpanAttribute("gatewire.retry.delay", .double(delay)),
                                             SpanAttribute("gatewire.retry.reason", .string(reason))]))
    }

    /// The call waits `seconds` for its slot of the rate limit, `offset` seconds into it.
    func rateLimitWaiting(_ seconds: Double, offset: Double) {
        metrics?.record(.rateLimitWait, seconds, serverAttributes)
        note("gatewire.rate_limit_wait", offset: offset, attributes: [SpanAttribute("gatewire.wait", .double(seconds))])
    }

    /// The rate limit (or a `Retry-After` pause when `paused`) refused the call, which may
    /// try again in `retryAfter` seconds.
    func rateLimited(retryAfter: Double, paused: Bool, offset: Double) {
        metrics?.add(.rateLimitRefusals, 1, serverAttributes)
        note("gatewire.rate_limited", offset: offset,
             attributes: [SpanAttribute("gatewire.retry_after", .double(retryAfter)), SpanAttribute("gatewire.paused", .bool(paused))])
    }

    /// The host's open circuit breaker refused the attempt; its next trial in `retryIn` seconds.
    func breakerRefused(retryIn: Double, offset: Double) {
        metrics?.add(.breakerRefusals, 1, serverAttributes)
        note("gatewire.circuit_open", offset: offset, attributes: [SpanAttribute("gatewire.retry_in", .double(retryIn))])
    }

    /// The HTTP cache answered the call with a fresh response, sending nothing.
    func cacheHit(offset: Double) {
        metrics?.add(.cacheHits, 1, serverAttributes)
        note("gatewire.cache_hit", offset: offset)
    }

    /// The server's 304 revalidated the cache's stored response.
    func cacheRevalidated() { metrics?.add(.cacheRevalidations, 1, serverAttributes) }

    /// An event of the call's span at `offset` seconds into the call.
    private func note(_ name: String, offset: Double, attributes: [SpanAttribute] = []) {
        events.append(SpanEvent(name: name, time: time(offset), attributes: attributes))
    }

    /// The call ended `offset` seconds after its start with `result`: ends an attempt still
    /// on the wire (a cancel, the deadline) and the call's span, and exports them when sampled.
    func callFinished(_ result: borrowing Result<Response, GatewireError>, offset: Double) {
        guard let callContext else { return }
        if let (_, _, start) = pending, metrics != nil {
            var kind = ErrorKind.cancelled
            switch result {
            case .success: break
            case .failure(let error): kind = error.kind
            }
            recordAttempt(duration: max(0, offset - start), status: 0, errorType: kind.name, httpVersion: nil, queued: nil)
        }
        guard isSampled else { return }
        var offset = offset
        if wallStart == 0 {
            // Stopped before it started: a span of no length, now.
            wallStart = WallClock.now()
            offset = 0
        }
        let status: Int
        let failure: (kind: ErrorKind, message: String)?
        switch result {
        case .success(let response):
            status = response.status
            failure = nil
        case .failure(let error):
            status = error.status
            failure = (error.kind, error.message)
        }
        let errorType = failure.map { $0.kind == .httpStatus && status > 0 ? String(status) : $0.kind.name }
        if let (spanID, number, start) = pending {
            // Stopped on the wire: the attempt never reported, so it ends with the call.
            var attributes = commonAttributes
            if number > 1 { attributes.append(SpanAttribute("http.request.resend_count", .int(Int64(number - 1)))) }
            let kind = failure?.kind.name ?? ErrorKind.cancelled.name
            attributes.append(SpanAttribute("error.type", .string(kind)))
            attempts.append(Span(name: target.spanName,
                                 context: TraceContext(traceID: callContext.traceID, spanID: spanID, sampled: true),
                                 parentSpanID: callContext.spanID, kind: .client, startTime: time(start),
                                 endTime: time(offset), attributes: attributes, events: [], status: .error,
                                 statusMessage: failure?.message ?? kind))
            pending = nil
        }
        var attributes = commonAttributes
        if status > 0 { attributes.append(SpanAttribute("http.response.status_code", .int(Int64(status)))) }
        if let errorType { attributes.append(SpanAttribute("error.type", .string(errorType))) }
        attributes.append(SpanAttribute("gatewire.attempts", .int(Int64(attempts.count))))
        let call = Span(name: target.spanName, context: callContext, parentSpanID: parent?.spanID, kind: .internal,
                        startTime: wallStart, endTime: time(offset), attributes: attributes, events: events,
                        status: failure == nil ? .unset : .error, statusMessage: failure?.message ?? "")
        telemetry.export([call] + attempts)
    }

    // MARK: Measurements

    /// An attempt left the wire after `duration` seconds: one `http.client.request.duration`
    /// measurement with its outcome, the connection wait (`queued` seconds, nil when libcurl
    /// did not report the attempt), and one request fewer in `http.client.active_requests`.
    private func recordAttempt(duration: Double, status: Int, errorType: String?, httpVersion: String?, queued: Double?) {
        guard let metrics, let slots else { return }
        metrics.add(-1, at: slots.active)
        var attributes = requestAttributes
        if status > 0 { attributes.append(SpanAttribute("http.response.status_code", .int(Int64(status)))) }
        if let errorType { attributes.append(SpanAttribute("error.type", .string(errorType))) }
        if let httpVersion { attributes.append(SpanAttribute("network.protocol.version", .string(httpVersion))) }
        metrics.record(.requestDuration, duration, attributes)
        if let queued { metrics.record(queued, at: slots.queueWait) }
    }

    // MARK: Building spans

    /// The attributes every span of the call has.
    private var commonAttributes: [SpanAttribute] {
        var attributes = [SpanAttribute("http.request.method", .string(target.method.rawValue))]
        if let origin = target.origin {
            attributes.append(SpanAttribute("server.address", .string(origin.host)))
            attributes.append(SpanAttribute("server.port", .int(Int64(origin.port))))
        }
        attributes.append(SpanAttribute("url.full", .string(target.url)))
        if let template = target.template { attributes.append(SpanAttribute("url.template", .string(template))) }
        return attributes
    }

    /// libcurl's phases as events at the times they ended (``TransferTimings``: the wait
    /// for a connection from the hand-over, the phases from when it ended); a phase that did
    /// not happen (0: no TLS, a reused connection) has none.
    private static func phases(_ timings: TransferTimings, start: Double) -> [SpanEvent] {
        var events: [SpanEvent] = []
        if timings.queued > 0 { events.append(SpanEvent(name: "gatewire.queued", time: start + timings.queued)) }
        let wire = start + timings.queued
        for (name, at) in [("gatewire.dns", timings.dns), ("gatewire.connect", timings.connect),
                           ("gatewire.tls", timings.tls), ("gatewire.first_byte", timings.firstByte)] where at > 0 {
            events.append(SpanEvent(name: name, time: wire + at))
        }
        return events
    }
}
