/// Metrics as an OTLP/HTTP protobuf `ExportMetricsServiceRequest` (`opentelemetry-proto`'s
/// `collector/metrics/v1`): the same request as ``OTLPMetricJSON``, field by field in the
/// numbers of `metrics/v1/metrics.proto`, under the same resource and scope as the spans.
/// Every sum and histogram has cumulative temporality (`AGGREGATION_TEMPORALITY_CUMULATIVE`,
/// 2): each point counts from the client's creation.
enum OTLPMetricProtobuf {
    /// The request body for `snapshot` under the resource of `settings`.
    static func request(_ snapshot: MetricsSnapshot, settings: TelemetrySettings) -> [UInt8] {
        var writer = OTLPProtobufWriter(capacity: 4096)
        let resourceMetrics = writer.begin(1)
        OTLPTraceProtobuf.resource(settings, into: &writer)
        let scopeMetrics = writer.begin(2)
        OTLPTraceProtobuf.scope(into: &writer)
        for metric in snapshot.metrics { write(metric, snapshot: snapshot, into: &writer) }
        writer.end(scopeMetrics)
        writer.end(resourceMetrics)
        return writer.bytes
    }

    /// One `Metric` message (field 2 of `ScopeMetrics`): a `sum` (monotonic for a counter)
    /// or a `histogram`.
    private static func write(_ metric: Metric, snapshot: MetricsSnapshot, into writer: inout OTLPProtobufWriter) {
        let start = OTLPTraceJSON.nanoseconds(snapshot.startTime), time = OTLPTraceJSON.nanoseconds(snapshot.time)
        let message = writer.begin(2)
        writer.string(1, metric.name)
        writer.string(2, metric.description)
        writer.string(3, metric.unit)
        let histogram = metric.kind == .histogram
        let data = writer.begin(histogram ? 9 : 7)
        for point in metric.points {
            let encoded = writer.begin(1)
            writer.fixed64(2, start)
            writer.fixed64(3, time)
            if let values = point.histogram {
                writer.fixed64(4, values.count)
                writer.fixed64(5, values.sum.bitPattern)
                writer.packed(6, values.bucketCounts)
                writer.packed(7, values.explicitBounds.lazy.map(\.bitPattern))
                for attribute in point.attributes { OTLPTraceProtobuf.keyValue(9, attribute, into: &writer) }
                writer.fixed64(11, values.min.bitPattern)
                writer.fixed64(12, values.max.bitPattern)
            } else {
                writer.fixed64(6, UInt64(bitPattern: point.value))  // as_int, sfixed64
                for attribute in point.attributes { OTLPTraceProtobuf.keyValue(7, attribute, into: &writer) }
            }
            writer.end(encoded)
        }
        writer.varint(2, 2)  // AGGREGATION_TEMPORALITY_CUMULATIVE
        if !histogram { writer.varint(3, metric.kind == .counter ? 1 : 0) }
        writer.end(data)
        writer.end(message)
    }
}
