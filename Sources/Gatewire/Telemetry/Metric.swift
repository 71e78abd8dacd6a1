/// A client's metrics at one instant, as OpenTelemetry's metrics data model has them with
/// cumulative temporality: every value counts from ``startTime`` (the client's creation) to
/// ``time``. ``Client/metricsSnapshot()`` returns one; the OTLP exporter writes the same
/// values to `<otlpEndpoint>/v1/metrics`. docs/telemetry.md lists every metric.
public struct MetricsSnapshot: Sendable {
    /// When the values started counting: the client's creation, in seconds since the Unix epoch.
    public var startTime: Double
    /// When the values were read, in seconds since the Unix epoch.
    public var time: Double
    /// Every metric that has at least one data point, in a fixed order (docs/telemetry.md).
    public var metrics: [Metric]

    /// The metric named `name` (e.g. `http.client.request.duration`), or nil when it has no
    /// data point yet.
    public subscript(name: String) -> Metric? { metrics.first { $0.name == name } }
}

/// One metric: an instrument's name, unit and kind, and a data point per attribute set.
public struct Metric: Sendable {
    /// The instrument kinds Gatewire records with (OpenTelemetry's API names).
    public enum Kind: Sendable, Equatable {
        /// A monotonic sum (`Counter`): only grows, e.g. retries.
        case counter
        /// A non-monotonic sum (`UpDownCounter`), e.g. the attempts on the wire now.
        case upDownCounter
        /// A distribution (`Histogram`) over explicit bucket boundaries, e.g. durations in seconds.
        case histogram
    }

    /// The name by the semantic conventions' naming rules, e.g. `http.client.request.duration`.
    public var name: String
    /// The UCUM unit: `s` for seconds, `{request}`-style annotations for counts.
    public var unit: String
    /// What the metric measures, one sentence.
    public var description: String
    /// The instrument kind.
    public var kind: Kind
    /// One point per distinct attribute set, in the order the sets first occurred.
    public var points: [MetricPoint]

    /// The point whose attributes include every one of `attributes`, or nil.
    public func point(_ attributes: [SpanAttribute]) -> MetricPoint? {
        points.first { point in attributes.allSatisfy(point.attributes.contains) }
    }
}

/// One data point of a ``Metric``: the value for one attribute set since the client began.
public struct MetricPoint: Sendable, Equatable {
    /// The attribute set (bounded: never `url.full`), in the order recorded.
    public var attributes: [SpanAttribute]
    /// A sum's value (counters and up-down counters); 0 for a histogram.
    public var value: Int64
    /// A histogram's distribution; nil for a sum.
    public var histogram: HistogramValue?
}

/// A histogram data point (OpenTelemetry's explicit-bucket histogram): how many values were
/// recorded, their sum, smallest and largest, and how many fell in each bucket.
public struct HistogramValue: Sendable, Equatable {
    /// Values recorded.
    public var count: UInt64
    /// Their sum, in the metric's unit.
    public var sum: Double
    /// The smallest value recorded.
    public var min: Double
    /// The largest value recorded.
    public var max: Double
    /// The buckets' upper bounds, ascending; bucket `i` holds the values in
    /// `(bounds[i-1], bounds[i]]`, the last one those above the last bound.
    public var explicitBounds: [Double]
    /// Values per bucket: `explicitBounds.count + 1` counts that add up to ``count``.
    public var bucketCounts: [UInt64]
}
