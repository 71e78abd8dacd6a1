/// Sends finished spans to an OTLP/HTTP collector (`POST <endpoint>/v1/traces`,
/// `Content-Type: application/json`: ``OTLPTraceJSON``) in batches, from the client's own
/// event loop with libcurl: a transfer of its own, never one of a call's, so plugins, event
/// monitors, observers, the call ids and the resilience state never see it. A batch is
/// encoded on the ``WorkerPool``, so the loop thread only queues spans and drives the transfer.
///
/// The spans wait in a bounded queue (``capacity``); a span that finds it full is dropped
/// and counted (``dropped``), so a collector that is down, refuses or hangs costs the calls
/// nothing but those spans. One export is in flight at a time; a batch goes when
/// ``batchSize`` spans wait or ``delay`` seconds after the first one came (the batch span
/// processor's defaults, `OTEL_BSP_*`). A failed export's spans are dropped and counted:
/// the OTLP specification's retry of 429/503 is not done.
///
/// Loop thread only (every method, the transfer's completion and the timers).
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
    private let loop: EventLoop
    private let url: String
    private let settings: TelemetrySettings
    private var queue: [Span] = []
    private var timer: Int?
    /// Whether a batch is being encoded or sent (one at a time).
    private var busy = false
    /// The export on the wire, for a flush that runs out of time to abort.
    private var inFlight: Transfer?
    /// What waits for the queue to empty (``flush(within:then:)``): its deadline timer and
    /// completion.
    private var flushing: (timer: Int, done: () -> Void)?
    /// Spans the collector accepted (a 2xx) and spans dropped (the queue was full, their
    /// export failed, or a close's flush ran out of time); read from any thread.
    let counts = Lock<SpanExportCounts>(SpanExportCounts())

    init(loop: EventLoop, url: String, settings: TelemetrySettings) {
        self.loop = loop
        self.url = url
        self.settings = settings
    }

    /// Queues `spans` (dropping those beyond ``capacity``) and sends a batch when one is full.
    func enqueue(_ spans: [Span]) {
        let room = Self.capacity - queue.count
        if spans.count > room { counts.withLock { $0.dropped += spans.count - max(0, room) } }
        queue.append(contentsOf: spans.prefix(max(0, room)))
        if queue.count >= Self.batchSize {
            send()
        } else if timer == nil, !queue.isEmpty {
            timer = loop.schedule(after: Self.delay) { [self] fired in
                timer = nil
                if fired { send() }
            }
        }
    }

    /// Sends what waits, then runs `done` once the queue is empty and no export is in
    /// flight, or after `seconds` (an export still in flight is then aborted and its spans
    /// counted as dropped): a client's close waits for it, bounded in time.
    func flush(within seconds: Double, then done: @escaping () -> Void) {
        guard !queue.isEmpty || busy else { return done() }
        if let (timer, earlier) = flushing {
            // Two closes at once: one flush, both told when it ends.
            flushing = (timer, { earlier(); done() })
            return
        }
        let deadline = loop.schedule(after: seconds) { [self] _ in
            if let transfer = inFlight {
                loop.abort(transfer, with: TransportError(kind: .timeout, curlCode: 0, message: "flush timed out"))
            }
            let lost = queue.count
            counts.withLock { $0.dropped += lost }
            queue.removeAll()
            finishFlush()
        }
        flushing = (deadline, done)
        send()
    }

    private func finishFlush() {
        guard let (timer, done) = flushing else { return }
        flushing = nil
        loop.cancelTimer(timer)
        done()
    }

    /// Starts the export of up to ``batchSize`` waiting spans, unless one is under way (its
    /// end sends the rest): encoded on a worker, then posted from the loop.
    private func send() {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        guard !busy else { return }
        guard !queue.isEmpty else { return finishFlush() }
        let batch = Array(queue.prefix(Self.batchSize))
        queue.removeFirst(batch.count)
        busy = true
        let loop = loop, settings = settings, counts = counts
        loop.offload { [self] _ in
            // The worker reads only the batch and the settings (values), never the queue.
            let body = OTLPTraceJSON.request(batch, settings: settings)
            // Refused once the loop is closing: the batch is then lost with the client.
            if !loop.execute({ [self] in post(body, spans: batch.count) }) {
                counts.withLock { $0.dropped += batch.count }
            }
        }
    }

    /// POSTs one encoded batch of `spans` spans.
    private func post(_ body: [UInt8], spans count: Int) {
        let transfer = OTLPPost.transfer(url: url, body: body) { [self] accepted in
            inFlight = nil
            busy = false
            counts.withLock { counts in
                if accepted { counts.exported += count } else { counts.dropped += count }
            }
            if !queue.isEmpty && (flushing != nil || queue.count >= Self.batchSize) {
                send()
            } else if flushing != nil {
                finishFlush()
            } else if !queue.isEmpty {
                enqueue([])
            }
        }
        inFlight = transfer
        loop.start(transfer)
    }
}

/// How many spans a client's OTLP exporter has sent and lost since the client was made
/// (``Client/spanExportCounts``).
public struct SpanExportCounts: Sendable, Equatable {
    /// Spans the collector accepted (a 2xx answer to their export).
    public var exported = 0
    /// Spans lost: the queue was full (2048), their export failed (refused, an error status,
    /// no answer within 10 s), or a close's flush ran out of time.
    public var dropped = 0

    /// Counts of `exported` and `dropped` spans.
    public init(exported: Int = 0, dropped: Int = 0) {
        self.exported = exported
        self.dropped = dropped
    }
}
