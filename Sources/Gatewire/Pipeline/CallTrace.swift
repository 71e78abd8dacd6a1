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

    /// What the spans and measurements of every call to one ``Target`` share, built once per
    /// target: ``Telemetry`` keeps the last one, since a client's calls mostly go to one route
    /// of one host, and the same arrays then let ``ClientMetrics`` find their series at once.
    final class Shape {
        /// ``Target/spanName``.
        let spanName: String
        /// `server.address` and `server.port`: the attributes of Gatewire's own metrics.
        let server: [SpanAttribute]
        /// The request's attributes of `http.client.*` metrics: method, server, `url.template`.
        let request: [SpanAttribute]
        /// The attributes every span of the call has: the request's and `url.full`.
        let common: [SpanAttribute]
        /// ``common`` with its OTLP JSON, made for the target's first sampled span (loop
        /// thread), and shared by every span of the target.
        private(set) lazy var shared = SharedAttributes(common)

        init(_ target: Target) {
            spanName = target.spanName
            let method = SpanAttribute("http.request.method", .string(target.method.rawValue))
            var server: [SpanAttribute] = []
            if let origin = target.origin {
                server = [SpanAttribute("server.address", .string(origin.host)),
                          SpanAttribute("server.port", .int(Int64(origin.port)))]
            }
            let template = target.template.map { [SpanAttribute("url.template", .string($0))] } ?? []
            self.server = server
            request = [method] + server + template
            common = [method] + server + [SpanAttribute("url.full", .string(target.url))] + template
        }
    }

    private let telemetry: Telemetry
    /// What the call's spans and measurements share.
    private let shape: Shape
    /// Where the call's measurements go; nil when telemetry is off (nothing is recorded).
    private let metrics: ClientMetrics?
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

    /// One request on the wire: an attempt's first, or a hop after a redirect it followed (a
    /// physical request of its own, with its own client span, by the conventions).
    private struct WireRequest {
        let spanID: SpanID
        /// The attempt it belongs to.
        let number: Int
        /// Seconds into the call when it was handed to libcurl.
        let start: Double
        /// The call's requests sent before it: `http.request.resend_count`, which the
        /// conventions count over retries and redirects alike.
        let resendCount: Int
        /// Where it went, for a hop (its method, redacted URL and origin; no template); nil
        /// for an attempt's first request, which went to the call's ``Target``.
        let hop: Shape?
        /// The `traceparent` this trace gave it; nil when the caller's own was kept.
        var traceparent: String?
    }

    /// The request on the wire, until its attempt ends or a redirect follows it.
    private var pending: WireRequest?
    /// How many requests the call has put on the wire.
    private var requestsSent = 0
    /// How many of its attempts went on the wire (`gatewire.attempts`; a redirect's hop is
    /// a request of the same attempt).
    private var attemptsSent = 0

    /// A trace of a call under `parent`: recorded by `telemetry`'s sampler when `recording`,
    /// else only `parent` forwarded.
    init(telemetry: Telemetry, shape: Shape, parent: TraceContext?, recording: Bool) {
        self.telemetry = telemetry
        self.parent = parent
        self.shape = shape
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
            pending = WireRequest(spanID: spanID, number: number, start: offset, resendCount: requestsSent, hop: nil)
            requestsSent += 1
            attemptsSent += 1
            if let metrics {
                let slots = slots ?? (metrics.slot(.activeRequests, shape.request), metrics.slot(.queueWait, shape.server))
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
        // Absent, so added (`set` would look for a field to replace).
        guard !request.headers.contains("traceparent") else { return }
        let traceparent = context.traceparent
        request.headers.add("traceparent", traceparent)
        pending?.traceparent = traceparent
        if let state = context.traceState, !request.headers.contains("tracestate") {
            request.headers.add("tracestate", state)
        }
    }

    /// The request on the wire ended `offset` seconds into the call with a redirect the call
    /// follows with `next` (`status`, libcurl's `timings` and the response's `httpVersion`
    /// being the redirect's; `url`: `next`'s, redacted): the redirect's client span ends, and
    /// `next` is a request of its own with a span and a `traceparent` of its own, which
    /// replaces the one this trace gave the redirected request (a caller's is kept as given).
    func redirectFollowed(status: Int, timings: TransferTimings, httpVersion: String?, offset: Double,
                          next: inout HTTPRequest, url: String) {
        guard let callContext, let ended = pending else { return }
        recordAttempt(duration: offset - ended.start, status: status, errorType: nil, httpVersion: httpVersion,
                      queued: timings.queued, hop: ended.hop)
        note("gatewire.redirect", offset: offset,
             attributes: [SpanAttribute("http.response.status_code", .int(Int64(status))), SpanAttribute("url.full", .string(url)),
                          SpanAttribute("gatewire.attempt", .int(Int64(ended.number)))])
        if isSampled {
            let start = time(ended.start)
            appendClientSpan(ended, in: callContext, start: start, end: time(offset), status: status, errorType: nil,
                             httpVersion: httpVersion, message: "", events: Self.phases(timings, start: start))
        }
        let spanID = telemetry.ids.spanID()
        let hop = Shape(Target(method: next.method, url: url, origin: URLOrigin(next.url), template: nil))
        pending = WireRequest(spanID: spanID, number: ended.number, start: offset, resendCount: requestsSent, hop: hop)
        requestsSent += 1
        if let metrics, let slots { metrics.add(1, at: slots.active) }
        guard let ours = ended.traceparent, next.headers["traceparent"] == ours else { return }
        let traceparent = TraceContext(traceID: callContext.traceID, spanID: spanID, sampled: callContext.isSampled,
                                       traceState: callContext.traceState).traceparent
        next.headers.set("traceparent", traceparent)
        pending?.traceparent = traceparent
    }

    /// The attempt on the wire ended as `attempt` says; `httpVersion`: its response's, if any;
    /// `lastHop`: after redirects, the timings of its last request alone (``Attempt/timings``
    /// adds up every hop's).
    func attemptFinished(_ attempt: Attempt, httpVersion: String?, lastHop: TransferTimings?) {
        guard let callContext, let request = pending, request.number == attempt.number else { return }
        pending = nil
        let errorType = attempt.errorKind?.name ?? (attempt.status >= 400 ? String(attempt.status) : nil)
        let end = attempt.startOffset + attempt.duration
        // An attempt's first request starts when the attempt does (a rate limit's wait
        // included, as in its timings); a hop when it was sent.
        let startOffset = request.hop == nil ? attempt.startOffset : request.start
        let timings = lastHop ?? attempt.timings
        recordAttempt(duration: end - startOffset, status: attempt.status, errorType: errorType,
                      httpVersion: httpVersion, queued: timings.queued, hop: request.hop)
        guard isSampled else { return }
        let start = time(startOffset)
        appendClientSpan(request, in: callContext, start: start, end: time(end), status: attempt.status,
                         errorType: errorType, httpVersion: httpVersion,
                         message: errorType == nil ? "" : attempt.message ?? "status \(attempt.status)",
                         events: Self.phases(timings, start: start))
    }

    /// The call waits `delay` seconds after attempt `number` and retries, for `reason` (a
    /// sentence, on the span) because the attempt failed with `errorType` (the bounded
    /// `gatewire.retry.reason` of the retries metric: the failure kind or the status code).
    func retryScheduled(after number: Int, delay: Double, reason: String, errorType: String, offset: Double) {
        metrics?.add(.retries, 1, shape.server + [SpanAttribute("gatewire.retry.reason", .string(errorType))])
        events.append(SpanEvent(name: "gatewire.retry", time: time(offset),
                                attributes: [SpanAttribute("gatewire.attempt", .int(Int64(number))),
                                             SpanAttribute("gatewire.retry.delay", .double(delay)),
                                             SpanAttribute("gatewire.retry.reason", .string(reason))]))
    }

    /// The call waits `seconds` for its slot of the rate limit, `offset` seconds into it.
    func rateLimitWaiting(_ seconds: Double, offset: Double) {
        metrics?.record(.rateLimitWait, seconds, shape.server)
        note("gatewire.rate_limit_wait", offset: offset, attributes: [SpanAttribute("gatewire.wait", .double(seconds))])
    }

    /// The rate limit (or a `Retry-After` pause when `paused`) refused the call, which may
    /// try again in `retryAfter` seconds.
    func rateLimited(retryAfter: Double, paused: Bool, offset: Double) {
        metrics?.add(.rateLimitRefusals, 1, shape.server)
        note("gatewire.rate_limited", offset: offset,
             attributes: [SpanAttribute("gatewire.retry_after", .double(retryAfter)), SpanAttribute("gatewire.paused", .bool(paused))])
    }

    /// The host's open circuit breaker refused the attempt; its next trial in `retryIn` seconds.
    func breakerRefused(retryIn: Double, offset: Double) {
        metrics?.add(.breakerRefusals, 1, shape.server)
        note("gatewire.circuit_open", offset: offset, attributes: [SpanAttribute("gatewire.retry_in", .double(retryIn))])
    }

    /// The HTTP cache answered the call with a fresh response, sending nothing.
    func cacheHit(offset: Double) {
        metrics?.add(.cacheHits, 1, shape.server)
        note("gatewire.cache_hit", offset: offset)
    }

    /// The server's 304 revalidated the cache's stored response.
    func cacheRevalidated() { metrics?.add(.cacheRevalidations, 1, shape.server) }

    /// An event of the call's span at `offset` seconds into the call.
    private func note(_ name: String, offset: Double, attributes: [SpanAttribute] = []) {
        events.append(SpanEvent(name: name, time: time(offset), attributes: attributes))
    }

    /// The call ended `offset` seconds after its start with `result`: ends an attempt still
    /// on the wire (a cancel, the deadline) and the call's span, and exports them when sampled.
    func callFinished(_ result: borrowing Result<Response, GatewireError>, offset: Double) {
        guard let callContext else { return }
        defer { telemetry.deliverMeasurements() }
        if let request = pending, metrics != nil {
            var kind = ErrorKind.cancelled
            switch result {
            case .success: break
            case .failure(let error): kind = error.kind
            }
            recordAttempt(duration: max(0, offset - request.start), status: 0, errorType: kind.name, httpVersion: nil,
                          queued: nil, hop: request.hop)
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
        if let request = pending {
            // Stopped on the wire: the attempt never reported, so it ends with the call.
            let kind = failure?.kind.name ?? ErrorKind.cancelled.name
            appendClientSpan(request, in: callContext, start: time(request.start), end: time(offset), status: 0,
                             errorType: kind, httpVersion: nil, message: failure?.message ?? kind, events: [])
            pending = nil
        }
        var own: [SpanAttribute] = []
        own.reserveCapacity(3)
        if status > 0 { own.append(SpanAttribute("http.response.status_code", .int(Int64(status)))) }
        if let errorType { own.append(SpanAttribute("error.type", .string(errorType))) }
        own.append(SpanAttribute("gatewire.attempts", .int(Int64(attemptsSent))))
        let call = Span(name: shape.spanName, context: callContext, parentSpanID: parent?.spanID, kind: .internal,
                        startTime: wallStart, endTime: time(offset), shared: shape.shared, own: own, events: events,
                        status: failure == nil ? .unset : .error, statusMessage: failure?.message ?? "")
        // The call's span first: appended, then swapped to the front (inserting it would copy
        // the span and each one it passes).
        attempts.append(call)
        for index in stride(from: attempts.count - 1, to: 0, by: -1) { attempts.swapAt(index, index - 1) }
        let spans = attempts
        attempts = []
        telemetry.export(spans)
    }

    // MARK: Measurements

    /// A request left the wire after `duration` seconds: one `http.client.request.duration`
    /// measurement with its outcome, the connection wait (`queued` seconds, nil when libcurl
    /// did not report the request), and one request fewer in `http.client.active_requests`.
    /// `hop`: where a redirect's hop went (nil: the call's target).
    private func recordAttempt(duration: Double, status: Int, errorType: String?, httpVersion: String?, queued: Double?,
                               hop: Shape?) {
        guard let metrics, let slots else { return }
        metrics.add(-1, at: slots.active)
        let requestAttributes = (hop ?? shape).request
        if let last = telemetry.lastDuration, last.request == requestAttributes, last.status == status,
           last.errorType == errorType, last.httpVersion == httpVersion {
            // The point of the last attempt recorded (the same arrays: found without a look-up).
            metrics.record(duration, at: last.slot)
        } else {
            var attributes = requestAttributes
            if status > 0 { attributes.append(SpanAttribute("http.response.status_code", .int(Int64(status)))) }
            if let errorType { attributes.append(SpanAttribute("error.type", .string(errorType))) }
            if let httpVersion { attributes.append(SpanAttribute("network.protocol.version", .string(httpVersion))) }
            let slot = metrics.slot(.requestDuration, attributes)
            metrics.record(duration, at: slot)
            telemetry.lastDuration = (requestAttributes, status, errorType, httpVersion, slot)
        }
        if let queued { metrics.record(queued, at: slots.queueWait) }
    }

    // MARK: Building spans

    /// Adds the client span of `request` under the call's span `call`, from `start` to `end`
    /// (seconds since the Unix epoch), with its outcome: `status` (0: no response),
    /// `errorType` (nil: it did not fail, else `message` says how).
    private func appendClientSpan(_ request: WireRequest, in call: TraceContext, start: Double, end: Double, status: Int,
                                  errorType: String?, httpVersion: String?, message: String, events: [SpanEvent]) {
        var own: [SpanAttribute] = []
        own.reserveCapacity(4)
        if request.resendCount > 0 {
            own.append(SpanAttribute("http.request.resend_count", .int(Int64(request.resendCount))))
        }
        if status > 0 { own.append(SpanAttribute("http.response.status_code", .int(Int64(status)))) }
        if let httpVersion { own.append(SpanAttribute("network.protocol.version", .string(httpVersion))) }
        if let errorType { own.append(SpanAttribute("error.type", .string(errorType))) }
        // Room for the call's span too, which ``callFinished(_:offset:)`` puts in front.
        if attempts.isEmpty { attempts.reserveCapacity(2) }
        attempts.append(Span(name: (request.hop ?? shape).spanName,
                             context: TraceContext(traceID: call.traceID, spanID: request.spanID, sampled: true),
                             parentSpanID: call.spanID, kind: .client, startTime: start, endTime: end,
                             shared: (request.hop ?? shape).shared, own: own, events: events,
                             status: errorType == nil ? .unset : .error, statusMessage: message))
    }

    /// libcurl's phases as events at the times they ended (``TransferTimings``: the wait
    /// for a connection from the hand-over, the phases from when it ended); a phase that did
    /// not happen (0: no TLS, a reused connection) has none.
    private static func phases(_ timings: TransferTimings, start: Double) -> [SpanEvent] {
        var events: [SpanEvent] = []
        events.reserveCapacity(5)
        if timings.queued > 0 { events.append(SpanEvent(name: "gatewire.queued", time: start + timings.queued)) }
        let wire = start + timings.queued
        if timings.dns > 0 { events.append(SpanEvent(name: "gatewire.dns", time: wire + timings.dns)) }
        if timings.connect > 0 { events.append(SpanEvent(name: "gatewire.connect", time: wire + timings.connect)) }
        if timings.tls > 0 { events.append(SpanEvent(name: "gatewire.tls", time: wire + timings.tls)) }
        if timings.firstByte > 0 { events.append(SpanEvent(name: "gatewire.first_byte", time: wire + timings.firstByte)) }
        return events
    }
}
