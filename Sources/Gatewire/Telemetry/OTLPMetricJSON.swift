/// Metrics as an OTLP/HTTP JSON `ExportMetricsServiceRequest` (the OTLP specification's JSON
/// Protobuf Encoding: enums as integers, 64-bit integers as decimal strings, field names in
/// lowerCamelCase), under the same resource and scope as the spans (``OTLPTraceJSON``).
/// Every sum and histogram has cumulative temporality (`AGGREGATION_TEMPORALITY_CUMULATIVE`,
/// 2): each point counts from the client's creation.
enum OTLPMetricJSON {
    /// `AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE`.
    static let cumulative: Int64 = 2

    /// The request body for `snapshot` under the resource of `settings`.
    static func request(_ snapshot: MetricsSnapshot, settings: TelemetrySettings) -> JSONValue {
        let list = JSONValue.array()
        for metric in snapshot.metrics { list.append(json(metric, snapshot: snapshot)) }
        let scopeMetrics = JSONValue.object()
        scopeMetrics.set("scope", OTLPTraceJSON.scope())
        scopeMetrics.set("metrics", list)
        let scopes = JSONValue.array()
        scopes.append(scopeMetrics)
        let resourceMetrics = JSONValue.object()
        resourceMetrics.set("resource", OTLPTraceJSON.resource(settings))
        resourceMetrics.set("scopeMetrics", scopes)
        let all = JSONValue.array()
        all.append(resourceMetrics)
        let root = JSONValue.object()
        root.set("resourceMetrics", all)
        return root
    }

    /// One `Metric` message: a `sum` (monotonic for a counter) or a `histogram`.
    static func json(_ metric: Metric, snapshot: MetricsSnapshot) -> JSONValue {
        let start = OTLPTraceJSON.nanoseconds(snapshot.startTime), time = OTLPTraceJSON.nanoseconds(snapshot.time)
        let points = JSONValue.array()
        for point in metric.points {
            let item = JSONValue.object()
            item.set("attributes", OTLPTraceJSON.attributes(point.attributes))
            item.set("startTimeUnixNano", .string(start))
            item.set("timeUnixNano", .string(time))
            if let histogram = point.histogram {
                item.set("count", .string(String(histogram.count)))
                item.set("sum", .number(histogram.sum))
                item.set("min", .number(histogram.min))
                item.set("max", .number(histogram.max))
                let counts = JSONValue.array()
                for count in histogram.bucketCounts { counts.append(.string(String(count))) }
                item.set("bucketCounts", counts)
                let bounds = JSONValue.array()
                for bound in histogram.explicitBounds { bounds.append(.number(bound)) }
                item.set("explicitBounds", bounds)
            } else {
                item.set("asInt", .string(String(point.value)))
            }
            points.append(item)
        }
        let data = JSONValue.object()
        data.set("dataPoints", points)
        data.set("aggregationTemporality", .integer(cumulative))
        if metric.kind != .histogram { data.set("isMonotonic", .bool(metric.kind == .counter)) }
        let object = JSONValue.object()
        object.set("name", .string(metric.name))
        object.set("unit", .string(metric.unit))
        object.set("description", .string(metric.description))
        object.set(metric.kind == .histogram ? "histogram" : "sum", data)
        return object
    }
}
