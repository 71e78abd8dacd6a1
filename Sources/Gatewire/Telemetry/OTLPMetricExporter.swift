/// Sends a client's metrics to an OTLP/HTTP collector (`POST <endpoint>/v1/metrics`, in
/// ``TelemetrySettings/otlpProtocol``'s encoding: ``OTLPMetricProtobuf`` or ``OTLPMetricJSON``) every ``TelemetrySettings/metricExportInterval``
/// seconds and when the client closes (the SDK's periodic exporting metric reader), from the
/// client's own event loop with libcurl: a transfer of its own, never one of a call's.
///
/// Each export is retried as the OTLP specification says (``OTLPPost``). The values are
/// cumulative, so an export that fails for good loses nothing: the next one carries every
/// count. One export at a time; a tick that finds one still under way is skipped. The
/// snapshot is taken on the loop thread (a copy of the aggregation), the JSON encoded on the
/// ``WorkerPool``.
///
/// Loop thread only (every method, the transfer's completion and the timers).
// @unchecked: its state is read and written on the loop thread only; other threads only
// hand it to `loop.execute`.
final class OTLPMetricExporter: @unchecked Sendable {
    private let loop: EventLoop
    private let url: String
    private let settings: TelemetrySettings
    private let metrics: ClientMetrics
    private var timer: Int?
    /// Whether an export is being encoded or sent.
    private var busy = false
    /// The export under way (on the wire or waiting to retry), for a flush that runs out of
    /// time to abort.
    private var inFlight: OTLPPost?
    /// What waits for the close's export (``flush(within:then:)``): its deadline timer, its
    /// completion, and whether the final export has started.
    private var flushing: (timer: Int, done: () -> Void, sent: Bool)?
    /// Exports the collector accepted (a 2xx) and exports that failed; read from any thread.
    let counts = Lock<(exported: Int, failed: Int)>((0, 0))

    init(loop: EventLoop, url: String, settings: TelemetrySettings, metrics: ClientMetrics) {
        self.loop = loop
        self.url = url
        self.settings = settings
        self.metrics = metrics
    }

    /// Arms the periodic export. Loop thread.
    func start() {
        timer = loop.schedule(after: settings.metricInterval) { [self] fired in
            timer = nil
            guard fired else { return }  // the loop closed
            if !busy { send() }
            start()
        }
    }

    /// Exports the metrics as they are now (after the export on the wire, if any), then runs
    /// `done`, or after `seconds` (an export still under way is then aborted): a client's
    /// close waits for it, bounded in time.
    func flush(within seconds: Double, then done: @escaping () -> Void) {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        if let (deadline, earlier, sent) = flushing {
            flushing = (deadline, { earlier(); done() }, sent)
            return
        }
        let deadline = loop.schedule(after: seconds) { [self] _ in
            inFlight?.abort()
            finishFlush()
        }
        flushing = (deadline, done, false)
        if !busy { send() }
    }

    private func finishFlush() {
        guard let (timer, done, _) = flushing else { return }
        flushing = nil
        loop.cancelTimer(timer)
        done()
    }

    /// Takes a snapshot and starts its export: encoded on a worker, then posted from the loop.
    private func send() {
        flushing?.sent = true
        let snapshot = metrics.snapshot()
        guard !snapshot.metrics.isEmpty else { return finishFlush() }
        busy = true
        let loop = loop, settings = settings, counts = counts
        loop.offload { [self] _ in
            let body = settings.encoding == .httpProtobuf
                ? OTLPMetricProtobuf.request(snapshot, settings: settings)
                : OTLPMetricJSON.request(snapshot, settings: settings)
            if !loop.execute({ [self] in post(body) }) {
                counts.withLock { $0.failed += 1 }  // the loop is closing
            }
        }
    }

    private func post(_ body: [UInt8]) {
        let post = OTLPPost(loop: loop, url: url, body: body, contentType: settings.encoding.contentType) { [self] failure in
            inFlight = nil
            busy = false
            counts.withLock { counts in
                if failure == nil { counts.exported += 1 } else { counts.failed += 1 }
            }
            guard let (_, _, sent) = flushing else { return }
            // A close that came while an earlier export was on the wire sends the final values.
            if sent { finishFlush() } else { send() }
        }
        inFlight = post
        post.start()
    }
}
