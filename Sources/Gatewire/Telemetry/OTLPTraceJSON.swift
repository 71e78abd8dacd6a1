/// Spans as an OTLP/HTTP JSON `ExportTraceServiceRequest` (the OTLP specification's JSON
/// Protobuf Encoding): trace and span ids as lower-case hex strings, enums as integers,
/// 64-bit integers (times in nanoseconds since the Unix epoch, `intValue`) as decimal strings,
/// field names in lowerCamelCase. One resource (``TelemetrySettings``'s `service.name` and
/// `resource`) and one instrumentation scope, `gatewire` at the library's version.
///
/// Written as text as it goes (``OTLPJSONWriter``), not as a Jansson tree: a span's tree
/// takes a few hundred allocations, most of telemetry's CPU at 100% sampling.
package enum OTLPTraceJSON {
    /// The request body for the spans of `calls` (each call's spans in turn) under the
    /// resource of `settings`. `count`: how many spans they hold (the buffer's first size).
    static func request(_ calls: [[Span]], count: Int, settings: TelemetrySettings) -> [UInt8] {
        var writer = OTLPJSONWriter(capacity: 1024 + count * 900)
        writer.raw("{\"resourceSpans\":[{\"resource\":")
        resource(settings, into: &writer)
        writer.raw(",\"scopeSpans\":[{\"scope\":")
        scope(into: &writer)
        writer.raw(",\"spans\":[")
        writeList(calls, into: &writer)
        writer.raw("]}]}]}")
        return writer.bytes
    }

    /// `spans` as one JSON array of `Span` messages (a C span exporter's text).
    package static func array(_ spans: [Span]) -> [UInt8] {
        var writer = OTLPJSONWriter(capacity: 2 + spans.count * 900)
        writer.raw("[")
        writeList([spans], into: &writer)
        writer.raw("]")
        return writer.bytes
    }

    /// The spans of `calls` as `Span` messages separated by commas: the body of a request's
    /// `spans` and of a span exporter's array. Read in place through the arrays' buffers (an
    /// iterator, or an array's subscript, would copy each span and retain every string and
    /// array it holds).
    private static func writeList(_ calls: [[Span]], into writer: inout OTLPJSONWriter) {
        var first = true
        for call in calls {
            call.withUnsafeBufferPointer { spans in
                for index in spans.indices {
                    if !first { writer.raw(",") }
                    first = false
                    write(spans[index], into: &writer)
                }
            }
        }
    }

    /// `attributes` as OTLP JSON `KeyValue` objects separated by commas (``SharedAttributes``).
    static func elements(_ attributes: [SpanAttribute]) -> [UInt8] {
        var writer = OTLPJSONWriter(capacity: 64 * attributes.count)
        writer.elements(attributes)
        return writer.bytes
    }

    /// The `Resource` of every export: `service.name`, the `telemetry.sdk.*` attributes and
    /// the settings' `resource`.
    static func resource(_ settings: TelemetrySettings, into writer: inout OTLPJSONWriter) {
        writer.raw("{\"attributes\":")
        writer.attributes(resourceAttributes(settings))
        writer.raw("}")
    }

    /// The attributes of every export's `Resource`: `service.name`, the `telemetry.sdk.*`
    /// attributes and the settings' `resource`.
    static func resourceAttributes(_ settings: TelemetrySettings) -> [SpanAttribute] {
        [SpanAttribute("service.name", .string(settings.serviceName ?? "unknown_service")),
         SpanAttribute("telemetry.sdk.name", .string("gatewire")),
         SpanAttribute("telemetry.sdk.language", .string("swift")),
         SpanAttribute("telemetry.sdk.version", .string(Version.string))]
            + settings.resource.filter { $0.key != "service.name" }
    }

    /// The `InstrumentationScope` of every export: `gatewire` at the library's version.
    static func scope(into writer: inout OTLPJSONWriter) {
        writer.raw("{\"name\":\"gatewire\",\"version\":")
        writer.string(Version.string)
        writer.raw("}")
    }

    /// One `Span` message.
    static func write(_ span: Span, into writer: inout OTLPJSONWriter) {
        writer.raw("{\"traceId\":")
        writer.hex(span.context.traceID.high, span.context.traceID.low)
        writer.raw(",\"spanId\":")
        writer.hex(span.context.spanID.value)
        if let state = span.context.traceState {
            writer.raw(",\"traceState\":")
            writer.string(state)
        }
        if let parent = span.parentSpanID {
            writer.raw(",\"parentSpanId\":")
            writer.hex(parent.value)
        }
        writer.raw(",\"flags\":")
        writer.integer(Int64(span.context.flags))
        writer.raw(",\"name\":")
        writer.string(span.name)
        writer.raw(",\"kind\":")
        writer.integer(Int64(span.kind.rawValue))
        writer.raw(",\"startTimeUnixNano\":")
        writer.time(nanoseconds(span.startTime))
        writer.raw(",\"endTimeUnixNano\":")
        writer.time(nanoseconds(span.endTime))
        writer.raw(",\"attributes\":")
        writer.attributes(span.own, after: span.shared)
        writer.raw(",\"events\":[")
        for (index, event) in span.events.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.raw("{\"timeUnixNano\":")
            writer.time(nanoseconds(event.time))
            writer.raw(",\"name\":")
            writer.string(event.name)
            writer.raw(",\"attributes\":")
            writer.attributes(event.attributes)
            writer.raw("}")
        }
        writer.raw("],\"status\":{\"code\":")
        writer.integer(Int64(span.status.rawValue))
        if !span.statusMessage.isEmpty {
            writer.raw(",\"message\":")
            writer.string(span.statusMessage)
        }
        writer.raw("}}")
    }

    /// Seconds since the epoch as whole nanoseconds (`fixed64`, written as a decimal string).
    static func nanoseconds(_ seconds: Double) -> UInt64 {
        UInt64(max(0, seconds * 1_000_000_000).rounded())
    }
}
