extension TelemetrySettings {
    /// Reads the config's `telemetry`: `{"otlpEndpoint": "http://127.0.0.1:4318",
    /// "otlpProtocol": "http/protobuf", "serviceName": "checkout", "sampleRatio": 0.25,
    /// "resource": {"deployment.environment.name": "prod"}}`, every key optional.
    /// Keys left out stay nil, for the environment to fill (``resolved(config:environment:)``).
    /// - Throws: ``ConfigError`` at the field: an unknown key, an endpoint that is not an
    ///   absolute http(s) URL (``GatewayConfig/baseURLProblem(_:)``), a protocol other than
    ///   `http/protobuf` and `http/json`, a ratio outside 0...1, a resource value that is not a
    ///   string, number or boolean.
    static func from(config node: ConfigNode) throws(ConfigError) -> TelemetrySettings {
        try node.rejectUnknownKeys(["otlpEndpoint", "otlpProtocol", "serviceName", "sampleRatio", "resource"])
        var settings = TelemetrySettings()
        if let endpoint = try node.optional("otlpEndpoint") {
            settings.otlpEndpoint = try endpoint.string(checkedBy: GatewayConfig.baseURLProblem)
        }
        if let name = try node.optional("otlpProtocol") {
            let text = try name.string()
            guard let value = OTLPProtocol(rawValue: text) else {
                throw name.error("expected \"http/protobuf\" or \"http/json\", got \"\(text)\"")
            }
            settings.otlpProtocol = value
        }
        if let name = try node.optional("serviceName") {
            settings.serviceName = try name.string(checkedBy: { $0.isEmpty ? "must not be empty" : nil })
        }
        if let ratio = try node.optional("sampleRatio") {
            settings.sampler = TraceSampler(followsParent: true, ratio: try ratio.number(in: 0...1))
        }
        if let resource = try node.optional("resource") {
            for (key, value) in try resource.members() {
                switch value.json.kind {
                case .string: settings.resource.append(SpanAttribute(key, .string(try value.string())))
                case .integer: settings.resource.append(SpanAttribute(key, .int(try value.integer())))
                case .real: settings.resource.append(SpanAttribute(key, .double(try value.number())))
                case .bool: settings.resource.append(SpanAttribute(key, .bool(try value.bool())))
                default: throw value.error("expected a string, number or boolean, got \(value.json.kind.name)")
                }
            }
        }
        return settings
    }
}
