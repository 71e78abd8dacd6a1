/// The instruments a client records with: the OpenTelemetry HTTP client semantic conventions'
/// (`http.client.*`) and Gatewire's own (`gatewire.client.*`), named by the conventions'
/// naming rules (dotted namespaces, snake_case, units in UCUM and not in the name).
enum MetricInstrument: Int, CaseIterable {
    case requestDuration, activeRequests, retries, breakerTransitions, breakerRefusals, rateLimitRefusals,
         rateLimitWait, cacheHits, cacheRevalidations, queueWait, spansProcessed, spansExported

    /// The semantic conventions' buckets for `http.client.request.duration`, in seconds.
    static let durationBounds = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]

    var name: String {
        switch self {
        case .requestDuration: "http.client.request.duration"
        case .activeRequests: "http.client.active_requests"
        case .retries: "gatewire.client.retries"
        case .breakerTransitions: "gatewire.client.circuit_breaker.transitions"
        case .breakerRefusals: "gatewire.client.circuit_breaker.refusals"
        case .rateLimitRefusals: "gatewire.client.rate_limit.refusals"
        case .rateLimitWait: "gatewire.client.rate_limit.wait"
        case .cacheHits: "gatewire.client.cache.hits"
        case .cacheRevalidations: "gatewire.client.cache.revalidations"
        case .queueWait: "gatewire.client.queue.wait"
        case .spansProcessed: "otel.sdk.processor.span.processed"
        case .spansExported: "otel.sdk.exporter.span.exported"
        }
    }

    var unit: String {
        switch self {
        case .requestDuration, .rateLimitWait, .queueWait: "s"
        case .activeRequests: "{request}"
        case .retries: "{retry}"
        case .breakerTransitions: "{transition}"
        case .breakerRefusals, .rateLimitRefusals: "{refusal}"
        case .cacheHits: "{hit}"
        case .cacheRevalidations: "{revalidation}"
        case .spansProcessed, .spansExported: "{span}"
        }
    }

    var description: String {
        switch self {
        case .requestDuration: "Duration of HTTP client requests (each attempt on the wire)."
        case .activeRequests: "Number of HTTP requests on the wire now."
        case .retries: "Retries scheduled, by the failed attempt's error type."
        case .breakerTransitions: "Circuit breaker state changes, by the state entered."
        case .breakerRefusals: "Attempts refused because the host's circuit breaker was open."
        case .rateLimitRefusals: "Calls refused by a rate limit or a Retry-After pause."
        case .rateLimitWait: "Time calls waited for a rate limit's slot."
        case .cacheHits: "Calls answered from the HTTP cache without a request."
        case .cacheRevalidations: "Stored responses revalidated by a 304."
        case .queueWait: "Time attempts waited for a connection before being sent."
        case .spansProcessed: "Spans the batching span processor handed to its exporter, or dropped (error.type)."
        case .spansExported: "Spans whose OTLP export finished, with error.type when it failed."
        }
    }

    var kind: Metric.Kind {
        switch self {
        case .requestDuration, .rateLimitWait, .queueWait: .histogram
        case .activeRequests: .upDownCounter
        default: .counter
        }
    }
}

/// A client's metric aggregation: one running sum or histogram per instrument and attribute
/// set, cumulative since the client's creation. Recorded by the calls (``CallTrace``) and the
/// circuit breakers, read by ``Client/metricsSnapshot()`` and the OTLP metric exporter.
///
/// While ``isCapturing`` (a ``MeasurementExporter`` is registered) each record is also kept
/// as a ``MetricMeasurement`` until ``takeMeasurements()``; otherwise that costs one check.
///
/// Loop thread only: every record and every snapshot runs on the client's event-loop thread,
/// so the aggregation takes no lock.
// @unchecked: its state is read and written on the loop thread only.
final class ClientMetrics: @unchecked Sendable {
    /// One attribute set's running value.
    private struct Accumulator {
        /// The instrument and attribute set it aggregates: a captured measurement's.
        let instrument: MetricInstrument
        let attributes: [SpanAttribute]
        var value: Int64 = 0
        var count: UInt64 = 0
        var sum = 0.0
        var min = Double.infinity
        var max = -Double.infinity
        var buckets: [UInt64] = []
    }

    /// A series: its attribute sets in first-seen order, each with its slot in ``accumulators``.
    private struct Series {
        var order: [(attributes: [SpanAttribute], slot: Int)] = []
        var slots: [[SpanAttribute]: Int] = [:]
    }

    /// When the cumulative values start, in seconds since the Unix epoch.
    let startTime = WallClock.now()
    private var series = [Series](repeating: Series(), count: MetricInstrument.allCases.count)
    private var accumulators: [Accumulator] = []
    /// Whether records are also kept as measurements for the exporters.
    private(set) var isCapturing = false
    /// The measurements recorded since the last ``takeMeasurements()``, while capturing.
    private var captured: [MetricMeasurement] = []
    /// Per instrument, the attribute set looked up last and its slot: a client's calls mostly
    /// record the same series again and again, and comparing two sets is cheaper than hashing
    /// one (the keys are the same literals, the values mostly strings of one storage, which
    /// compare without reading their bytes).
    private var recent = [(attributes: [SpanAttribute], slot: Int)?](repeating: nil, count: MetricInstrument.allCases.count)

    /// The slot of `instrument`'s point for `attributes`, made on first use: a call that
    /// records one point several times (active requests, its attempts' waits) looks it up once.
    func slot(_ instrument: MetricInstrument, _ attributes: [SpanAttribute]) -> Int {
        let index = instrument.rawValue
        if let (last, slot) = recent[index], last == attributes { return slot }
        let slot = lookUp(instrument, attributes)
        recent[index] = (attributes, slot)
        return slot
    }

    /// The slot of `instrument`'s point for `attributes` in its series, made on first use.
    private func lookUp(_ instrument: MetricInstrument, _ attributes: [SpanAttribute]) -> Int {
        let index = instrument.rawValue
        if let slot = series[index].slots[attributes] { return slot }
        var accumulator = Accumulator(instrument: instrument, attributes: attributes)
        if instrument.kind == .histogram { accumulator.buckets = Array(repeating: 0, count: MetricInstrument.durationBounds.count + 1) }
        accumulators.append(accumulator)
        series[index].slots[attributes] = accumulators.count - 1
        series[index].order.append((attributes, accumulators.count - 1))
        return accumulators.count - 1
    }

    /// Adds `delta` to the sum `instrument` (a counter or an up-down counter) for `attributes`.
    func add(_ instrument: MetricInstrument, _ delta: Int64, _ attributes: [SpanAttribute]) {
        add(delta, at: slot(instrument, attributes))
    }

    /// Adds `delta` to the sum at `slot`.
    func add(_ delta: Int64, at slot: Int) {
        accumulators[slot].value += delta
        if isCapturing { capture(Double(delta), at: slot) }
    }

    /// Records `value` (seconds) in the histogram `instrument` for `attributes`.
    func record(_ instrument: MetricInstrument, _ value: Double, _ attributes: [SpanAttribute]) {
        record(value, at: slot(instrument, attributes))
    }

    /// Records `value` (seconds) in the histogram at `slot`.
    func record(_ value: Double, at slot: Int) {
        let bounds = MetricInstrument.durationBounds
        // Bucket i holds (bounds[i-1], bounds[i]]: the first bound not below the value.
        let bucket = bounds.firstIndex { value <= $0 } ?? bounds.count
        accumulators[slot].buckets[bucket] += 1
        accumulators[slot].count += 1
        accumulators[slot].sum += value
        accumulators[slot].min = Swift.min(accumulators[slot].min, value)
        accumulators[slot].max = Swift.max(accumulators[slot].max, value)
        if isCapturing { capture(value, at: slot) }
    }

    /// Starts or stops keeping measurements; stopping drops those not taken yet (no
    /// exporter is left to take them).
    func capture(_ on: Bool) {
        if !on, !captured.isEmpty { captured = [] }
        isCapturing = on
    }

    /// The measurements recorded since the previous take, in the order recorded.
    func takeMeasurements() -> [MetricMeasurement] {
        defer { captured = [] }
        return captured
    }

    private func capture(_ value: Double, at slot: Int) {
        let instrument = accumulators[slot].instrument
        captured.append(MetricMeasurement(name: instrument.name, kind: instrument.kind, value: value,
                                          attributes: accumulators[slot].attributes))
    }

    /// Every instrument with a data point, read now.
    func snapshot() -> MetricsSnapshot {
        var metrics: [Metric] = []
        for instrument in MetricInstrument.allCases {
            let recorded = series[instrument.rawValue]
            // A histogram's slot made for a call that recorded nothing in it has no point yet.
            let points: [MetricPoint] = recorded.order.compactMap { attributes, slot in
                let accumulator = accumulators[slot]
                guard instrument.kind == .histogram else {
                    return MetricPoint(attributes: attributes, value: accumulator.value, histogram: nil)
                }
                guard accumulator.count > 0 else { return nil }
                return MetricPoint(attributes: attributes, value: 0,
                                   histogram: HistogramValue(count: accumulator.count, sum: accumulator.sum,
                                                             min: accumulator.min, max: accumulator.max,
                                                             explicitBounds: MetricInstrument.durationBounds,
                                                             bucketCounts: accumulator.buckets))
            }
            guard !points.isEmpty else { continue }
            metrics.append(Metric(name: instrument.name, unit: instrument.unit, description: instrument.description,
                                  kind: instrument.kind, points: points))
        }
        return MetricsSnapshot(startTime: startTime, time: WallClock.now(), metrics: metrics)
    }
}
