/// A client's telemetry: its settings (``TelemetrySettings``, config and environment), the
/// Swift ``SpanExporter``s registered on it, its metrics (``ClientMetrics``) and its OTLP
/// exporters of spans and metrics. Each ``Call`` asks it for a ``CallTrace`` and hands it
/// its finished spans.
///
/// Telemetry is on when the settings exist (the config's `telemetry`, or
/// `OTEL_EXPORTER_OTLP_ENDPOINT`) or a span exporter is registered; off, a call records
/// nothing (no span, no measurement) and sends a `traceparent` only when its caller gave a
/// parent (forwarded as given).
// @unchecked: `otlp`, `otlpMetrics`, `metrics` and `ids` are used on the loop thread only;
// the registry locks itself.
final class Telemetry: @unchecked Sendable {
    /// The resolved settings, or nil without config section or environment.
    let settings: TelemetrySettings?
    /// Which calls are sampled: the settings', else `parentbased_always_on`.
    let sampler: TraceSampler
    /// The calls' trace and span ids (loop thread only).
    let ids = RandomIDs()
    private let exporters = CallbackRegistry<any SpanExporter>()
    /// The OTLP batcher when the settings name an endpoint (loop thread only).
    private let otlp: OTLPExporter?
    /// The calls' measurements, recorded while telemetry is on (loop thread only).
    let metrics = ClientMetrics()
    /// The periodic OTLP metric export when the settings name an endpoint (loop thread only).
    private let otlpMetrics: OTLPMetricExporter?
    /// Seconds a client's close waits for the spans still queued to leave.
    static let closeFlushSeconds = 3.0

    init(settings: TelemetrySettings?, loop: EventLoop) {
        self.settings = settings
        sampler = settings?.sampler ?? TraceSampler()
        otlp = settings.flatMap { settings in settings.tracesURL.map { OTLPExporter(loop: loop, url: $0, settings: settings) } }
        let metrics = metrics
        otlpMetrics = settings.flatMap { settings in
            settings.metricsURL.map { OTLPMetricExporter(loop: loop, url: $0, settings: settings, metrics: metrics) }
        }
        if let otlpMetrics { _ = loop.execute { otlpMetrics.start() } }
    }

    /// The circuit breaker of `host` (`host[:port]`) entered `state` (`open`, `half_open`,
    /// `closed`): counted while telemetry is on. Loop thread.
    func breakerTransition(host: String, to state: String) {
        guard isOn else { return }
        metrics.add(.breakerTransitions, 1, [SpanAttribute("gatewire.circuit_breaker.host", .string(host)),
                                             SpanAttribute("gatewire.circuit_breaker.state", .string(state))])
    }

    /// The metrics now, or nil when telemetry is off or the client is closed. Any thread
    /// (from another than the loop's, it waits for the loop to read them).
    func metricsSnapshot(on loop: EventLoop) -> MetricsSnapshot? {
        guard isOn else { return nil }
        if loop.isCurrentThread { return metrics.snapshot() }
        let waiter = Waiter<MetricsSnapshot>()
        let metrics = metrics
        guard loop.execute({ waiter.put(metrics.snapshot()) }) else { return nil }
        return waiter.wait()
    }

    /// Registers `exporter` for the spans of every sampled call from now on (turning
    /// telemetry on if it was off). - Returns: a token for ``removeExporter(_:)``.
    func addExporter(_ exporter: any SpanExporter) -> ObserverToken { exporters.add(exporter) }

    /// Removes a span exporter. - Returns: whether it was registered.
    @discardableResult
    func removeExporter(_ token: ObserverToken) -> Bool { exporters.remove(token) }

    /// Whether calls record spans: settings exist or an exporter is registered.
    var isOn: Bool { settings != nil || !exporters.snapshot.isEmpty }

    /// The trace of a call of `plan` under `parent`, or nil when there is nothing to do
    /// (telemetry off and no parent). Loop thread.
    func trace(for plan: borrowing ResolvedCall, parent: TraceContext?, core: ClientCore) -> CallTrace? {
        let recording = isOn
        guard recording || parent != nil else { return nil }
        let url = plan.prepared.url
        // A call under the base URL has its origin (most calls): libcurl need not parse its URL.
        var underBase = false
        if url.hasPrefix(core.urlPrefix) {
            let next = url.utf8.dropFirst(core.urlPrefix.utf8.count).first
            underBase = next == nil || next == UInt8(ascii: "/") || next == UInt8(ascii: "?") || next == UInt8(ascii: "#")
        }
        let template = plan.prepared.resolved?.urlTemplate
        let target = CallTrace.Target(method: plan.prepared.method, url: core.redactor.url(url),
                                      origin: underBase ? core.baseOrigin : URLOrigin(url), template: template)
        return CallTrace(telemetry: self, target: target, parent: parent, recording: recording)
    }

    /// Hands one call's finished spans to every exporter. Loop thread.
    func export(_ spans: [Span]) {
        for exporter in exporters.snapshot { exporter.export(spans) }
        otlp?.enqueue(spans)
    }

    /// Sends the spans still queued and the metrics as they are, waiting at most
    /// ``closeFlushSeconds`` for both; returns at once on the loop thread (it cannot wait for
    /// itself) or when there is no OTLP endpoint.
    func flush(on loop: EventLoop) {
        guard otlp != nil || otlpMetrics != nil, !loop.isCurrentThread else { return }
        let waiter = Waiter<Bool>()
        let otlp = otlp, otlpMetrics = otlpMetrics
        let accepted = loop.execute {
            var left = (otlp == nil ? 0 : 1) + (otlpMetrics == nil ? 0 : 1)
            let one = {
                left -= 1
                if left == 0 { waiter.put(true) }
            }
            otlp?.flush(within: Self.closeFlushSeconds, then: one)
            otlpMetrics?.flush(within: Self.closeFlushSeconds, then: one)
        }
        if accepted { _ = waiter.wait() }
    }

    /// The OTLP exporter's counts; nil without one. Any thread.
    var exportCounts: SpanExportCounts? { otlp?.counts.withLock { $0 } }

    /// A route's pattern as `url.template` writes it: each `:name` parameter as `{name}`
    /// (`/users/:id` becomes `/users/{id}`, the conventions' example form) and an escaped
    /// `\:` as the colon it stands for, by the rules the router fills a pattern with.
    static func template(_ pattern: String) -> String {
        var result = ""
        var index = pattern.startIndex
        while index < pattern.endIndex {
            let character = pattern[index]
            let next = pattern.index(after: index)
            if character == "\\", next < pattern.endIndex, pattern[next] == ":" {
                result.append(":")
                index = pattern.index(after: next)
                continue
            }
            guard character == ":", next < pattern.endIndex, isNameCharacter(pattern[next]) else {
                result.append(character)
                index = next
                continue
            }
            var end = next
            while end < pattern.endIndex, isNameCharacter(pattern[end]) { end = pattern.index(after: end) }
            result += "{" + pattern[next..<end] + "}"
            index = end
        }
        return result
    }

    /// A parameter name's characters (the router's rule).
    private static func isNameCharacter(_ character: Character) -> Bool {
        character == "_" || (character.isASCII && (character.isLetter || character.isNumber))
    }
}
