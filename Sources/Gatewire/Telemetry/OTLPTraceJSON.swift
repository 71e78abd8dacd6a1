/// Spans as an OTLP/HTTP JSON `ExportTraceServiceRequest` (the OTLP specification's JSON
/// Protobuf Encoding): trace and span ids as lower-case hex strings, enums as integers,
/// 64-bit integers (times in nanoseconds since the Unix epoch, `intValue`) as decimal strings,
/// field names in lowerCamelCase. One resource (``TelemetrySettings``'s `service.name` and
/// `resource`) and one instrumentation scope, `gatewire` at the library's version.
enum OTLPTraceJSON {
    /// The request body for `spans` under the resource of `settings`.
    static func request(_ spans: [Span], settings: TelemetrySettings) -> JSONValue {
        let list = JSONValue.array()
        for span in spans { list.append(json(span)) }
        let scopeSpans = JSONValue.object()
        scopeSpans.set("scope", scope())
        scopeSpans.set("spans", list)
        let scopes = JSONValue.array()
        scopes.append(scopeSpans)
        let resourceSpans = JSONValue.object()
        resourceSpans.set("resource", resource(settings))
        resourceSpans.set("scopeSpans", scopes)
        let all = JSONValue.array()
        all.append(resourceSpans)
        let root = JSONValue.object()
        root.set("resourceSpans", all)
        return root
    }

    /// The `Resource` of every export: `service.name`, the `telemetry.sdk.*` attributes and
    /// the settings' `resource`.
    static func resource(_ settings: TelemetrySettings) -> JSONValue {
        let resource = JSONValue.object()
        let resourceAttributes = [SpanAttribute("service.name", .string(settings.serviceName ?? "unknown_service")),
                                  SpanAttribute("telemetry.sdk.name", .string("gatewire")),
                                  SpanAttribute("telemetry.sdk.language", .string("swift")),
                                  SpanAttribute("telemetry.sdk.version", .string(Version.string))]
            + settings.resource.filter { $0.key != "service.name" }
        resource.set("attributes", attributes(resourceAttributes))
        return resource
    }

    /// The `InstrumentationScope` of every export: `gatewire` at the library's version.
    static func scope() -> JSONValue {
        let scope = JSONValue.object()
        scope.set("name", .string("gatewire"))
        scope.set("version", .string(Version.string))
        return scope
    }

    /// One `Span` message.
    static func json(_ span: Span) -> JSONValue {
        let object = JSONValue.object()
        object.set("traceId", .string(span.context.traceID.hex))
        object.set("spanId", .string(span.context.spanID.hex))
        if let state = span.context.traceState { object.set("traceState", .string(state)) }
        if let parent = span.parentSpanID { object.set("parentSpanId", .string(parent.hex)) }
        object.set("flags", .integer(Int64(span.context.flags)))
        object.set("name", .string(span.name))
        object.set("kind", .integer(Int64(span.kind.rawValue)))
        object.set("startTimeUnixNano", .string(nanoseconds(span.startTime)))
        object.set("endTimeUnixNano", .string(nanoseconds(span.endTime)))
        object.set("attributes", attributes(span.attributes))
        let events = JSONValue.array()
        for event in span.events {
            let item = JSONValue.object()
            item.set("timeUnixNano", .string(nanoseconds(event.time)))
            item.set("name", .string(event.name))
            item.set("attributes", attributes(event.attributes))
            events.append(item)
        }
        object.set("events", events)
        let status = JSONValue.object()
        status.set("code", .integer(Int64(span.status.rawValue)))
        if !span.statusMessage.isEmpty { status.set("message", .string(span.statusMessage)) }
        object.set("status", status)
        return object
    }

    /// `[{"key", "value": {"stringValue" | "intValue" | "doubleValue" | "boolValue"}}]`.
    static func attributes(_ list: [SpanAttribute]) -> JSONValue {
        let array = JSONValue.array()
        for attribute in list {
            let value = JSONValue.object()
            switch attribute.value {
            case .string(let text): value.set("stringValue", .string(text))
            case .int(let number): value.set("intValue", .string(String(number)))
            case .double(let number): value.set("doubleValue", .number(number))
            case .bool(let flag): value.set("boolValue", .bool(flag))
            }
            let item = JSONValue.object()
            item.set("key", .string(attribute.key))
            item.set("value", value)
            array.append(item)
        }
        return array
    }

    /// Seconds since the epoch as whole nanoseconds in decimal (`fixed64` in JSON: a string).
    static func nanoseconds(_ seconds: Double) -> String {
        String(UInt64(max(0, seconds * 1_000_000_000).rounded()))
    }
}
