/// A client's telemetry: its settings (``TelemetrySettings``, config and environment), the
/// ``SpanExporter``s and ``MeasurementExporter``s registered on it, its metrics
/// (``ClientMetrics``) and its OTLP exporters of spans and metrics. Each ``Call`` asks it
/// for a ``CallTrace`` and hands it its finished spans and measurements.
///
/// Telemetry is on when the settings exist (the config's `telemetry`, or
/// `OTEL_EXPORTER_OTLP_ENDPOINT`) or a span or measurement exporter is registered; off, a
/// call records nothing (no span, no measurement) and sends a `traceparent` only when its
/// caller gave a parent (forwarded as given).
// @unchecked: `otlp`, `otlpMetrics`, `metrics`, `ids`, `lastShape` and `lastDuration` are used on the loop thread only;
// the registry locks itself.
final class Telemetry: @unchecked Sendable {
    /// The resolved settings, or nil without config section or environment.
    let settings: TelemetrySettings?
    /// Which calls are sampled: the settings', else `parentbased_always_on`.
    let sampler: TraceSampler
    /// The calls' trace and span ids (loop thread only).
    let ids = RandomIDs()
    private let exporters = CallbackRegistry<any SpanExporter>()
    private let measurementExporters = CallbackRegistry<any MeasurementExporter>()
    /// The OTLP batcher when the settings name an endpoint (loop thread only).
    private let otlp: OTLPExporter?
    /// The calls' measurements, recorded while telemetry is on (loop thread only).
    let metrics = ClientMetrics()
    /// The periodic OTLP metric export when the settings name an endpoint (loop thread only).
    private let otlpMetrics: OTLPMetricExporter?
    /// The last call's URL (as the plan has it, before redaction), method and route
    /// template, and the shape made of them, for the next call to the same (loop thread only).
    private var lastShape: (url: String, method: HTTPMethod, template: String?, shape: CallTrace.Shape)?
    /// The `http.client.request.duration` point of the last attempt recorded, with the
    /// request attributes (a ``CallTrace/Shape``'s array) and the outcome it was for: the next
    /// attempt of the same shape and outcome records there at once (loop thread only).
    var lastDuration: (request: [SpanAttribute], status: Int, errorType: String?, httpVersion: String?, slot: Int)?
    /// Seconds a client's close waits for the spans still queued to leave.
    static let closeFlushSeconds = 3.0

    init(settings: TelemetrySettings?, loop: EventLoop) {
        self.settings = settings
        hasSettings = settings != nil
        sampler = settings?.sampler ?? TraceSampler()
        let metrics = metrics
        otlp = settings.flatMap { settings in settings.tracesURL.map { OTLPExporter(loop: loop, url: $0, settings: settings, metrics: metrics) } }
        otlpMetrics = settings.flatMap { settings in
            settings.metricsURL.map { OTLPMetricExporter(loop: loop, url: $0, settings: settings, metrics: metrics) }
        }
        if let otlpMetrics { _ = loop.execute { otlpMetrics.start() } }
    }

    /// The circuit breaker of `host` (`host[:port]`) entered `state` (`open`, `half_open`,
    /// `closed`): counted while telemetry is on. Loop thread.
    func breakerTransition(host: String, to state: String) {
        guard isOn else { return }
        metrics.capture(!measurementExporters.isEmpty)
        metrics.add(.breakerTransitions, 1, [SpanAttribute("gatewire.circuit_breaker.host", .string(host)),
                                             SpanAttribute("gatewire.circuit_breaker.state", .string(state))])
        // A shared breaker's change can come from outside any call: no call's end would deliver it.
        deliverMeasurements()
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

    /// The metrics now as the OTLP/HTTP JSON `ExportMetricsServiceRequest` (what the OTLP
    /// metric exporter sends with `http/json`; under the settings' resource, or the defaults' when telemetry is on
    /// through an exporter only), or nil when telemetry is off or the client is closed. Any
    /// thread, as ``metricsSnapshot(on:)``; the text is encoded on the caller's thread.
    func otlpMetricsJSON(on loop: EventLoop) -> [UInt8]? {
        metricsSnapshot(on: loop).map { OTLPMetricJSON.request($0, settings: settings ?? TelemetrySettings()) }
    }

    /// Registers `exporter` for the measurements of every call from the next call's start on
    /// (turning telemetry on if it was off). - Returns: a token for ``removeMeasurementExporter(_:)``.
    func addMeasurementExporter(_ exporter: any MeasurementExporter) -> ObserverToken { measurementExporters.add(exporter) }

    /// Removes a measurement exporter. - Returns: whether it was registered.
    @discardableResult
    func removeMeasurementExporter(_ token: ObserverToken) -> Bool { measurementExporters.remove(token) }

    /// Hands the measurements recorded since the previous batch to every measurement
    /// exporter: at each call's end and at a breaker's change. Loop thread; one check when
    /// none is registered.
    func deliverMeasurements() {
        guard metrics.isCapturing else { return }
        let measurements = metrics.takeMeasurements()
        guard !measurements.isEmpty else { return }
        for exporter in measurementExporters.snapshot { exporter.export(measurements) }
    }

    /// Registers `exporter` for the spans of every sampled call from now on (turning
    /// telemetry on if it was off). - Returns: a token for ``removeExporter(_:)``.
    func addExporter(_ exporter: any SpanExporter) -> ObserverToken { exporters.add(exporter) }

    /// Removes a span exporter. - Returns: whether it was registered.
    @discardableResult
    func removeExporter(_ token: ObserverToken) -> Bool { exporters.remove(token) }

    /// Whether calls record spans and metrics: settings exist or an exporter is registered.
    var isOn: Bool { hasSettings || !exporters.isEmpty || !measurementExporters.isEmpty }
    /// `settings != nil`, kept: testing the optional settings copies them, on every call.
    private let hasSettings: Bool

    /// The trace of a call of `plan` under `parent`, or nil when there is nothing to do
    /// (telemetry off and no parent). Loop thread.
    func trace(for plan: borrowing ResolvedCall, parent: TraceContext?, core: ClientCore) -> CallTrace? {
        let recording = isOn
        guard recording || parent != nil else { return nil }
        // Measurements are kept from a call's start when an exporter will take them.
        if recording { metrics.capture(!measurementExporters.isEmpty) }
        let url = plan.prepared.url, method = plan.prepared.method, template = plan.prepared.resolved?.urlTemplate
        // The same URL, method and template make the same shape: no redaction or parse again.
        if let last = lastShape, last.url == url, last.method == method, last.template == template {
            return CallTrace(telemetry: self, shape: last.shape, parent: parent, recording: recording)
        }
        // A call under the base URL has its origin (most calls): libcurl need not parse its URL.
        var underBase = false
        if url.hasPrefix(core.urlPrefix) {
            let next = url.utf8.dropFirst(core.urlPrefix.utf8.count).first
            underBase = next == nil || next == UInt8(ascii: "/") || next == UInt8(ascii: "?") || next == UInt8(ascii: "#")
        }
        let shape = CallTrace.Shape(CallTrace.Target(method: method, url: core.redactor.url(url),
                                                     origin: underBase ? core.baseOrigin : URLOrigin(url), template: template))
        lastShape = (url, method, template, shape)
        return CallTrace(telemetry: self, shape: shape, parent: parent, recording: recording)
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
