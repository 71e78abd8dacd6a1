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

    /// A series: the attribute sets in first-seen order and their accumulators.
    private struct Series {
        var order: [[SpanAttribute]] = []
        var values: [[SpanAttribute]: Accumulator] = [:]
    }

    /// When the cumulative values start, in seconds since the Unix epoch.
    let startTime = WallClock.now()
    private var series = [Series](repeating: Series(), count: MetricInstrument.allCases.count)

    /// Adds `delta` to the sum `instrument` (a counter or an up-down counter) for `attributes`.
    func add(_ instrument: MetricInstrument, _ delta: Int64, _ attributes: [SpanAttribute]) {
        update(instrument, attributes) { $0.value += delta }
    }

    /// Records `value` (seconds) in the histogram `instrument` for `attributes`.
    func record(_ instrument: MetricInstrument, _ value: Double, _ attributes: [SpanAttribute]) {
        let bounds = MetricInstrument.durationBounds
        // Bucket i holds (bounds[i-1], bounds[i]]: the first bound not below the value.
        let bucket = bounds.firstIndex { value <= $0 } ?? bounds.count
        update(instrument, attributes) { accumulator in
            if accumulator.buckets.isEmpty { accumulator.buckets = Array(repeating: 0, count: bounds.count + 1) }
            accumulator.buckets[bucket] += 1
            accumulator.count += 1
            accumulator.sum += value
            accumulator.min = Swift.min(accumulator.min, value)
            accumulator.max = Swift.max(accumulator.max, value)
        }
    }

    private func update(_ instrument: MetricInstrument, _ attributes: [SpanAttribute],
                        _ change: (inout Accumulator) -> Void) {
        let index = instrument.rawValue
        if series[index].values[attributes] == nil { series[index].order.append(attributes) }
        change(&series[index].values[attributes, default: Accumulator()])
    }

    /// Every instrument with a data point, read now.
    func snapshot() -> MetricsSnapshot {
        var metrics: [Metric] = []
        for instrument in MetricInstrument.allCases {
            let recorded = series[instrument.rawValue]
            guard !recorded.order.isEmpty else { continue }
            let points = recorded.order.map { attributes in
                let accumulator = recorded.values[attributes]!
                let histogram = instrument.kind != .histogram ? nil
                    : HistogramValue(count: accumulator.count, sum: accumulator.sum, min: accumulator.min,
                                     max: accumulator.max, explicitBounds: MetricInstrument.durationBounds,
                                     bucketCounts: accumulator.buckets)
                return MetricPoint(attributes: attributes, value: accumulator.value, histogram: histogram)
            }
            metrics.append(Metric(name: instrument.name, unit: instrument.unit, description: instrument.description,
                                  kind: instrument.kind, points: points))
        }
        return MetricsSnapshot(startTime: startTime, time: WallClock.now(), metrics: metrics)
    }
}
