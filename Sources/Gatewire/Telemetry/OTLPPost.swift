import GatewireBase
import GatewireTransport

/// One OTLP/HTTP export (the OTLP specification's `POST /v1/traces` or `/v1/metrics` with a
/// JSON body), the same for spans and metrics, delivered as the specification's "OTLP/HTTP
/// Response" and "Retryable Response Codes" say: a 2xx is accepted; 429, 502, 503 and 504,
/// and a failure to get any answer (refused, reset, timed out), are retried, after the
/// `Retry-After` the answer gave (delay-seconds or an HTTP-date, RFC 9110 section 10.2.3) or
/// else an exponential backoff with jitter; any other status is dropped at once (a 400 would
/// be refused again). At most ``attempts`` POSTs, all within ``timeout`` seconds of the
/// first (`OTEL_EXPORTER_OTLP_TIMEOUT`, the time one export may take): a retry that could
/// not start in time is not made. A collector that refuses, hangs or is absent costs only
/// these transfers, on the client's loop, never a call's.
///
/// Loop thread only (made, started, aborted and completed there).
// @unchecked: its state is read and written on the loop thread only.
final class OTLPPost: @unchecked Sendable {
    /// Seconds one export may take, its retries and their waits included
    /// (`OTEL_EXPORTER_OTLP_TIMEOUT`'s 10 s).
    static let timeout = 10.0
    /// POSTs at most: the first and 5 retries.
    static let attempts = 6
    /// The backoff before the first retry without a `Retry-After`, in seconds; it doubles
    /// for each further one, up to ``maxBackoff``, and a random half of it is taken off
    /// (equal jitter), so clients refused together do not come back together.
    static let firstBackoff = 0.5
    /// The longest backoff, in seconds.
    static let maxBackoff = 4.0
    /// The statuses the OTLP specification names retryable.
    static let retryable: Set<Int> = [429, 502, 503, 504]

    private let loop: EventLoop
    private let url: String
    private let body: [UInt8]
    private let contentType: String
    /// When the export must be over (``MonotonicClock``).
    private let deadline: Double
    private var completion: ((_ failure: String?) -> Void)?
    /// POSTs made so far.
    private(set) var posts = 0
    /// The POST on the wire, or the timer of the wait before the next.
    private var transfer: Transfer?
    private var timer: Int?

    /// An export of `body` to `url`; `completion` hears once, on the loop thread, nil when the
    /// collector accepted it, else why it failed for good as the semantic conventions'
    /// `error.type`: the last answer's status (`"400"`, `"503"`), or the failure kind when no
    /// answer came (`"connect"`, `"timeout"`). ``start()`` sends it.
    init(loop: EventLoop, url: String, body: [UInt8], contentType: String,
         completion: @escaping (_ failure: String?) -> Void) {
        self.contentType = contentType
        self.loop = loop
        self.url = url
        self.body = body
        self.completion = completion
        deadline = MonotonicClock.now() + Self.timeout
    }

    /// Sends the first POST.
    func start() { post() }

    /// Stops the export now (a close's flush ran out of time): the POST on the wire is
    /// aborted, a wait for a retry dropped, and the completion hears `timeout`.
    func abort() {
        guard let completion else { return }
        self.completion = nil  // first: the aborted transfer's completion then finds the export over
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        if let transfer { loop.abort(transfer, with: TransportError(kind: .timeout, curlCode: 0, message: "flush timed out")) }
        completion(ErrorKind.timeout.name)
    }

    private func post() {
        timer = nil
        posts += 1
        var headers = HTTPHeaders()
        headers.set("Content-Type", contentType)
        var options = TransferOptions()
        let left = max(0.001, deadline - MonotonicClock.now())
        options.connectTimeout = left
        options.timeout = left
        options.maxResponseBytes = 1 << 20
        let transfer = Transfer(request: HTTPRequest(method: .post, url: url, headers: headers, body: body),
                                options: options) { [self] result in
            self.transfer = nil
            guard completion != nil else { return }  // aborted
            if let response = result.response, (200..<300).contains(response.status) { return finish(nil) }
            let failure = result.response.map { String($0.status) } ?? (result.error?.kind ?? .network).name
            guard let delay = retryDelay(result.response) else { return finish(failure) }
            timer = loop.schedule(after: delay) { [self] fired in
                if fired { post() } else { finish(failure) }  // the loop closed
            }
        }
        self.transfer = transfer
        loop.start(transfer)
    }

    /// The wait before the next POST after one answered `response` (nil: no answer), or nil
    /// when there is none: not retryable, out of POSTs, or it could not start in time.
    private func retryDelay(_ response: HTTPResponse?) -> Double? {
        guard posts < Self.attempts else { return nil }
        var delay: Double?
        if let response {
            guard Self.retryable.contains(response.status) else { return nil }
            delay = response.headers["Retry-After"].flatMap { RetryAfter.delay($0, now: WallClock.now()) }
        }
        let wait = delay ?? {
            let backoff = min(Self.maxBackoff, Self.firstBackoff * Double(1 << (posts - 1)))
            return backoff / 2 + Double.random(in: 0...(backoff / 2))
        }()
        return MonotonicClock.now() + wait < deadline ? wait : nil
    }

    private func finish(_ failure: String?) {
        guard let completion else { return }
        self.completion = nil
        completion(failure)
    }
}
