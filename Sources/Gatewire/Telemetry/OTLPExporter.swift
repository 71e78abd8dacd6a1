import GatewireBase
import GatewireTransport

/// Sends finished spans to an OTLP/HTTP collector (`POST <endpoint>/v1/traces`, in
/// ``TelemetrySettings/otlpProtocol``'s encoding: ``OTLPTraceProtobuf`` or ``OTLPTraceJSON``) in batches, from the client's own
/// event loop with libcurl: a transfer of its own, never one of a call's, so plugins, event
/// monitors, observers, the call ids and the resilience state never see it. A batch is
/// encoded on the ``WorkerPool``, so the loop thread only queues spans and drives the transfer.
///
/// The spans wait in a bounded queue (``capacity``); a span that finds it full is dropped
/// and counted (``dropped``), so a collector that is down, refuses or hangs costs the calls
/// nothing but those spans. A batch goes when ``batchSize`` spans wait or ``delay`` seconds
/// after the first one came (the batch span processor's defaults, `OTEL_BSP_*`); up to
/// ``maxExports`` batches are encoded or on the wire at once, so a busy client's spans leave
/// as fast as they come (one at a time, the encoding and the round trip of each batch bound
/// the rate). Each export is retried as the OTLP specification says (``OTLPPost``); one that
/// fails for good drops its spans, counted.
///
/// What happens to the spans is also measured in the client's metrics, by the semantic
/// conventions for the SDK's own metrics: `otel.sdk.processor.span.processed` (each span
/// handed to an export, or dropped with `error.type` `queue_full`, or `timeout` when a
/// close's flush ran out of time) and `otel.sdk.exporter.span.exported` (each span whose
/// export ended, with `error.type` the cause when it failed), so C, Python and a collector
/// see the drops that ``counts`` tells Swift.
///
/// Loop thread only (every method, the transfers' completions and the timers).
// @unchecked: its state is read and written on the loop thread only; other threads only
// hand it to `loop.execute`.
final class OTLPExporter: @unchecked Sendable {
    /// Spans held at most (`OTEL_BSP_MAX_QUEUE_SIZE`'s default).
    static let capacity = 2048
    /// Spans per request at most (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`'s default).
    static let batchSize = 512
    /// Seconds between the first waiting span and its export (`OTEL_BSP_SCHEDULE_DELAY`: 5 s
    /// there; 1 s here, so a short-lived program's spans leave while it runs).
    static let delay = 1.0
    /// Batches being encoded or exported at once, at most: each export on the wire holds one
    /// of the client's `maxConnections`.
    static let maxExports = 4
    private let loop: EventLoop
    private let url: String
    private let settings: TelemetrySettings
    /// The waiting spans, one array per call as ``Telemetry`` hands them over (queued and
    /// batched without copying a span), and how many spans they hold.
    private var queue: [[Span]] = []
    private var queued = 0
    private var timer: Int?
    /// Batches being encoded or exported (at most ``maxExports``).
    private var active = 0
    /// The exports under way (on the wire or waiting to retry), for a flush that runs out of
    /// time to abort.
    private var posts: [OTLPPost] = []
    /// What waits for the queue to empty (``flush(within:then:)``): its deadline timer and
    /// completion.
    private var flushing: (timer: Int, done: () -> Void)?
    /// Spans the collector accepted (a 2xx) and spans dropped (the queue was full, their
    /// export failed, or a close's flush ran out of time); read from any thread.
    let counts = Lock<SpanExportCounts>(SpanExportCounts())
    /// Where the spans' fate is measured (loop thread only).
    private let metrics: ClientMetrics
    /// The attributes of `otel.sdk.processor.span.processed` and
    /// `otel.sdk.exporter.span.exported`: the component's type and name, and the exporter's
    /// collector (`server.address`, `server.port`).
    private let processorAttributes: [SpanAttribute]
    private let exporterAttributes: [SpanAttribute]

    init(loop: EventLoop, url: String, settings: TelemetrySettings, metrics: ClientMetrics) {
        self.loop = loop
        self.url = url
        self.settings = settings
        self.metrics = metrics
        processorAttributes = [SpanAttribute("otel.component.type", .string("batching_span_processor")),
                               SpanAttribute("otel.component.name", .string("batching_span_processor/0"))]
        // The conventions' component types: `otlp_http_span_exporter` (protobuf), `otlp_http_json_span_exporter`.
        let type = settings.encoding == .httpProtobuf ? "otlp_http_span_exporter" : "otlp_http_json_span_exporter"
        var exporter = [SpanAttribute("otel.component.type", .string(type)),
                        SpanAttribute("otel.component.name", .string(type + "/0"))]
        if let parsed = CurlURL(url), let host = parsed.host, let port = parsed.port {
            exporter += [SpanAttribute("server.address", .string(host.lowercased())), SpanAttribute("server.port", .int(Int64(port)))]
        }
        exporterAttributes = exporter
    }

    /// `count` spans the processor handed to an export, or dropped for `errorType`.
    private func processed(_ count: Int, errorType: String? = nil) {
        guard count > 0 else { return }
        let attributes = errorType.map { processorAttributes + [SpanAttribute("error.type", .string($0))] } ?? processorAttributes
        metrics.add(.spansProcessed, Int64(count), attributes)
    }

    /// Queues `spans` (dropping those beyond ``capacity``) and sends a batch when one is full.
    func enqueue(_ spans: [Span]) {
        let room = Self.capacity - queued
        if spans.count > room {
            counts.withLock { $0.dropped += spans.count - max(0, room) }
            processed(spans.count - max(0, room), errorType: "queue_full")
            if room > 0 { queue.append(Array(spans.prefix(room))) }
            queued += max(0, room)
        } else {
            queue.append(spans)
            queued += spans.count
        }
        send(partial: false)
    }

    /// Sends what waits, then runs `done` once the queue is empty and no export is under
    /// way, or after `seconds` (the exports still under way are then aborted and their spans,
    /// and the queue's, counted as dropped): a client's close waits for it, bounded in time.
    func flush(within seconds: Double, then done: @escaping () -> Void) {
        guard !queue.isEmpty || active > 0 else { return done() }
        if let (timer, earlier) = flushing {
            // Two closes at once: one flush, both told when it ends.
            flushing = (timer, { earlier(); done() })
            return
        }
        let deadline = loop.schedule(after: seconds) { [self] _ in
            let lost = queued
            counts.withLock { $0.dropped += lost }
            processed(lost, errorType: ErrorKind.timeout.name)
            queue.removeAll()
            queued = 0
            for post in posts { post.abort() }
            finishFlush()
        }
        flushing = (deadline, done)
        send(partial: true)
    }

    private func finishFlush() {
        guard let (timer, done) = flushing else { return }
        flushing = nil
        loop.cancelTimer(timer)
        done()
    }

    /// Starts batches of up to ``batchSize`` waiting spans while fewer than ``maxExports``
    /// are under way: full ones, and the rest too when `partial` (its delay passed, or a
    /// flush waits). Spans left waiting get the delay's timer; an ended flush is told.
    private func send(partial: Bool) {
        let partial = partial || flushing != nil
        while active < Self.maxExports, !queue.isEmpty, partial || queued >= Self.batchSize {
            startBatch()
        }
        if queue.isEmpty {
            if let timer { loop.cancelTimer(timer) }
            timer = nil
            if active == 0 { finishFlush() }
        } else if timer == nil {
            timer = loop.schedule(after: Self.delay) { [self] fired in
                timer = nil
                if fired { send(partial: true) }
            }
        }
    }

    /// Takes the first calls' waiting spans, up to ``batchSize`` (or one call's, when it has
    /// more), and exports them: encoded on a worker, then posted from the loop.
    private func startBatch() {
        var calls = 0, spans = 0
        while calls < queue.count, calls == 0 || spans + queue[calls].count <= Self.batchSize {
            spans += queue[calls].count
            calls += 1
        }
        let batch = Batch(Array(queue.prefix(calls)))
        queue.removeFirst(calls)
        queued -= spans
        active += 1
        processed(spans)
        let loop = loop, settings = settings, counts = counts, count = spans
        loop.offload { [self] _ in
            // The worker reads only the batch and the settings (values), never the queue.
            let body = settings.encoding == .httpProtobuf
                ? OTLPTraceProtobuf.request(batch.calls, count: count, settings: settings)
                : OTLPTraceJSON.request(batch.calls, count: count, settings: settings)
            // Refused once the loop is closing: the batch is then lost with the client.
            if !loop.execute({ [self] in
                batch.calls = []  // freed here, on the thread that allocated the spans
                post(body, spans: count)
            }) {
                counts.withLock { $0.dropped += count }
            }
        }
    }

    /// Exports one encoded batch of `spans` spans.
    private func post(_ body: [UInt8], spans count: Int) {
        var post: OTLPPost?
        post = OTLPPost(loop: loop, url: url, body: body, contentType: settings.encoding.contentType) { [self] failure in
            posts.removeAll { $0 === post }
            post = nil
            active -= 1
            counts.withLock { counts in
                if failure == nil { counts.exported += count } else { counts.dropped += count }
            }
            let attributes = failure.map { exporterAttributes + [SpanAttribute("error.type", .string($0))] } ?? exporterAttributes
            metrics.add(.spansExported, Int64(count), attributes)
            send(partial: false)
        }
        posts.append(post!)
        post!.start()
    }
}

/// One batch's spans on their way to a worker and back: the loop thread frees them when the
/// encoded batch returns, as the spans were allocated there (a free from another thread takes
/// the allocator's slower path).
// @unchecked: the worker reads `calls` before handing the batch back through `loop.execute`;
// only then does the loop thread empty it.
private final class Batch: @unchecked Sendable {
    var calls: [[Span]]

    init(_ calls: [[Span]]) { self.calls = calls }
}

/// How many spans a client's OTLP exporter has sent and lost since the client was made
/// (``Client/spanExportCounts``).
public struct SpanExportCounts: Sendable, Equatable {
    /// Spans the collector accepted (a 2xx answer to their export).
    public var exported = 0
    /// Spans lost: the queue was full (2048), their export failed for good (a status that is
    /// not retried, or still no 2xx after the retries of 429/502/503/504 and failed
    /// connections within 10 s), or a close's flush ran out of time.
    public var dropped = 0

    /// Counts of `exported` and `dropped` spans.
    public init(exported: Int = 0, dropped: Int = 0) {
        self.exported = exported
        self.dropped = dropped
    }
}
