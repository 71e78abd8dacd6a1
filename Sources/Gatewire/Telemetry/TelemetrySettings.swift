import Glibc

/// A client's telemetry (config key `telemetry`, and the OpenTelemetry SDK's environment
/// variables): where its spans go and which calls are sampled. docs/telemetry.md.
///
/// With telemetry on, every call is a trace's span and each attempt a client span under it,
/// sent in each attempt's `traceparent`; the spans of sampled calls go to the OTLP endpoint
/// (when one is set) and to every ``SpanExporter`` of the client.
public struct TelemetrySettings: Sendable, Equatable {
    /// The OTLP/HTTP collector's base URL, e.g. `http://127.0.0.1:4318` (key `otlpEndpoint`,
    /// env `OTEL_EXPORTER_OTLP_ENDPOINT`): spans are POSTed to `<endpoint>/v1/traces` and
    /// metrics to `<endpoint>/v1/metrics` (the OTLP specification's paths for the
    /// non-signal-specific variable). nil: no OTLP export.
    public var otlpEndpoint: String?
    /// The `service.name` resource attribute (key `serviceName`, env `OTEL_SERVICE_NAME`);
    /// nil: `unknown_service` (the resource semantic conventions' default).
    public var serviceName: String?
    /// Which calls are sampled (key `sampleRatio`: the ratio of `parentbased_traceidratio`;
    /// env `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`); nil: `parentbased_always_on`.
    public var sampler: TraceSampler?
    /// More resource attributes (key `resource`: an object of strings, numbers and booleans),
    /// e.g. `deployment.environment.name`.
    public var resource: [SpanAttribute] = []
    /// How OTLP exports are encoded (key `otlpProtocol`, env `OTEL_EXPORTER_OTLP_PROTOCOL`:
    /// `http/protobuf` or `http/json`; `grpc` is not offered); nil: `http/protobuf`, the OTLP
    /// exporter specification's default.
    public var otlpProtocol: OTLPProtocol?

    /// ``otlpProtocol`` or its default.
    var encoding: OTLPProtocol { otlpProtocol ?? .httpProtobuf }
    /// Seconds between two OTLP exports of the metrics (env `OTEL_METRIC_EXPORT_INTERVAL`, in
    /// milliseconds as the SDK's specification has it); nil: 10 s (the specification's 60 s
    /// is long for a short-lived program; a client's close exports them too).
    public var metricExportInterval: Double?

    /// ``metricExportInterval`` or its 10 s default.
    var metricInterval: Double { metricExportInterval ?? 10 }

    /// The defaults: no OTLP endpoint, `unknown_service`, every call sampled unless its
    /// parent is not.
    public init() {}

    /// These settings completed by the OpenTelemetry SDK's environment variables: each
    /// variable fills only a field the config left nil, so a config wins over the
    /// environment. `OTEL_SDK_DISABLED=true` turns telemetry off (nil).
    /// - Parameters:
    ///   - config: the config's `telemetry`, or nil when it has none.
    ///   - environment: reads a variable (default `getenv`).
    /// - Returns: the settings, or nil when telemetry is off (no config section and no
    ///   `OTEL_EXPORTER_OTLP_ENDPOINT`, or the SDK disabled).
    package static func resolved(config: TelemetrySettings?,
                                 environment: (String) -> String? = TelemetrySettings.getenv) -> TelemetrySettings? {
        if environment("OTEL_SDK_DISABLED")?.lowercased() == "true" { return nil }
        let endpoint = environment("OTEL_EXPORTER_OTLP_ENDPOINT").flatMap { $0.isEmpty ? nil : $0 }
        guard config != nil || endpoint != nil else { return nil }
        var settings = config ?? TelemetrySettings()
        if settings.otlpEndpoint == nil { settings.otlpEndpoint = endpoint }
        if settings.serviceName == nil, let name = environment("OTEL_SERVICE_NAME"), !name.isEmpty {
            settings.serviceName = name
        }
        if settings.sampler == nil, let name = environment("OTEL_TRACES_SAMPLER"),
           let sampler = TraceSampler(environmentName: name, argument: environment("OTEL_TRACES_SAMPLER_ARG")) {
            settings.sampler = sampler
        }
        if settings.otlpProtocol == nil, let name = environment("OTEL_EXPORTER_OTLP_PROTOCOL") {
            settings.otlpProtocol = OTLPProtocol(rawValue: name)  // another (grpc) leaves the default
        }
        if settings.metricExportInterval == nil, let text = environment("OTEL_METRIC_EXPORT_INTERVAL"),
           let milliseconds = Double(text), milliseconds > 0, milliseconds.isFinite {
            settings.metricExportInterval = milliseconds / 1000
        }
        return settings
    }

    /// The process environment's value of `name`, or nil.
    package static func getenv(_ name: String) -> String? {
        Glibc.getenv(name).map { String(cString: $0) }
    }

    /// The traces URL: ``otlpEndpoint`` without its trailing slashes, plus `/v1/traces`.
    var tracesURL: String? { signalURL("traces") }

    /// The metrics URL: ``otlpEndpoint`` without its trailing slashes, plus `/v1/metrics`.
    var metricsURL: String? { signalURL("metrics") }

    private func signalURL(_ signal: String) -> String? {
        guard var base = otlpEndpoint else { return nil }
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/v1/" + signal
    }
}

/// The encodings of OTLP over HTTP (the OTLP exporter specification's `protocol` values).
public enum OTLPProtocol: String, Sendable {
    /// The `Content-Type` of an export.
    var contentType: String { self == .httpProtobuf ? "application/x-protobuf" : "application/json" }

    /// `http/protobuf`: the protocol buffers wire format, `Content-Type: application/x-protobuf`.
    case httpProtobuf = "http/protobuf"
    /// `http/json`: the JSON Protobuf Encoding, `Content-Type: application/json`.
    case httpJSON = "http/json"
}
