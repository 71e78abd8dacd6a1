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
        // A followed redirect: one attempt, its hop an event of the call's span.
        _ = try await client.send(.get("/redirect/1"))
        let redirect = collector.all
        try #require(redirect.count == 2)
        let hop = try #require(redirect[0].events.first { $0.name == "gatewire.redirect" })
        #expect(hop.attributes.contains(SpanAttribute("http.response.status_code", .int(302))))
        #expect(hop.attributes.contains(SpanAttribute("url.full", .string("\(server.baseURL)/redirect/0"))))
        // A fresh cache hit: no attempt, the hit an event of the call's span.
        let key = key("cached")
        for _ in 0..<2 { _ = try await client.send(.get("/cacheable/\(key)", parameters: ["cc": "max-age=60"])) }
        let cached = Array(collector.all[2...])
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

    @Test func otlpExportIsDecodedByTheProtoAndHoldsNoSecret() async throws {
        let receiver = try OTLPReceiver()
        defer { receiver.stop() }
        let secretURL = "http://agent:hunter2pw@127.0.0.1:\(server.port)"
        let client = try Client(config: try GatewayConfig(json: """
            {"baseURL": "\(secretURL)", "retry": {"maxRetries": 3, "initialDelay": 0.01, "jitter": "none"},
             "telemetry": {"otlpEndpoint": "\(receiver.endpoint)", "serviceName": "checkout", "resource": {"team": "payments"}}}
            """))
        let key = key("otlp")
        let response = try await client.send(.get("/sequence/\(key)/503,503,200?token=s3cr3tvalue&page=2"))
        #expect(response.status == 200)
        client.close()  // flushes the queue
        #expect(client.spanExportCounts == SpanExportCounts(exported: 4, dropped: 0))
        let requests = try await receiver.received().node["requests"]!.elements.filter { $0["path"]!.string == "/v1/traces" }
        try #require(requests.count == 1)
        #expect(requests[0]["error"]!.isNull)
        #expect(requests[0]["content_type"]!.string == "application/json")
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

    @Test func otlpMetricsExportIsDecodedByTheProto() async throws {
        let receiver = try OTLPReceiver()
        defer { receiver.stop() }
        // A name that JSON must escape (quotes, a backslash, a tab) and one that it must not (é).
        let client = try client(#", "telemetry": {"otlpEndpoint": "\#(receiver.endpoint)", "serviceName": "ch\"é\"ck\\out\t"}"#)
        for statuses in ["503,200", "200"] {
            _ = try await client.send(Request(route: "seq", parameters: ["key": key("otlpm"), "statuses": statuses]))
        }
        client.close()  // exports the metrics as they are
        let all = try await receiver.received().node["requests"]!.elements
        let requests = all.filter { $0["path"]!.string == "/v1/metrics" }
        try #require(requests.count == 1)
        #expect(requests[0]["error"]!.isNull)
        #expect(requests[0]["content_type"]!.string == "application/json")
        let metrics = requests[0]["metrics"]!.elements
        // Both signals' text decodes, the escaped name read back as it was given.
        let spans = all.filter { $0["path"]!.string == "/v1/traces" }.flatMap { $0["spans"]!.elements }
        #expect(all.allSatisfy { $0["error"]!.isNull } && spans.count == 5)
        for resource in [metrics[0]["resource"]!, spans[0]["resource"]!] {
            let name = resource.elements.first { $0["key"]!.string == "service.name" }?["value"]?["stringValue"]?.string
            #expect(name == "ch\"é\"ck\\out\t")
        }
        #expect(metrics.compactMap { $0["name"]!.string } == ["http.client.request.duration", "http.client.active_requests",
                                                                 "gatewire.client.retries", "gatewire.client.queue.wait"])
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
}
