@testable import Gatewire
import Glibc
import Testing

/// Traces of real calls against the scripted test server: the `traceparent` each attempt
/// sends (the server records them: `/sequence/<key>/traces`), the spans a ``SpanExporter``
/// receives, and the OTLP export as the loopback receiver decodes it with `opentelemetry-proto`.
@Suite(.serialized) struct TelemetryTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    /// Collects the spans a client exports.
    final class Collector: SpanExporter {
        private let spans = Lock<[Span]>([])
        func export(_ spans: [Span]) { self.spans.withLock { $0 += spans } }
        var all: [Span] { spans.withLock { $0 } }
    }

    func key(_ name: String) -> String { "\(name)-\(getpid())-\(Int(MonotonicNow.seconds * 1e6))" }

    func client(_ extra: String = "") throws -> Client {
        let json = """
            {"baseURL": "\(server.baseURL)", "retry": {"maxRetries": 3, "initialDelay": 0.01, "jitter": "none"},
             "routes": {"seq": {"method": "GET", "pathPattern": "/sequence/:key/:statuses"}}\(extra)}
            """
        return try Client(config: try GatewayConfig(json: json))
    }

    /// The `traceparent` and `tracestate` fields the server saw for `key`, in order.
    func seen(_ key: String) async throws -> (traceparent: [String?], tracestate: [String?]) {
        let text = try await client().send(.get("/sequence/\(key)/traces")).http.text
        let node = try JSONValue.parse(text).node
        return (node["traceparent"]!.elements.map(\.string), node["tracestate"]!.elements.map(\.string))
    }

    func attribute(_ span: Span, _ key: String) -> SpanAttribute.Value? { span[attribute: key] }

    @Test func retriedCallGivesOneCallSpanAndAClientSpanPerAttempt() async throws {
        let client = try client()
        let collector = Collector()
        client.addSpanExporter(collector)
        let key = key("retry")
        let response = try await client.send(Request(route: "seq", parameters: ["key": key, "statuses": "503,500,200"]))
        #expect(response.status == 200)
        #expect(response.attempts.count == 3)
        let spans = collector.all
        try #require(spans.count == 4)
        let call = spans[0], attempts = Array(spans[1...])
        #expect(call.kind == .internal)
        #expect(call.parentSpanID == nil)
        #expect(call.name == "GET /sequence/{key}/{statuses}")
        #expect(attribute(call, "http.response.status_code") == .int(200))
        #expect(attribute(call, "error.type") == nil)
        #expect(call.events.filter { $0.name == "gatewire.retry" }.count == 2)
        #expect(call.events.first?.attributes.contains(SpanAttribute("gatewire.retry.delay", .double(0.01))) == true)
        #expect(attempts.map(\.kind) == [.client, .client, .client])
        #expect(attempts.map(\.parentSpanID) == [call.context.spanID, call.context.spanID, call.context.spanID])
        #expect(attempts.map { attribute($0, "http.response.status_code") } == [.int(503), .int(500), .int(200)])
        #expect(attempts.map { attribute($0, "error.type") } == [.string("503"), .string("500"), nil])
        #expect(attempts.map { attribute($0, "http.request.resend_count") } == [nil, .int(1), .int(2)])
        #expect(attempts.map(\.status) == [.error, .error, .unset])
        for span in attempts {
            #expect(span.name == "GET /sequence/{key}/{statuses}")
            #expect(span.context.traceID == call.context.traceID)
            #expect(attribute(span, "http.request.method") == .string("GET"))
            #expect(attribute(span, "server.address") == .string("127.0.0.1"))
            #expect(attribute(span, "server.port") == .int(Int64(server.port)))
            #expect(attribute(span, "url.full") == .string("\(server.baseURL)/sequence/\(key)/503%2C500%2C200"))
            #expect(attribute(span, "url.template") == .string("/sequence/{key}/{statuses}"))
            #expect(attribute(span, "network.protocol.version") == .string("1.1"))
            #expect(span.startTime >= call.startTime && span.endTime <= call.endTime)
            // The phases are events inside the span, in time order.
            #expect(span.events.map(\.name).contains("gatewire.first_byte"))
            #expect(span.events.map(\.time) == span.events.map(\.time).sorted())
            #expect(span.events.allSatisfy { $0.time >= span.startTime && $0.time <= span.endTime + 1e-3 })
        }
        // The first attempt opened the connection the others reuse (the test server keeps it alive).
        #expect(attempts[0].events.map(\.name).contains("gatewire.connect"))
        let (traceparents, _) = try await seen(key)
        #expect(traceparents == attempts.map { "00-\(call.context.traceID.hex)-\($0.context.spanID.hex)-01" })
        #expect(Set(traceparents).count == 3)
    }

    @Test func callOptionsAndTheTaskLocalGiveTheParent() async throws {
        let client = try client()
        let collector = Collector()
        client.addSpanExporter(collector)
        let parent = try #require(TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                                               traceState: "congo=t61rcWkgMzE"))
        let optionKey = key("option")
        var request = Request(route: "seq", parameters: ["key": optionKey, "statuses": "200"])
        request.options.traceParent = parent
        _ = try await client.send(request)
        let ambientKey = key("ambient")
        _ = try await TraceContext.$current.withValue(parent) {
            try await client.send(Request(route: "seq", parameters: ["key": ambientKey, "statuses": "200"]))
        }
        let spans = collector.all
        try #require(spans.count == 4)
        for (index, key) in [optionKey, ambientKey].enumerated() {
            let call = spans[2 * index], attempt = spans[2 * index + 1]
            #expect(call.context.traceID == parent.traceID)
            #expect(call.parentSpanID == parent.spanID)
            let (traceparents, tracestates) = try await seen(key)
            #expect(traceparents == ["00-4bf92f3577b34da6a3ce929d0e0e4736-\(attempt.context.spanID.hex)-01"])
            #expect(tracestates == ["congo=t61rcWkgMzE"])
        }
    }

    @Test func unsampledParentIsPropagatedAndNothingIsExported() async throws {
        let client = try client()
        let collector = Collector()
        client.addSpanExporter(collector)
        let key = key("unsampled")
        var request = Request(route: "seq", parameters: ["key": key, "statuses": "503,200"])
        request.options.traceParent = TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")
        _ = try await client.send(request)
        #expect(collector.all.isEmpty)
        let (traceparents, _) = try await seen(key)
        #expect(traceparents.count == 2)
        #expect(traceparents.allSatisfy { $0?.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-") == true && $0?.hasSuffix("-00") == true })
        #expect(Set(traceparents).count == 2)
    }

    @Test func telemetryOffAddsNothingAndForwardsAGivenParent() async throws {
        let client = try client()
        let plain = key("off")
        _ = try await client.send(Request(route: "seq", parameters: ["key": plain, "statuses": "200"]))
        #expect(try await seen(plain).traceparent == [nil])
        let forwarded = key("forward")
        var request = Request(route: "seq", parameters: ["key": forwarded, "statuses": "503,200"])
        request.options.traceParent = TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        _ = try await client.send(request)
        #expect(try await seen(forwarded).traceparent == Array(repeating: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", count: 2))
    }

    @Test func callersOwnTraceparentIsKept() async throws {
        let client = try client()
        client.addSpanExporter(Collector())
        let key = key("own")
        var request = Request(route: "seq", parameters: ["key": key, "statuses": "200"])
        request.headers.set("traceparent", "00-11111111111111111111111111111111-2222222222222222-01")
        _ = try await client.send(request)
        #expect(try await seen(key).traceparent == ["00-11111111111111111111111111111111-2222222222222222-01"])
    }

    @Test func deadlineEndsTheCallAndAttemptSpans() async throws {
        let client = try client(#", "timeouts": {"deadline": 0.2}"#)
        let collector = Collector()
        client.addSpanExporter(collector)
        await #expect(throws: GatewireError.self) { try await client.send(.get("/delay/3000")) }
        let spans = collector.all
        try #require(spans.count == 2)
        #expect(spans[0].name == "GET")
        #expect(spans[0][attribute: "error.type"] == .string("deadline"))
        #expect(spans[1][attribute: "error.type"] == .string("deadline"))
        #expect(spans[1].kind == .client)
        #expect(spans[0].endTime - spans[0].startTime >= 0.2)
        // The attempt stopped on the wire is measured and leaves the active requests.
        let snapshot = try #require(client.metricsSnapshot())
        let duration = try #require(snapshot["http.client.request.duration"]?.points.first)
        #expect(duration.attributes.contains(SpanAttribute("error.type", .string("deadline"))))
        #expect(duration.histogram?.count == 1)
        #expect((duration.histogram?.sum ?? 0) >= spans[1].endTime - spans[1].startTime - 1e-3)
        #expect(snapshot["http.client.active_requests"]?.points.map(\.value) == [0])
        #expect(snapshot["gatewire.client.queue.wait"]?.points.first?.histogram?.count == 1)
    }

    @Test func callSpanHoldsRedirectsCacheHitsAndBreakerRefusals() async throws {
        let client = try client(#", "cache": true"#)
        let collector = Collector()
        client.addSpanExporter(collector)
        // A followed redirect: one attempt of two requests on the wire, each a client span of
        // its own (the conventions' physical request, counted by resend_count) sending its
        // own traceparent; the hop is also an event of the call's span.
        let target = key("redirected")
        _ = try await client.send(.get("/redirect-to", parameters: ["url": "/sequence/\(target)/200"]))
        let redirect = collector.all
        try #require(redirect.count == 3)
        #expect(redirect.map(\.kind) == [.internal, .client, .client])
        #expect(redirect[1][attribute: "http.response.status_code"] == .int(302))
        #expect(redirect[1][attribute: "http.request.resend_count"] == nil)
        #expect(redirect[1].status == .unset)
        #expect(redirect[1].events.map(\.name).contains("gatewire.first_byte"))
        #expect(redirect[2][attribute: "http.response.status_code"] == .int(200))
        #expect(redirect[2][attribute: "http.request.resend_count"] == .int(1))
        #expect(redirect[2][attribute: "url.full"] == .string("\(server.baseURL)/sequence/\(target)/200"))
        #expect(redirect[2].events.map(\.name).contains("gatewire.first_byte"))
        #expect(redirect[1...].allSatisfy { $0.parentSpanID == redirect[0].context.spanID })
        #expect(redirect[1].context.spanID != redirect[2].context.spanID)
        #expect(redirect[1].endTime <= redirect[2].startTime + 1e-6)
        #expect(redirect[0][attribute: "gatewire.attempts"] == .int(1))
        let hop = try #require(redirect[0].events.first { $0.name == "gatewire.redirect" })
        #expect(hop.attributes.contains(SpanAttribute("http.response.status_code", .int(302))))
        #expect(hop.attributes.contains(SpanAttribute("url.full", .string("\(server.baseURL)/sequence/\(target)/200"))))
        #expect(abs(hop.time - redirect[1].endTime) < 1e-6)  // when the redirect's request ended
        let (traceparents, _) = try await seen(target)
        #expect(traceparents == ["00-\(redirect[0].context.traceID.hex)-\(redirect[2].context.spanID.hex)-01"])
        // Each request is one measurement of http.client.request.duration.
        let durations = try #require(client.metricsSnapshot()?["http.client.request.duration"])
        #expect(durations.point([SpanAttribute("http.request.method", .string("GET")),
                                 SpanAttribute("server.address", .string("127.0.0.1")),
                                 SpanAttribute("server.port", .int(Int64(server.port))),
                                 SpanAttribute("http.response.status_code", .int(302)),
                                 SpanAttribute("network.protocol.version", .string("1.1"))])?.histogram?.count == 1)
        // A fresh cache hit: no attempt, the hit an event of the call's span.
        let key = key("cached")
        for _ in 0..<2 { _ = try await client.send(.get("/cacheable/\(key)", parameters: ["cc": "max-age=60"])) }
        let cached = Array(collector.all[3...])
        #expect(cached.map(\.kind) == [.internal, .client, .internal])
        #expect(cached[2].events.map(\.name) == ["gatewire.cache_hit"])
        #expect(cached[2][attribute: "gatewire.attempts"] == .int(0))
        // Two failed attempts open the host's breaker: the first retry is refused.
        let guarded = try Client(config: try GatewayConfig(json: """
            {"baseURL": "\(server.baseURL)", "retry": {"maxRetries": 3, "initialDelay": 0.01, "jitter": "none"},
             "circuitBreaker": {"failureRatio": 1, "minimumThroughput": 2, "breakDuration": 30}}
            """))
        let breakerCollector = Collector()
        guarded.addSpanExporter(breakerCollector)
        let refused = await #expect(throws: GatewireError.self) { try await guarded.send(.get("/status/503")) }
        #expect(refused?.kind == .circuitOpen)
        let last = try #require(breakerCollector.all.first)
        #expect(last.events.map(\.name).contains("gatewire.circuit_open"))
        #expect(last[attribute: "error.type"] == .string("circuit_open"))
    }

    @Test("a rate limit's wait and refusal are events of the call's span")
    func callSpanHoldsRateLimitWaitsAndRefusals() async throws {
        // One request a minute, no burst: the first call goes, the second is refused at once
        // (wait: false); one a second: the second call waits for its slot (wait: true).
        let limited = try Client(config: try GatewayConfig(json: """
            {"baseURL": "\(server.baseURL)", "rateLimit": {"requests": 1, "per": 60, "wait": false}}
            """))
        let collector = Collector()
        limited.addSpanExporter(collector)
        _ = try await limited.send(.get("/status/200"))
        let refused = await #expect(throws: GatewireError.self) { try await limited.send(.get("/status/200")) }
        #expect(refused?.kind == .rateLimited)
        let span = try #require(collector.all.last)
        let event = try #require(span.events.first { $0.name == "gatewire.rate_limited" })
        #expect(event.attributes.contains(SpanAttribute("gatewire.paused", .bool(false))))
        guard case let .double(retryAfter)? = event.attributes.first(where: { $0.key == "gatewire.retry_after" })?.value
        else { Issue.record("no gatewire.retry_after in \(event.attributes)"); return }
        #expect(retryAfter > 50 && retryAfter <= 60)
        #expect(span[attribute: "error.type"] == .string("rate_limited"))

        // One a minute, waiting: the second call waits for its slot (a minute, whatever the
        // machine's speed), and is cancelled while it waits, which ends its span.
        let waiting = try Client(config: try GatewayConfig(json: """
            {"baseURL": "\(server.baseURL)", "rateLimit": {"requests": 1, "per": 60}}
            """))
        let waits = Collector()
        waiting.addSpanExporter(waits)
        _ = try await waiting.send(.get("/status/200"))
        let ended = Lock<GatewireError?>(nil)
        let handle = waiting.start(.get("/status/200")) { result in
            if case let .failure(error) = result { ended.withLock { $0 = error } }
        }
        try await Task.sleep(for: .milliseconds(300))
        handle.cancel()
        for _ in 0..<500 where waits.all.filter({ $0.kind == .internal }).count < 2 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(ended.withLock { $0 }?.kind == .cancelled)
        let second = try #require(waits.all.last { $0.kind == .internal })
        let wait = try #require(second.events.first { $0.name == "gatewire.rate_limit_wait" })
        guard case let .double(seconds)? = wait.attributes.first(where: { $0.key == "gatewire.wait" })?.value
        else { Issue.record("no gatewire.wait in \(wait.attributes)"); return }
        #expect(seconds > 50 && seconds <= 60)
    }

    /// Each encoding: `protocol` nil is the default (`http/protobuf`).
    @Test(arguments: [(nil, "application/x-protobuf"), ("http/json", "application/json")] as [(String?, String)])
    func otlpExportIsDecodedByTheProtoAndHoldsNoSecret(protocol: String?, contentType: String) async throws {
        let receiver = try OTLPReceiver()
        defer { receiver.stop() }
        let secretURL = "http://agent:hunter2pw@127.0.0.1:\(server.port)"
        let encoding = `protocol`.map { #", "otlpProtocol": "\#($0)""# } ?? ""
        let client = try Client(config: try GatewayConfig(json: """
            {"baseURL": "\(secretURL)", "retry": {"maxRetries": 3, "initialDelay": 0.01, "jitter": "none"},
             "telemetry": {"otlpEndpoint": "\(receiver.endpoint)", "serviceName": "checkout", "resource": {"team": "payments"}\(encoding)}}
            """))
        let collector = Collector()
        client.addSpanExporter(collector)
        let key = key("otlp")
        let response = try await client.send(.get("/sequence/\(key)/503,503,200?token=s3cr3tvalue&page=2"))
        #expect(response.status == 200)
        client.close()  // flushes the queue
        #expect(client.spanExportCounts == SpanExportCounts(exported: 4, dropped: 0))
        let requests = try await receiver.received().node["requests"]!.elements.filter { $0["path"]!.string == "/v1/traces" }
        try #require(requests.count == 1)
        #expect(requests[0]["error"]!.isNull)
        #expect(requests[0]["content_type"]!.string == contentType)
        let body = try #require(requests[0]["body"]!.string)
        #expect(!body.contains("hunter2pw") && !body.contains("s3cr3tvalue") && !body.contains("agent:"))
        let spans = requests[0]["spans"]!.elements
        try #require(spans.count == 4)
        #expect(spans.map { $0["kind"]!.string } == ["SPAN_KIND_INTERNAL", "SPAN_KIND_CLIENT", "SPAN_KIND_CLIENT", "SPAN_KIND_CLIENT"])
        let callID = spans[0]["spanId"]!.string
        #expect(spans[1...].allSatisfy { $0["parentSpanId"]!.string == callID && $0["traceId"]!.string == spans[0]["traceId"]!.string })
        #expect(spans[0]["resource"]!.serialized().contains("\"checkout\""))
        #expect(spans[0]["resource"]!.serialized().contains("\"payments\""))
        let url = spans[1]["attributes"]!.elements.first { $0["key"]!.string == "url.full" }?["value"]?["stringValue"]?.string
        #expect(url == "\(server.baseURL)/sequence/\(key)/503,503,200?token=<redacted>&page=2")
        let (traceparents, _) = try await seen(key)
        #expect(traceparents.compactMap { $0?.split(separator: "-")[2] }.map(String.init) == spans[1...].map { $0["spanId"]!.string! })
        // The times (seconds written once per batch, then nine digits) and the attributes (the
        // target's written once) are the spans' own, as the exporter of values has them.
        let values = collector.all
        try #require(values.count == 4)
        for (decoded, value) in zip(spans, values) {
            #expect(decoded["startTimeUnixNano"]!.string == String(OTLPTraceJSON.nanoseconds(value.startTime)))
            #expect(decoded["endTimeUnixNano"]!.string == String(OTLPTraceJSON.nanoseconds(value.endTime)))
            #expect(decoded["events"]!.elements.compactMap { $0["timeUnixNano"]?.string }
                == value.events.map { String(OTLPTraceJSON.nanoseconds($0.time)) })
            #expect(decoded["attributes"]!.elements.map { $0["key"]!.string! } == value.attributes.map(\.key))
        }
    }

    /// A time in nanoseconds as the OTLP JSON writer writes it: its seconds' digits copied
    /// when the last time had the same, nine digits of nanoseconds zero-padded, and a time
    /// under a second as it is.
    @Test func timesAreWrittenWithTheirSecondsOnceAndNineDigitsOfNanoseconds() {
        var writer = OTLPJSONWriter(capacity: 8)
        for time: UInt64 in [1_796_568_291_000_000_007, 1_796_568_291_695_782_656, 1_796_568_292_000_000_000,
                             1_796_568_292_100_000_000, 999_999_999, 0, 1_000_000_000, 18_446_744_073_709_551_615] {
            writer.time(time)
            writer.raw(",")
        }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #""1796568291000000007","1796568291695782656","1796568292000000000","#
            + #""1796568292100000000","999999999","0","1000000000","18446744073709551615","#)
    }

    /// The points of `name` in `snapshot`, or none.
    func points(_ snapshot: MetricsSnapshot, _ name: String) -> [MetricPoint] { snapshot[name]?.points ?? [] }

    @Test func durationHistogramHasOnePointPerAttemptAndTheirDurations() async throws {
        #expect(try client().metricsSnapshot() == nil)  // telemetry off: nothing recorded
        let client = try client(#", "telemetry": {}"#)
        var attempts: [Attempt] = []
        for statuses in ["503,200", "200", "500,500,200"] {
            let response = try await client.send(Request(route: "seq", parameters: ["key": key("m"), "statuses": statuses]))
            #expect(response.status == 200)
            attempts += response.attempts
        }
        try #require(attempts.count == 6)
        let snapshot = try #require(client.metricsSnapshot())
        let duration = try #require(snapshot["http.client.request.duration"])
        #expect(duration.unit == "s" && duration.kind == .histogram)
        let histograms = duration.points.compactMap(\.histogram)
        try #require(histograms.count == duration.points.count)
        #expect(histograms.reduce(0) { $0 + $1.count } == 6)
        let recorded = histograms.reduce(0.0) { $0 + $1.sum }, measured = attempts.reduce(0.0) { $0 + $1.duration }
        #expect(abs(recorded - measured) < 1e-9)
        for histogram in histograms {
            #expect(histogram.bucketCounts.count == 15)
            #expect(histogram.bucketCounts.reduce(0, +) == histogram.count)
            #expect(histogram.explicitBounds == [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10])
        }
        let common = [SpanAttribute("http.request.method", .string("GET")), SpanAttribute("server.address", .string("127.0.0.1")),
                      SpanAttribute("server.port", .int(Int64(server.port))),
                      SpanAttribute("url.template", .string("/sequence/{key}/{statuses}"))]
        let ok = try #require(duration.point(common + [SpanAttribute("http.response.status_code", .int(200))]))
        #expect(ok.histogram?.count == 3)
        #expect(ok.attributes.contains(SpanAttribute("network.protocol.version", .string("1.1"))))
        #expect(!ok.attributes.contains { $0.key == "error.type" || $0.key == "url.full" })
        #expect(duration.point([SpanAttribute("error.type", .string("500"))])?.histogram?.count == 2)
        #expect(duration.point([SpanAttribute("error.type", .string("503"))])?.histogram?.count == 1)
        // Every attempt left the wire.
        #expect(points(snapshot, "http.client.active_requests").map(\.value) == [0])
        #expect(points(snapshot, "http.client.active_requests").first?.attributes == common)
        let retries = try #require(snapshot["gatewire.client.retries"])
        #expect(retries.kind == .counter && retries.unit == "{retry}")
        #expect(retries.point([SpanAttribute("gatewire.retry.reason", .string("503"))])?.value == 1)
        #expect(retries.point([SpanAttribute("gatewire.retry.reason", .string("500"))])?.value == 2)
        #expect(points(snapshot, "gatewire.client.queue.wait").compactMap(\.histogram).reduce(0) { $0 + $1.count } == 6)
    }

    /// Collects the batches of measurements a client delivers.
    final class MeasurementCollector: MeasurementExporter {
        private let batches = Lock<[[MetricMeasurement]]>([])
        func export(_ measurements: [MetricMeasurement]) { batches.withLock { $0.append(measurements) } }
        var all: [[MetricMeasurement]] { batches.withLock { $0 } }
        func named(_ name: String) -> [MetricMeasurement] { all.joined().filter { $0.name == name } }
    }

    @Test func measurementExporterGetsEveryMeasurementOfEachCallAtItsEnd() async throws {
        let client = try client()
        #expect(client.metricsSnapshot() == nil)
        let collector = MeasurementCollector()
        let token = client.addMeasurementExporter(collector)  // turns telemetry on
        let response = try await client.send(Request(route: "seq", parameters: ["key": key("measure"), "statuses": "503,500,200"]))
        #expect(response.status == 200)
        // One batch, delivered before the call's response.
        #expect(collector.all.count == 1)
        let durations = collector.named("http.client.request.duration")
        #expect(durations.map(\.value) == response.attempts.map(\.duration))
        #expect(durations.allSatisfy { $0.kind == .histogram })
        let common = [SpanAttribute("http.request.method", .string("GET")), SpanAttribute("server.address", .string("127.0.0.1")),
                      SpanAttribute("server.port", .int(Int64(server.port))),
                      SpanAttribute("url.template", .string("/sequence/{key}/{statuses}"))]
        #expect(durations.map(\.attributes) == [
            common + [SpanAttribute("http.response.status_code", .int(503)), SpanAttribute("error.type", .string("503")),
                      SpanAttribute("network.protocol.version", .string("1.1"))],
            common + [SpanAttribute("http.response.status_code", .int(500)), SpanAttribute("error.type", .string("500")),
                      SpanAttribute("network.protocol.version", .string("1.1"))],
            common + [SpanAttribute("http.response.status_code", .int(200)), SpanAttribute("network.protocol.version", .string("1.1"))],
        ])
        let active = collector.named("http.client.active_requests")
        #expect(active.map(\.value) == [1, -1, 1, -1, 1, -1])
        #expect(active.allSatisfy { $0.kind == .upDownCounter && $0.attributes == common })
        let retries = collector.named("gatewire.client.retries")
        #expect(retries.map(\.value) == [1, 1])
        #expect(retries.map { $0.attributes.last } == [SpanAttribute("gatewire.retry.reason", .string("503")),
                                                       SpanAttribute("gatewire.retry.reason", .string("500"))])
        #expect(collector.named("gatewire.client.queue.wait").count == 3)
        // The aggregation saw the same values.
        let snapshot = try #require(client.metricsSnapshot())
        let histograms = points(snapshot, "http.client.request.duration").compactMap(\.histogram)
        #expect(histograms.reduce(0.0) { $0 + $1.sum } == durations.reduce(0.0) { $0 + $1.value })

        #expect(client.removeMeasurementExporter(token))
        _ = try await client.send(Request(route: "seq", parameters: ["key": key("measure-off"), "statuses": "200"]))
        #expect(collector.all.count == 1)
        #expect(!client.removeMeasurementExporter(token))

        // A breaker's change is a measurement too.
        let guarded = try Client(config: try GatewayConfig(json: """
            {"baseURL": "\(server.baseURL)", "retry": {"maxRetries": 3, "initialDelay": 0.01, "jitter": "none"},
             "circuitBreaker": {"failureRatio": 1, "minimumThroughput": 2, "breakDuration": 30}}
            """))
        let breaker = MeasurementCollector()
        guarded.addMeasurementExporter(breaker)
        await #expect(throws: GatewireError.self) { try await guarded.send(.get("/status/503")) }
        #expect(breaker.named("gatewire.client.circuit_breaker.transitions").map(\.attributes)
            == [[SpanAttribute("gatewire.circuit_breaker.host", .string("127.0.0.1:\(server.port)")),
                 SpanAttribute("gatewire.circuit_breaker.state", .string("open"))]])
        #expect(breaker.named("gatewire.client.circuit_breaker.refusals").map(\.value) == [1])

        // Metrics are not sampled: an unsampled call is measured all the same.
        let unsampled = try self.client(#", "telemetry": {"sampleRatio": 0}"#)
        let spans = Collector(), measured = MeasurementCollector()
        unsampled.addSpanExporter(spans)
        unsampled.addMeasurementExporter(measured)
        _ = try await unsampled.send(Request(route: "seq", parameters: ["key": key("unsampled"), "statuses": "200"]))
        #expect(spans.all.isEmpty)
        #expect(measured.named("http.client.request.duration").count == 1)
    }

    @Test func measurementJSONIsTheCExportersText() {
        let text = MeasurementJSON.array([
            MetricMeasurement(name: "http.client.request.duration", kind: .histogram, value: 0.25,
                              attributes: [SpanAttribute("http.request.method", .string("GET")), SpanAttribute("server.port", .int(8080))]),
            MetricMeasurement(name: "http.client.active_requests", kind: .upDownCounter, value: -1,
                              attributes: [SpanAttribute("gatewire.paused", .bool(true))]),
        ])
        #expect(String(decoding: text, as: UTF8.self) == #"[{"name":"http.client.request.duration","value":0.25,"#
            + #""attributes":{"http.request.method":"GET","server.port":8080}},"#
            + #"{"name":"http.client.active_requests","value":-1,"attributes":{"gatewire.paused":true}}]"#)
    }

    @Test func gatewireMetricsCountBreakerCacheAndRateLimit() async throws {
        let cached = try client(#", "telemetry": {}, "cache": true"#)
        let key = key("mcache")
        for _ in 0..<2 { _ = try await cached.send(.get("/cacheable/\(key)", parameters: ["cc": "max-age=60"])) }
        let revalidate = key + "-etag"
        for _ in 0..<2 { _ = try await cached.send(.get("/cacheable/\(revalidate)", parameters: ["cc": "no-cache", "etag": "\"v1\""])) }
        let snapshot = try #require(cached.metricsSnapshot())
        #expect(points(snapshot, "gatewire.client.cache.hits").map(\.value) == [1])
        #expect(points(snapshot, "gatewire.client.cache.revalidations").map(\.value) == [1])

        let guarded = try Client(config: try GatewayConfig(json: """
            {"baseURL": "\(server.baseURL)", "retry": {"maxRetries": 3, "initialDelay": 0.01, "jitter": "none"},
             "circuitBreaker": {"failureRatio": 1, "minimumThroughput": 2, "breakDuration": 30}, "telemetry": {}}
            """))
        await #expect(throws: GatewireError.self) { try await guarded.send(.get("/status/503")) }
        let breaker = try #require(guarded.metricsSnapshot())
        #expect(points(breaker, "gatewire.client.circuit_breaker.transitions").map(\.attributes)
            == [[SpanAttribute("gatewire.circuit_breaker.host", .string("127.0.0.1:\(server.port)")),
                 SpanAttribute("gatewire.circuit_breaker.state", .string("open"))]])
        #expect(points(breaker, "gatewire.client.circuit_breaker.refusals").map(\.value) == [1])

        let limited = try Client(config: try GatewayConfig(json: """
            {"baseURL": "\(server.baseURL)", "rateLimit": {"requests": 1, "per": 60, "wait": false}, "telemetry": {}}
            """))
        _ = try await limited.send(.get("/status/200"))
        await #expect(throws: GatewireError.self) { try await limited.send(.get("/status/200")) }
        #expect(points(try #require(limited.metricsSnapshot()), "gatewire.client.rate_limit.refusals").map(\.value) == [1])
    }

    /// Each encoding: `protocol` nil is the default (`http/protobuf`).
    @Test(arguments: [(nil, "application/x-protobuf"), ("http/json", "application/json")] as [(String?, String)])
    func otlpMetricsExportIsDecodedByTheProto(protocol: String?, contentType: String) async throws {
        let receiver = try OTLPReceiver()
        defer { receiver.stop() }
        let encoding = `protocol`.map { #", "otlpProtocol": "\#($0)""# } ?? ""
        // A name that JSON must escape (quotes, a backslash, a tab) and one that it must not (é).
        let client = try client(#", "telemetry": {"otlpEndpoint": "\#(receiver.endpoint)", "serviceName": "ch\"é\"ck\\out\t""#
            + encoding + "}")
        for statuses in ["503,200", "200"] {
            _ = try await client.send(Request(route: "seq", parameters: ["key": key("otlpm"), "statuses": statuses]))
        }
        client.close()  // exports the metrics as they are
        let all = try await receiver.received().node["requests"]!.elements
        let requests = all.filter { $0["path"]!.string == "/v1/metrics" }
        try #require(requests.count == 1)
        #expect(requests[0]["error"]!.isNull)
        #expect(requests[0]["content_type"]!.string == contentType)
        let metrics = requests[0]["metrics"]!.elements
        // Both signals' text decodes, the escaped name read back as it was given.
        let spans = all.filter { $0["path"]!.string == "/v1/traces" }.flatMap { $0["spans"]!.elements }
        #expect(all.allSatisfy { $0["error"]!.isNull } && spans.count == 5)
        for resource in [metrics[0]["resource"]!, spans[0]["resource"]!] {
            let name = resource.elements.first { $0["key"]!.string == "service.name" }?["value"]?["stringValue"]?.string
            #expect(name == "ch\"é\"ck\\out\t")
        }
        // The calls' instruments, then (when the span exports ended before the snapshot) the
        // span exporter's own.
        let names = metrics.compactMap { $0["name"]!.string }
        #expect(Array(names.prefix(4)) == ["http.client.request.duration", "http.client.active_requests",
                                           "gatewire.client.retries", "gatewire.client.queue.wait"])
        #expect(names.dropFirst(4).allSatisfy { $0.hasPrefix("otel.sdk.") })
        #expect(metrics.allSatisfy { $0["scope"]!.string == "gatewire" })
        let duration = try #require(metrics.first)
        #expect(duration["unit"]!.string == "s")
        let histogram = try #require(duration["histogram"])
        #expect(histogram["aggregationTemporality"]!.string == "AGGREGATION_TEMPORALITY_CUMULATIVE")
        let points = histogram["dataPoints"]!.elements
        // int64/uint64 fields come back as decimal strings (the proto3 JSON mapping).
        #expect(points.compactMap { $0["count"]!.string.flatMap { Int($0) } }.reduce(0, +) == 3)
        #expect(points.allSatisfy { $0["explicitBounds"]!.elements.count == 14 && $0["bucketCounts"]!.elements.count == 15 })
        #expect(points.allSatisfy { Int($0["startTimeUnixNano"]!.string!)! <= Int($0["timeUnixNano"]!.string!)! })
        let active = try #require(metrics[1]["sum"])
        #expect(active["aggregationTemporality"]!.string == "AGGREGATION_TEMPORALITY_CUMULATIVE")
        #expect(active["isMonotonic"] == nil)  // false: left out by MessageToDict
        #expect(active["dataPoints"]!.elements.map { $0["asInt"]!.string } == ["0"])
        #expect(metrics[2]["sum"]!["isMonotonic"]!.bool == true)
        #expect(metrics[2]["unit"]!.string == "{retry}")
    }

    @Test func metricsAreExportedEveryIntervalWhileTheClientRuns() async throws {
        let receiver = try OTLPReceiver()
        defer { receiver.stop() }
        // Read when the client is made (milliseconds, as the SDK's variable is).
        setenv("OTEL_METRIC_EXPORT_INTERVAL", "100", 1)
        let client = try client(#", "telemetry": {"otlpEndpoint": "\#(receiver.endpoint)"}"#)
        unsetenv("OTEL_METRIC_EXPORT_INTERVAL")
        defer { client.close() }
        _ = try await client.send(Request(route: "seq", parameters: ["key": key("tick"), "statuses": "200"]))
        // Two exports without a close, each with the cumulative count; bounded by 200 polls.
        var exports: [JSONNode] = []
        for _ in 0..<200 where exports.count < 2 {
            try await Task.sleep(nanoseconds: 50_000_000)
            exports = try await receiver.received().node["requests"]!.elements.filter { $0["path"]!.string == "/v1/metrics" }
        }
        try #require(exports.count >= 2)
        for export in exports.prefix(2) {
            let duration = try #require(export["metrics"]!.elements.first)
            #expect(duration["histogram"]!["dataPoints"]!.elements.map { $0["count"]!.string } == ["1"])
        }
    }

    @Test(arguments: ["refuse", "hang", "absent"])
    func collectorTroubleCostsTheCallsNothing(_ mode: String) async throws {
        let receiver = mode == "absent" ? nil : try OTLPReceiver(mode: mode)
        defer { receiver?.stop() }
        let endpoint = try receiver?.endpoint ?? "http://127.0.0.1:\(TestServer.closedPort())"
        let client = try client(#", "telemetry": {"otlpEndpoint": "\#(endpoint)"}"#)
        for index in 0..<3 {
            let key = key("trouble\(index)")
            let response = try await client.send(Request(route: "seq", parameters: ["key": key, "statuses": "503,200"]))
            #expect(response.status == 200)
            #expect(response.attempts.map(\.status) == [503, 200])
        }
        client.close()
        // Each call's two spans were lost (refused, no answer before the close's flush ended,
        // or no connection), and counted.
        #expect(client.spanExportCounts == SpanExportCounts(exported: 0, dropped: 9))
    }

    /// The OTLP specification's retry: a 503 with `Retry-After: 0` is sent again at once and
    /// its spans and metrics arrive (the same body, once accepted); a 400 is not retryable,
    /// so its one export's spans are dropped.
    @Test(arguments: ["unavailable-once", "reject"])
    func exportsAreRetriedAsTheOTLPSpecificationSays(_ mode: String) async throws {
        let receiver = try OTLPReceiver(mode: mode)
        defer { receiver.stop() }
        let client = try client(#", "telemetry": {"otlpEndpoint": "\#(receiver.endpoint)"}"#)
        let response = try await client.send(Request(route: "seq", parameters: ["key": key("again"), "statuses": "200"]))
        #expect(response.status == 200)
        client.close()  // flushes spans and metrics
        let requests = try await receiver.received().node["requests"]!.elements
        let traces = requests.filter { $0["path"]!.string == "/v1/traces" }
        let metrics = requests.filter { $0["path"]!.string == "/v1/metrics" }
        if mode == "reject" {
            #expect(traces.count == 1 && metrics.count == 1)
            #expect(client.spanExportCounts == SpanExportCounts(exported: 0, dropped: 2))
            return
        }
        try #require(traces.count == 2 && metrics.count == 2)
        #expect(traces[0]["body"]!.string == traces[1]["body"]!.string)
        #expect(traces[1]["spans"]!.elements.count == 2)
        #expect(metrics[1]["metrics"]!.elements.contains { $0["name"]!.string == "http.client.request.duration" })
        #expect(client.spanExportCounts == SpanExportCounts(exported: 2, dropped: 0))
    }

    /// The exporter's own fate is in the metrics, by the semantic conventions for the SDK's
    /// metrics: each span handed to an export, and each span whose export ended, with the
    /// collector's answer as `error.type` when it failed for good.
    @Test(arguments: [("ok", nil), ("reject", "400")] as [(String, String?)])
    func spanExportIsMeasuredAsTheSDKConventionsSay(_ mode: String, _ errorType: String?) async throws {
        let receiver = try OTLPReceiver(mode: mode)
        defer { receiver.stop() }
        let client = try client(#", "telemetry": {"otlpEndpoint": "\#(receiver.endpoint)"}"#)
        _ = try await client.send(Request(route: "seq", parameters: ["key": key("measured"), "statuses": "200"]))
        // The batch leaves 1 s after its first span; wait for its export to end.
        for _ in 0..<500 where client.spanExportCounts.map({ $0.exported + $0.dropped }) != 2 {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        let snapshot = try #require(client.metricsSnapshot())
        let processed = try #require(snapshot["otel.sdk.processor.span.processed"]?.points)
        #expect(processed.map(\.value) == [2])
        #expect(processed.first?.attributes == [SpanAttribute("otel.component.type", .string("batching_span_processor")),
                                                 SpanAttribute("otel.component.name", .string("batching_span_processor/0"))])
        let exported = try #require(snapshot["otel.sdk.exporter.span.exported"]?.points)
        #expect(exported.map(\.value) == [2])
        let port = try #require(receiver.endpoint.split(separator: ":").last.flatMap { Int64($0) })
        // The default encoding's type (protobuf: `otlp_http_span_exporter`, not `..._json_...`).
        var attributes = [SpanAttribute("otel.component.type", .string("otlp_http_span_exporter")),
                          SpanAttribute("otel.component.name", .string("otlp_http_span_exporter/0")),
                          SpanAttribute("server.address", .string("127.0.0.1")), SpanAttribute("server.port", .int(port))]
        if let errorType { attributes.append(SpanAttribute("error.type", .string(errorType))) }
        #expect(exported.first?.attributes == attributes)
        client.close()
    }
}
