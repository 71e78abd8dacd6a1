import CCurl
import GatewireBase

/// How far one attempt's transfer has got, in bytes as libcurl counts them
/// (`CURLOPT_XFERINFOFUNCTION`): the request body sent, and the response body received before
/// any `Content-Encoding` is decoded. A total is nil while unknown (no `Content-Length` yet,
/// or none at all). Each attempt (and each redirect hop) counts from 0.
public struct TransferProgress: Sendable, Equatable {
    /// The attempt (1, 2, ...) whose transfer this is; set by the call.
    public var attempt: Int = 0
    /// Whether this is the attempt's last report: its counts are final, and when the transfer
    /// completed, each total equals its count (the size, now known).
    public var isFinal = false
    /// Request body bytes sent so far.
    public var bytesSent: Int64 = 0
    /// The request body's size, or nil when unknown.
    public var bytesToSend: Int64?
    /// Response body bytes received so far (as on the wire: before decoding).
    public var bytesReceived: Int64 = 0
    /// The response body's size (its `Content-Length`), or nil when unknown.
    public var bytesToReceive: Int64?

    /// Counts and totals as given; a nil total is unknown.
    public init(attempt: Int = 0, isFinal: Bool = false, bytesSent: Int64 = 0, bytesToSend: Int64? = nil,
                bytesReceived: Int64 = 0, bytesToReceive: Int64? = nil) {
        self.attempt = attempt
        self.isFinal = isFinal
        self.bytesSent = bytesSent
        self.bytesToSend = bytesToSend
        self.bytesReceived = bytesReceived
        self.bytesToReceive = bytesToReceive
    }
}

/// Throttles libcurl's transfer-info callbacks of one ``Transfer`` into reports: a report
/// when the counts changed and at least ``interval`` seconds (``MonotonicClock``) passed
/// since the last one, and one final report when the transfer ends. Loop thread only.
///
/// A transfer without a reporter never turns libcurl's progress meter on
/// (`CURLOPT_NOPROGRESS` stays 1): a call nobody watches pays nothing (callgrind, the bench's
/// C client on a 224-byte body, 8 in flight: 132.2-132.9K instructions a call, as before
/// progress existed, 132.5-132.6K; with a reporter 136.1-136.5K).
package final class TransferProgressReporter {
    /// What the reporter is handed (``TransferProgress/isFinal`` marks the last report).
    package typealias Handler = (TransferProgress) -> Void

    /// The least time between two reports, in seconds: at most ten a second.
    package static let interval = 0.1

    private let handler: Handler
    @exclusivity(unchecked) private var last = TransferProgress()
    @exclusivity(unchecked) private var lastAt = -Double.infinity
    @exclusivity(unchecked) private var ended = false

    package init(_ handler: @escaping Handler) { self.handler = handler }

    /// libcurl's counts (a total of 0 is unknown): reported when they changed and the
    /// interval has passed, else dropped (the final report reads libcurl's own totals).
    fileprivate func update(sent: Int64, toSend: Int64, received: Int64, toReceive: Int64) {
        let progress = TransferProgress(bytesSent: sent, bytesToSend: toSend > 0 ? toSend : nil,
                                        bytesReceived: received, bytesToReceive: toReceive > 0 ? toReceive : nil)
        guard !ended, progress != last else { return }
        let now = MonotonicClock.now()
        guard now - lastAt >= Self.interval else { return }
        last = progress
        lastAt = now
        handler(progress)
    }

    /// The final report, once. From `easy` when libcurl finished the transfer (its counts and
    /// `Content-Length`s; when it `succeeded`, each total is the count, the size now known),
    /// else (aborted, never started) the last counts reported.
    fileprivate func finish(easy: UnsafeMutableRawPointer?, succeeded: Bool) {
        guard !ended else { return }
        ended = true
        var progress = last
        progress.isFinal = true
        if let easy {
            progress.bytesSent = Self.info(easy, CURLINFO_SIZE_UPLOAD_T)
            progress.bytesReceived = Self.info(easy, CURLINFO_SIZE_DOWNLOAD_T)
            let toSend = Self.info(easy, CURLINFO_CONTENT_LENGTH_UPLOAD_T)
            let toReceive = Self.info(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T)
            progress.bytesToSend = toSend >= 0 ? toSend : nil
            progress.bytesToReceive = toReceive >= 0 ? toReceive : nil
        }
        if succeeded {
            progress.bytesToSend = progress.bytesSent
            progress.bytesToReceive = progress.bytesReceived
        }
        handler(progress)
    }

    private static func info(_ easy: UnsafeMutableRawPointer, _ info: CURLINFO) -> Int64 {
        var value: curl_off_t = -1
        guard gw_easy_getinfo_off(easy, info, &value) == CURLE_OK else { return -1 }
        return Int64(value)
    }
}

extension Transfer {
    /// Turns libcurl's progress meter on for this transfer when it has a
    /// ``TransferProgressReporter``; without one, sets nothing.
    func setProgress(_ setter: inout OptionSetter) {
        guard let progress else { return }
        let easy = setter.easy
        setter.check(gw_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 0))
        // The reporter lives as long as the transfer, which the loop holds while libcurl runs it.
        setter.check(gw_easy_setopt_ptr(easy, CURLOPT_XFERINFODATA, Unmanaged.passUnretained(progress).toOpaque()))
        setter.check(gw_easy_setopt_xferinfocb(easy, { context, toReceive, received, toSend, sent in
            Unmanaged<TransferProgressReporter>.fromOpaque(context!)._withUnsafeGuaranteedRef {
                $0.update(sent: Int64(sent), toSend: Int64(toSend), received: Int64(received),
                          toReceive: Int64(toReceive))
            }
            return 0  // go on
        }))
    }

    /// The reporter's final report: from the handle libcurl finished with `code`, or, with
    /// no handle (aborted, never started), from the last counts.
    func reportFinalProgress(easy: UnsafeMutableRawPointer?, code: CURLcode) {
        progress?.finish(easy: easy, succeeded: easy != nil && code == CURLE_OK)
    }
}
