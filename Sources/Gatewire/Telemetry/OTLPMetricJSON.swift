/// Metrics as an OTLP/HTTP JSON `ExportMetricsServiceRequest` (the OTLP specification's JSON
/// Protobuf Encoding: enums as integers, 64-bit integers as decimal strings, field names in
/// lowerCamelCase), under the same resource and scope as the spans (``OTLPTraceJSON``),
/// written as text as it goes (``OTLPJSONWriter``). Every sum and histogram has cumulative
/// temporality (`AGGREGATION_TEMPORALITY_CUMULATIVE`, 2): each point counts from the
/// client's creation.
enum OTLPMetricJSON {
    /// The request body for `snapshot` under the resource of `settings`.
    static func request(_ snapshot: MetricsSnapshot, settings: TelemetrySettings) -> [UInt8] {
        var writer = OTLPJSONWriter(capacity: 4096)
        writer.raw("{\"resourceMetrics\":[{\"resource\":")
        OTLPTraceJSON.resource(settings, into: &writer)
        writer.raw(",\"scopeMetrics\":[{\"scope\":")
        OTLPTraceJSON.scope(into: &writer)
        writer.raw(",\"metrics\":[")
        for (index, metric) in snapshot.metrics.enumerated() {
            if index > 0 { writer.raw(",") }
            write(metric, snapshot: snapshot, into: &writer)
        }
        writer.raw("]}]}]}")
        return writer.bytes
    }

    /// One `Metric` message: a `sum` (monotonic for a counter) or a `histogram`.
    static func write(_ metric: Metric, snapshot: MetricsSnapshot, into writer: inout OTLPJSONWriter) {
        let start = OTLPTraceJSON.nanoseconds(snapshot.startTime), time = OTLPTraceJSON.nanoseconds(snapshot.time)
        writer.raw("{\"name\":")
        writer.string(metric.name)
        writer.raw(",\"unit\":")
        writer.string(metric.unit)
        writer.raw(",\"description\":")
        writer.string(metric.description)
        writer.raw(metric.kind == .histogram ? ",\"histogram\":{\"dataPoints\":[" : ",\"sum\":{\"dataPoints\":[")
        for (index, point) in metric.points.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.raw("{\"attributes\":")
            writer.attributes(point.attributes)
            writer.raw(",\"startTimeUnixNano\":")
            writer.quoted(start)
            writer.raw(",\"timeUnixNano\":")
            writer.quoted(time)
            if let histogram = point.histogram {
                writer.raw(",\"count\":")
                writer.quoted(histogram.count)
                writer.raw(",\"sum\":")
                writer.number(histogram.sum)
                writer.raw(",\"min\":")
                writer.number(histogram.min)
                writer.raw(",\"max\":")
                writer.number(histogram.max)
                writer.raw(",\"bucketCounts\":[")
                for (index, count) in histogram.bucketCounts.enumerated() {
                    if index > 0 { writer.raw(",") }
                    writer.quoted(count)
                }
                writer.raw("],\"explicitBounds\":[")
                for (index, bound) in histogram.explicitBounds.enumerated() {
                    if index > 0 { writer.raw(",") }
                    writer.number(bound)
                }
                writer.raw("]}")
            } else {
                writer.raw(",\"asInt\":")
                writer.quoted(point.value)
                writer.raw("}")
            }
        }
        // AGGREGATION_TEMPORALITY_CUMULATIVE.
        writer.raw("],\"aggregationTemporality\":2")
        if metric.kind != .histogram { writer.raw(metric.kind == .counter ? ",\"isMonotonic\":true" : ",\"isMonotonic\":false") }
        writer.raw("}}")
    }
}
