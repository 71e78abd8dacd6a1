/// Sends a client's metrics to an OTLP/HTTP collector (`POST <endpoint>/v1/metrics`,
/// `Content-Type: application/json`: ``OTLPMetricJSON``) every ``TelemetrySettings/metricExportInterval``
/// seconds and when the client closes (the SDK's periodic exporting metric reader), from the
/// client's own event loop with libcurl: a transfer of its own, never one of a call's.
///
/// The values are cumulative, so an export that fails (refused, no answer within 10 s) loses
/// nothing: the next one carries every count. One export at a time; a tick that finds one
/// still on the wire is skipped. The snapshot is taken on the loop thread (a copy of the
/// aggregation), the JSON encoded on the ``WorkerPool``.
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
    /// The export on the wire, for a flush that runs out of time to abort.
    private var inFlight: Transfer?
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
    /// `done`, or after `seconds` (an export still on the wire is then aborted): a client's
    /// close waits for it, bounded in time.
    func flush(within seconds: Double, then done: @escaping () -> Void) {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        if let (deadline, earlier, sent) = flushing {
            flushing = (deadline, { earlier(); done() }, sent)
            return
        }
        let deadline = loop.schedule(after: seconds) { [self] _ in
            if let transfer = inFlight {
                loop.abort(transfer, with: TransportError(kind: .timeout, curlCode: 0, message: "flush timed out"))
            }
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
            let body = OTLPMetricJSON.request(snapshot, settings: settings)
            if !loop.execute({ [self] in post(body) }) {
                counts.withLock { $0.failed += 1 }  // the loop is closing
            }
        }
    }

    private func post(_ body: [UInt8]) {
        let transfer = OTLPPost.transfer(url: url, body: body) { [self] accepted in
            inFlight = nil
            busy = false
            counts.withLock { counts in
                if accepted { counts.exported += 1 } else { counts.failed += 1 }
            }
            guard let (_, _, sent) = flushing else { return }
            // A close that came while an earlier export was on the wire sends the final values.
            if sent { finishFlush() } else { send() }
        }
        inFlight = transfer
        loop.start(transfer)
    }
}
