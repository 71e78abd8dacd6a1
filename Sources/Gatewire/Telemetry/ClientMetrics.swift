/// The instruments a client records with: the OpenTelemetry HTTP client semantic conventions'
/// (`http.client.*`) and Gatewire's own (`gatewire.client.*`), named by the conventions'
/// naming rules (dotted namespaces, snake_case, units in UCUM and not in the name).
enum MetricInstrument: Int, CaseIterable {
    case requestDuration, activeRequests, retries, breakerTransitions, breakerRefusals, rateLimitRefusals,
         rateLimitWait, cacheHits, cacheRevalidations, queueWait

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
/// Loop thread only: every record and every snapshot runs on the client's event-loop thread,
/// so the aggregation takes no lock.
// @unchecked: its state is read and written on the loop thread only.
final class ClientMetrics: @unchecked Sendable {
    /// One attribute set's running value.
    private struct Accumulator {
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

    /// The slot of `instrument`'s point for `attributes`, made on first use: a call that
    /// records one point several times (active requests, its attempts' waits) looks it up once.
    func slot(_ instrument: MetricInstrument, _ attributes: [SpanAttribute]) -> Int {
        let index = instrument.rawValue
        if let slot = series[index].slots[attributes] { return slot }
        var accumulator = Accumulator()
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
    func add(_ delta: Int64, at slot: Int) { accumulators[slot].value += delta }

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
