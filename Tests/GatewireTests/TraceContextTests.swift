@testable import Gatewire
import Testing

/// `traceparent` parsing and writing by W3C Trace Context Level 1's rules (section 3.2 and
/// 4.3), the samplers, the settings' environment and the route template.
struct TraceContextTests {
    let valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    @Test func parsesAndWritesTheSpecExample() throws {
        let context = try #require(TraceContext(traceparent: valid, traceState: "congo=t61rcWkgMzE"))
        #expect(context.traceID == TraceID(high: 0x4bf9_2f35_77b3_4da6, low: 0xa3ce_929d_0e0e_4736))
        #expect(context.spanID == SpanID(0x00f0_67aa_0ba9_02b7))
        #expect(context.isSampled)
        #expect(context.traceState == "congo=t61rcWkgMzE")
        #expect(context.traceparent == valid)
        let unsampled = try #require(TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"))
        #expect(!unsampled.isSampled)
        #expect(unsampled.traceparent.hasSuffix("-00"))
    }

    @Test(arguments: [
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // upper case
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // all-zero trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // all-zero parent id
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version ff
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",  // version 00 longer than 55
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",  // short
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // wrong separator
        "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",  // not hex
        "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",  // later version, no dash after flags
        "",
    ])
    func rejectsInvalidValues(_ value: String) {
        #expect(TraceContext(traceparent: value) == nil)
    }

    @Test func readsALaterVersionAsVersion00() throws {
        let later = try #require(TraceContext(traceparent: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03-what"))
        #expect(later.traceparent == valid)  // written as 00, flag bits other than sampled dropped
        #expect(TraceContext(traceparent: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01") != nil)
    }

    @Test func randomIDsAreNonZeroAndDistinct() {
        let traces = (0..<64).map { _ in TraceID.random() }
        let spans = (0..<64).map { _ in SpanID.random() }
        #expect(Set(traces).count == 64)
        #expect(Set(spans).count == 64)
        #expect(!spans.contains(SpanID(0)))
        #expect(SpanID(0xab).hex == "00000000000000ab")
    }

    @Test func samplerFollowsTheParentThenTheRatio() throws {
        let parent = try #require(TraceContext(traceparent: valid))
        var unsampled = parent
        unsampled.flags = 0
        let low = TraceID(high: 1, low: 0x1000), high = TraceID(high: 1, low: UInt64.max - 1)
        let half = TraceSampler(followsParent: true, ratio: 0.5)
        #expect(half.samples(low, parent: nil))
        #expect(!half.samples(high, parent: nil))
        #expect(half.samples(high, parent: parent))
        #expect(!half.samples(low, parent: unsampled))
        #expect(TraceSampler(environmentName: "traceidratio", argument: "0.5") == TraceSampler(followsParent: false, ratio: 0.5))
        #expect(TraceSampler(environmentName: "parentbased_always_off", argument: nil) == TraceSampler(followsParent: true, ratio: 0))
        #expect(TraceSampler(environmentName: "traceidratio", argument: "2") == nil)
        #expect(TraceSampler(environmentName: "jaeger_remote", argument: nil) == nil)
    }

    @Test func environmentFillsWhatTheConfigLeavesOut() throws {
        let env = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318/", "OTEL_SERVICE_NAME": "from-env",
                   "OTEL_TRACES_SAMPLER": "always_off", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"]
        #expect(TelemetrySettings.resolved(config: nil, environment: { _ in nil }) == nil)
        let fromEnv = try #require(TelemetrySettings.resolved(config: nil, environment: { env[$0] }))
        #expect(fromEnv.tracesURL == "http://127.0.0.1:4318/v1/traces")
        #expect(fromEnv.serviceName == "from-env")
        #expect(fromEnv.sampler == TraceSampler(followsParent: false, ratio: 0))
        #expect(fromEnv.encoding == .httpJSON)
        // The specification's default; `grpc` is not offered, so it leaves the default.
        let grpc = TelemetrySettings.resolved(config: nil, environment: { name in
            ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"][name]
        })
        #expect(grpc?.otlpProtocol == nil && grpc?.encoding == .httpProtobuf)
        let config = try GatewayConfig(json: """
            {"baseURL": "http://127.0.0.1:1", "telemetry": {"serviceName": "checkout", "sampleRatio": 0.25,
             "otlpProtocol": "http/protobuf", "resource": {"deployment.environment.name": "test", "shard": 3}}}
            """)
        let merged = try #require(TelemetrySettings.resolved(config: config.telemetry, environment: { env[$0] }))
        #expect(merged.serviceName == "checkout")
        #expect(merged.sampler == TraceSampler(followsParent: true, ratio: 0.25))
        #expect(merged.otlpEndpoint == "http://127.0.0.1:4318/")
        #expect(merged.encoding == .httpProtobuf)  // the config's, over the environment's
        #expect(merged.resource == [SpanAttribute("deployment.environment.name", .string("test")), SpanAttribute("shard", .int(3))])
        #expect(TelemetrySettings.resolved(config: config.telemetry, environment: { $0 == "OTEL_SDK_DISABLED" ? "true" : nil }) == nil)
    }

    @Test func configRejectsBadTelemetry() {
        for (json, message) in [(#"{"sampleRatio": 2}"#, "telemetry.sampleRatio"), (#"{"otlpEndpoint": "udp://x"}"#, "telemetry.otlpEndpoint"),
                                (#"{"resource": {"a": [1]}}"#, "telemetry.resource.a"), (#"{"endpoint": "x"}"#, "telemetry"),
                                (#"{"otlpProtocol": "grpc"}"#, "telemetry.otlpProtocol")] {
            #expect(throws: ConfigError.self) { try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "telemetry": "# + json + "}") }
            do {
                _ = try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "telemetry": "# + json + "}")
            } catch {
                #expect(error.path.hasPrefix(message), "\(error)")
            }
        }
    }

    @Test func routeTemplatesNameTheirParameters() {
        #expect(Telemetry.template("/users/:id/posts/:post_id") == "/users/{id}/posts/{post_id}")
        #expect(Telemetry.template("/a/v\\:1/:x.json") == "/a/v:1/{x}.json")
        #expect(Telemetry.template("/plain") == "/plain")
    }
}
