/// One value a client recorded in one of its instruments (OpenTelemetry's API calls it a
/// measurement): an attempt's duration, a +1 or -1 of the requests on the wire, a retry.
/// ``MeasurementExporter``s get them as they are recorded, before any aggregation, to feed
/// a metrics SDK of their own; ``Client/metricsSnapshot()`` has the same values aggregated.
public struct MetricMeasurement: Sendable, Equatable {
    /// The instrument's name, e.g. `http.client.request.duration` (docs/telemetry.md lists
    /// each one with its unit and attributes).
    public var name: String
    /// The instrument's kind: a histogram's value is recorded, a counter's or an up-down
    /// counter's added.
    public var kind: Metric.Kind
    /// The value in the instrument's unit: seconds for the histograms; for the counters a
    /// whole number, the delta (1, or -1 for `http.client.active_requests`).
    public var value: Double
    /// The attribute set, as on the aggregated point (never `url.full`).
    public var attributes: [SpanAttribute]

    /// A measurement of `value` in the instrument `name` of `kind` with `attributes`.
    public init(name: String, kind: Metric.Kind, value: Double, attributes: [SpanAttribute]) {
        self.name = name
        self.kind = kind
        self.value = value
        self.attributes = attributes
    }
}

/// Receives every measurement a client records (``MetricMeasurement``), to hand them to a
/// metrics SDK: a Swift caller's bridge to swift-metrics, a test's collector. Registered
/// with ``Client/addMeasurementExporter(_:)``.
///
/// Called on the client's event-loop thread, in batches: at the end of each call with what
/// was recorded since the previous batch (that call's measurements and those of calls
/// still running), and at a circuit breaker's state change. Every call is measured, sampled
/// or not (metrics are not sampled). It must not block (hand the values to another queue
/// for slow work).
public protocol MeasurementExporter: Sendable {
    /// Takes the measurements recorded since the previous batch, in the order recorded.
    func export(_ measurements: [MetricMeasurement])
}
