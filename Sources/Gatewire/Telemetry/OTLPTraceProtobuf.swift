/// Spans as an OTLP/HTTP protobuf `ExportTraceServiceRequest` (`opentelemetry-proto`'s
/// `collector/trace/v1`): the same request as ``OTLPTraceJSON``, with ids as bytes and times
/// as `fixed64`, field by field in the numbers of `trace/v1/trace.proto` (fields at their
/// default are left out, as proto3 does).
enum OTLPTraceProtobuf {
    /// The request body for the spans of `calls` (each call's spans in turn) under the
    /// resource of `settings`. `count`: how many spans they hold (the buffer's first size).
    static func request(_ calls: [[Span]], count: Int, settings: TelemetrySettings) -> [UInt8] {
        var writer = OTLPProtobufWriter(capacity: 512 + count * 500)
        let resourceSpans = writer.begin(1)
        resource(settings, into: &writer)
        let scopeSpans = writer.begin(2)
        scope(into: &writer)
        for call in calls {
            call.withUnsafeBufferPointer { spans in
                for index in spans.indices { write(spans[index], into: &writer) }
            }
        }
        writer.end(scopeSpans)
        writer.end(resourceSpans)
        return writer.bytes
    }

    /// The `Resource` of every export (field 1 of `ResourceSpans` and of `ResourceMetrics`):
    /// ``OTLPTraceJSON/resourceAttributes(_:)``.
    static func resource(_ settings: TelemetrySettings, into writer: inout OTLPProtobufWriter) {
        let resource = writer.begin(1)
        for attribute in OTLPTraceJSON.resourceAttributes(settings) { keyValue(1, attribute, into: &writer) }
        writer.end(resource)
    }

    /// The `InstrumentationScope` of every export (field 1 of `ScopeSpans` and of
    /// `ScopeMetrics`): `gatewire` at the library's version.
    static func scope(into writer: inout OTLPProtobufWriter) {
        let scope = writer.begin(1)
        writer.string(1, "gatewire")
        writer.string(2, Version.string)
        writer.end(scope)
    }

    /// `attributes` as `KeyValue` fields numbered `field` (``SharedAttributes``: a span's).
    static func keyValues(_ field: Int, _ attributes: [SpanAttribute]) -> [UInt8] {
        var writer = OTLPProtobufWriter(capacity: 64 * attributes.count)
        for attribute in attributes { keyValue(field, attribute, into: &writer) }
        return writer.bytes
    }

    /// One `Span` message (field 2 of `ScopeSpans`).
    private static func write(_ span: Span, into writer: inout OTLPProtobufWriter) {
        let message = writer.begin(2)
        writer.id(1, span.context.traceID.high, span.context.traceID.low)
        writer.id(2, span.context.spanID.value)
        if let state = span.context.traceState, !state.isEmpty { writer.string(3, state) }
        if let parent = span.parentSpanID { writer.id(4, parent.value) }
        writer.string(5, span.name)
        writer.varint(6, UInt64(span.kind.rawValue))
        writer.fixed64(7, OTLPTraceJSON.nanoseconds(span.startTime))
        writer.fixed64(8, OTLPTraceJSON.nanoseconds(span.endTime))
        if let shared = span.shared { writer.raw(shared.protobuf) }
        for attribute in span.own { keyValue(9, attribute, into: &writer) }
        for event in span.events {
            let encoded = writer.begin(11)
            writer.fixed64(1, OTLPTraceJSON.nanoseconds(event.time))
            writer.string(2, event.name)
            for attribute in event.attributes { keyValue(3, attribute, into: &writer) }
            writer.end(encoded)
        }
        if span.status != .unset || !span.statusMessage.isEmpty {
            let status = writer.begin(15)
            if !span.statusMessage.isEmpty { writer.string(2, span.statusMessage) }
            if span.status != .unset { writer.varint(3, UInt64(span.status.rawValue)) }
            writer.end(status)
        }
        writer.fixed32(16, UInt32(span.context.flags))
        writer.end(message)
    }

    /// A `KeyValue` message as field `field`, its `AnyValue` of the attribute's kind.
    static func keyValue(_ field: Int, _ attribute: SpanAttribute, into writer: inout OTLPProtobufWriter) {
        let pair = writer.begin(field)
        writer.string(1, attribute.key)
        let value = writer.begin(2)
        switch attribute.value {
        case .string(let text): writer.string(1, text)
        case .bool(let flag): writer.varint(2, flag ? 1 : 0)
        case .int(let number): writer.varint(3, UInt64(bitPattern: number))
        case .double(let number): writer.fixed64(4, number.bitPattern)
        }
        writer.end(value)
        writer.end(pair)
    }
}
