/// One finished span as Gatewire records it, in OpenTelemetry's data model (the trace
/// specification's Span: name, context, parent, kind, start and end, attributes, events,
/// status), so a caller can hand it to any tracing API (swift-distributed-tracing included)
/// and the OTLP exporter can write it as it is.
///
/// A call gives one span of kind ``Kind/internal`` for the whole call and one of kind
/// ``Kind/client`` per attempt (the physical HTTP request, as the HTTP client semantic
/// conventions define it), the attempts' parent being the call's span. docs/telemetry.md
/// lists every name, attribute and event.
public struct Span: Sendable {
    /// OpenTelemetry's SpanKind (OTLP's enum numbers).
    public enum Kind: Int, Sendable {
        /// The call's span: it spans the attempts and the delays between them.
        case `internal` = 1
        /// An attempt's span: one HTTP request on the wire.
        case client = 3
    }

    /// OpenTelemetry's span status (OTLP's `Status.code` numbers).
    public enum StatusCode: Int, Sendable {
        /// No error (the conventions leave a client span's status unset unless it failed).
        case unset = 0
        /// The attempt or call failed: ``Span/statusMessage`` says how.
        case error = 2
    }

    /// `{method} {url.template}`, or `{method}` when the call has no route (the HTTP span
    /// naming rule of the semantic conventions).
    public var name: String
    /// This span's trace id, span id and flags.
    public var context: TraceContext
    /// The parent span's id within the same trace, or nil for a root span.
    public var parentSpanID: SpanID?
    /// Internal (a call) or client (an attempt).
    public var kind: Kind
    /// Start, in seconds since the Unix epoch (`CLOCK_REALTIME` at the call's start, plus
    /// monotonic time since it).
    public var startTime: Double
    /// End, in seconds since the Unix epoch.
    public var endTime: Double
    /// The attributes, in the order recorded (keys unique): those every span of the call's
    /// target has (method, server, `url.full`, `url.template`), then the span's own. Read, it
    /// is a new array of both; set, the span's own are the new ones.
    public var attributes: [SpanAttribute] {
        get { shared.map { $0.list + own } ?? own }
        set {
            own = newValue
            shared = nil
        }
    }
    /// The attributes every span of the call's target shares, with their OTLP JSON: one
    /// value for all those spans, not a copy each. Nil: none.
    var shared: SharedAttributes?
    /// The span's own attributes, after ``shared``'s.
    var own: [SpanAttribute]
    /// The events, in time order.
    public var events: [SpanEvent]
    /// Whether the span failed.
    public var status: StatusCode
    /// Why it failed (the error kind and message, secrets redacted); empty when it did not.
    public var statusMessage: String

    /// The value of attribute `key`, or nil.
    public subscript(attribute key: String) -> SpanAttribute.Value? {
        (shared?.list.first { $0.key == key } ?? own.first { $0.key == key })?.value
    }
}

/// Attributes that many spans share (every span of one call target), with their OTLP JSON
/// as the elements a span's `attributes` list begins with: written once, copied into each
/// export. Immutable: made on the loop thread, read by the worker that encodes a batch.
final class SharedAttributes: Sendable {
    let list: [SpanAttribute]
    /// `list` as OTLP JSON `KeyValue` objects separated by commas, no brackets.
    let json: [UInt8]
    /// `list` as OTLP protobuf `KeyValue` messages, a span's field 9.
    let protobuf: [UInt8]

    init(_ list: [SpanAttribute]) {
        self.list = list
        json = OTLPTraceJSON.elements(list)
        protobuf = OTLPTraceProtobuf.keyValues(9, list)
    }
}

/// One attribute of a span or event: a key from the semantic conventions (`http.*`,
/// `server.*`, `url.*`, `error.type`, `network.*`) or Gatewire's own (`gatewire.*`).
public struct SpanAttribute: Sendable, Hashable {
    /// An attribute's value (OTLP's `AnyValue` kinds that Gatewire uses).
    public enum Value: Sendable, Hashable {
        /// Text (`stringValue`), e.g. a URL or a method.
        case string(String)
        /// A 64-bit integer (`intValue`), e.g. a status code or a port.
        case int(Int64)
        /// A real number (`doubleValue`), e.g. a delay in seconds.
        case double(Double)
        /// A boolean (`boolValue`).
        case bool(Bool)
    }

    /// The attribute's name, e.g. `http.request.method`.
    public var key: String
    /// Its value.
    public var value: Value

    /// An attribute `key` = `value`.
    public init(_ key: String, _ value: Value) {
        self.key = key
        self.value = value
    }
}

/// A span event: something that happened at one instant of a span (a phase of the
/// transfer, a retry decision, a redirect).
public struct SpanEvent: Sendable {
    /// The event's name, e.g. `gatewire.dns` or `gatewire.retry`.
    public var name: String
    /// When, in seconds since the Unix epoch.
    public var time: Double
    /// Its attributes.
    public var attributes: [SpanAttribute]

    /// An event `name` at `time` with `attributes`.
    public init(name: String, time: Double, attributes: [SpanAttribute] = []) {
        self.name = name
        self.time = time
        self.attributes = attributes
    }
}

/// Receives a client's finished spans as values: a Swift caller's bridge to its own tracing
/// (swift-distributed-tracing, a test's collector). Registered with
/// ``Client/addSpanExporter(_:)``.
///
/// Called on the client's event-loop thread, once per call when the call ends, with the
/// call's span first and then its attempts' in order; it must not block (hand the spans to
/// another queue for slow work). Only sampled calls are exported.
public protocol SpanExporter: Sendable {
    /// Takes the spans of one finished call.
    func export(_ spans: [Span])
}
