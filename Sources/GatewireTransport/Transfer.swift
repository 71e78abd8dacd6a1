import CCurl
import GatewireBase
import Glibc

/// One HTTP exchange on a libcurl easy handle: sets the handle up from an ``HTTPRequest``,
/// collects the body, and reads status, headers, timings and counters when libcurl is done.
///
/// Lives on the event loop's thread only; ``EventLoop`` owns it while it is in flight and
/// calls `completion` exactly once.
/// Its state is not checked for exclusive access at run time (`@exclusivity(unchecked)`): one
/// thread touches it and no access overlaps another (each check cost about 80 instructions,
/// several per header line).
package final class Transfer: @unchecked Sendable {
    let request: HTTPRequest
    let options: TransferOptions
    private let completion: (TransferResult) -> Void
    @exclusivity(unchecked) private var body: [UInt8] = []
    /// Where a body the writer takes goes instead of ``body`` (``Transfer+BodyWriter.swift``).
    let writer: ResponseBodyWriter?
    @exclusivity(unchecked) var stream = StreamState()
    /// The length of the chunk that would have taken the body past
    /// ``TransferOptions/maxResponseBytes`` (not kept; the transfer was aborted), else 0.
    @exclusivity(unchecked) private var refusedChunk = 0
    /// The error buffer and header fields the loop lends, given to ``configure(_:buffers:)``.
    @exclusivity(unchecked) private var buffers: HandleBuffers?
    /// Whether the header callback is between a status line and the blank line after it.
    @exclusivity(unchecked) private var readingHeaders = false
    @exclusivity(unchecked) private var headerList: UnsafeMutablePointer<curl_slist>?
    /// The `multipart/form-data` body libcurl sends (``setMultipart(_:)``), freed with the transfer.
    @exclusivity(unchecked) var mime: OpaquePointer?
    /// The file parts of ``mime`` (libcurl holds them too), asked why a read aborted the transfer.
    @exclusivity(unchecked) var fileSources: [MultipartFileSource] = []
    @exclusivity(unchecked) private(set) var easy: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var completed = false
    /// How often libcurl was about to send the request (`CURLOPT_PREREQFUNCTION`), and the
    /// redirect count it had reached the last time.
    @exclusivity(unchecked) private var sends = 0
    @exclusivity(unchecked) private var redirectsAtLastSend = 0
    /// Whether a second send of the same request was refused (``willSendRequest()``).
    @exclusivity(unchecked) private var refusedResend = false
    /// When the loop took the transfer (into its admission queue, or straight to libcurl), and
    /// when libcurl first was about to send its request (``MonotonicClock``; 0 until then),
    /// for ``TransferTimings/queued``.
    @exclusivity(unchecked) var addedAt = 0.0
    @exclusivity(unchecked) private var firstSendAt = 0.0
    /// Receives the transfer's progress (``TransferProgressReporter``); nil (the default)
    /// leaves libcurl's progress meter off. Set before the loop starts the transfer.
    @exclusivity(unchecked) package var progress: TransferProgressReporter?
    /// Whether libcurl was ever about to send the request (it had a connection).
    var hasSent: Bool { sends > 0 }

    /// A transfer of `request`; `writer` (nil: none) takes the bodies it accepts instead of
    /// the response (``ResponseBodyWriter``).
    package init(request: HTTPRequest, options: TransferOptions, writer: ResponseBodyWriter? = nil,
                 completion: @escaping (TransferResult) -> Void) {
        self.request = request
        self.options = options
        self.writer = writer
        self.completion = completion
    }

    deinit {
        HeaderBlock.free(headerList)
        curl_mime_free(mime)  // unbinds it from the handle if that is still alive
    }

    /// Whether the request has a body to upload (libcurl adds `Expect: 100-continue` only then):
    /// a body, or a POST (sent with an empty one).
    private var sendsBody: Bool { request.hasBody || request.method == .post }

    /// The header fields libcurl sends besides its own: the request's, `Expect:` when a body
    /// is sent, and ``AcceptEncoding/field`` when decoding is on and the request has none
    /// (``ContentDecoder/field`` when the transfer decodes itself, ``decodesBody``).
    /// A request with no field and no body shares ``AcceptEncoding/onlyField`` (nothing to
    /// build or free); any other gets its own list, freed with the transfer.
    private func makeHeaderList() -> UnsafeMutablePointer<curl_slist>? {
        let encoding = !options.acceptEncoding ? nil : decodesBody ? ContentDecoder.field : AcceptEncoding.field
        if request.headers.count == 0, !sendsBody, !decodesBody {
            return encoding == nil ? nil : AcceptEncoding.onlyField.list
        }
        // "Expect:" turns off 100-continue, which costs a round trip (or a 1 s wait) per body.
        // A request that sends no body never has one.
        let expect = sendsBody && !request.headers.contains("Expect") ? "Expect:" : nil
        headerList = HeaderBlock.make(request.headers, expect,
                                      encoding.flatMap { request.headers.contains("Accept-Encoding") ? nil : $0 })
        return headerList
    }

    /// Configures `easy`, a new handle, for this request. `buffers`: lent by the loop for this
    /// transfer (emptied here; read by ``finish(_:)``).
    /// Returns a transport error when libcurl rejects an option (a malformed URL is only
    /// detected when the transfer starts), or of kind `invalidArgument` for a header field
    /// that ``HTTPHeaders/fieldProblem(name:value:)`` rejects (nothing is sent).
    func configure(_ easy: UnsafeMutableRawPointer, buffers: HandleBuffers) -> TransportError? {
        self.easy = easy
        self.buffers = buffers
        buffers.clear()
        // The last guard against header injection: nothing with CR, LF or NUL, or a name that
        // is not a token, reaches libcurl's list (RFC 9110 sections 5.1 and 5.5). It reads
        // the verdict ``HTTPHeaders`` kept as the fields entered (no second check); a call
        // never gets here with a bad field (it fails first), a request made by hand can.
        if let problem = request.headers.problem {
            return TransportError(kind: .invalidArgument, curlCode: 0, message: problem)
        }
        var setter = OptionSetter(easy: easy)
        setter.check(request.url.withCString { gw_easy_setopt_str(easy, CURLOPT_URL, $0) })  // libcurl copies it
        setter.check(gw_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, makeHeaderList()))
        setCallbacks(&setter, buffers: buffers)
        setMethodAndBody(&setter, buffers: buffers)
        if let failure = setMultipart(&setter) { return failure }
        setLimits(&setter)
        setHTTPVersion(&setter)
        setProgress(&setter)
        guard setter.failed == CURLE_OK else { return Self.error(for: setter.failed, detail: nil) }
        return nil
    }

    /// Sets options on one easy handle, keeping the first failure.
    struct OptionSetter {
        let easy: UnsafeMutableRawPointer
        var failed: CURLcode = CURLE_OK

        mutating func check(_ code: CURLcode) { if code != CURLE_OK, failed == CURLE_OK { failed = code } }
    }

    /// The body, header and pre-request callbacks, with this transfer as their context, and
    /// the options every transfer has (protocols, signals, the path as is, the User-Agent).
    private func setCallbacks(_ setter: inout OptionSetter, buffers: HandleBuffers) {
        let easy = setter.easy
        setter.check(gw_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque()))
        setter.check(gw_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, Unmanaged.passUnretained(self).toOpaque()))
        setter.check(gw_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, buffers.errorBuffer))
        setter.check(gw_easy_setopt_str(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        setter.check(gw_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        // The path on the wire is the path the results report: libcurl must not resolve dot
        // segments itself (RFC 3986 section 5.2.4); the call refuses them (``DotSegments``).
        setter.check(gw_easy_setopt_long(easy, CURLOPT_PATH_AS_IS, 1))
        setter.check(gw_easy_setopt_str(easy, CURLOPT_USERAGENT, UserAgent.field))  // libcurl copies it
        setter.check(gw_easy_setopt_datacb(easy, CURLOPT_WRITEFUNCTION, { data, size, count, context in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            if transfer.writer != nil, transfer.streams() { return transfer.stream(data, length) }
            // Decoded bytes, as they arrive: one past the limit aborts the transfer at once
            // (a short count is CURLE_WRITE_ERROR), so a body never grows beyond the limit.
            guard length <= transfer.options.maxResponseBytes - transfer.body.count else {
                transfer.refusedChunk = length
                return 0
            }
            data.map { transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: $0, count: length)) }
            return length
        }))
        setter.check(gw_easy_setopt_ptr(easy, CURLOPT_PREREQDATA, Unmanaged.passUnretained(self).toOpaque()))
        setter.check(gw_easy_setopt_prereqcb(easy, { context, _, _, _, _ in
            let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.willSendRequest() ? CURL_PREREQFUNC_OK : CURL_PREREQFUNC_ABORT
        }))
        setter.check(gw_easy_setopt_datacb(easy, CURLOPT_HEADERFUNCTION, { data, size, count, context in
            // The transfer is alive while libcurl runs it (the loop holds it): no retain here.
            let length = size * count
            guard let data else { return length }
            data.withMemoryRebound(to: UInt8.self, capacity: length) { line in
                Unmanaged<Transfer>.fromOpaque(context!)._withUnsafeGuaranteedRef {
                    $0.received(headerLine: UnsafeBufferPointer(start: line, count: length))
                }
            }
            return length
        }))
    }

    /// The method on the wire is the one asked for. libcurl names GET, HEAD and POST itself,
    /// but a body (COPYPOSTFIELDS) turns its request into a POST: every other method, and a
    /// GET with a body, is named with CUSTOMREQUEST. (A HEAD with a body never gets here:
    /// HTTPMethod.bodyProblem refuses it.)
    /// `buffers`' error buffer stands in for an empty body's bytes (libcurl wants a pointer).
    private func setMethodAndBody(_ setter: inout OptionSetter, buffers: HandleBuffers) {
        let easy = setter.easy
        switch request.method {
        case .get where !request.hasBody: setter.check(gw_easy_setopt_long(easy, CURLOPT_HTTPGET, 1))
        case .head: setter.check(gw_easy_setopt_long(easy, CURLOPT_NOBODY, 1))
        case .post: setter.check(gw_easy_setopt_long(easy, CURLOPT_POST, 1))
        default: setter.check(gw_easy_setopt_str(easy, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
        }
        if let payload = request.body {
            // COPYPOSTFIELDS copies the bytes, so the transfer does not depend on `request`'s storage.
            setter.check(gw_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(payload.count)))
            payload.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    setter.check(gw_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: chars.baseAddress ?? UnsafePointer(buffers.errorBuffer))))
                }
            }
        } else if request.method == .post, request.parts == nil {
            setter.check(gw_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, 0))
            setter.check(gw_easy_setopt_str(easy, CURLOPT_COPYPOSTFIELDS, ""))
        }
    }

    /// Timeouts, TLS verification, proxy, decoding, no redirects (the call follows them), a
    /// fresh connection when asked, and the response size limit.
    private func setLimits(_ setter: inout OptionSetter) {
        let easy = setter.easy
        setter.check(gw_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(options.connectTimeout)))
        setter.check(gw_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, options.timeout.map(Self.milliseconds) ?? 0))
        setter.check(gw_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, options.verifyTLS ? 1 : 0))
        setter.check(gw_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, options.verifyTLS ? 2 : 0))
        if let caFile = options.caFile { setter.check(gw_easy_setopt_str(easy, CURLOPT_CAINFO, caFile)) }
        if let proxy = options.proxy { setter.check(gw_easy_setopt_str(easy, CURLOPT_PROXY, proxy)) }
        if let noProxy = options.noProxy { setter.check(gw_easy_setopt_str(easy, CURLOPT_NOPROXY, noProxy)) }
        // Decodes what libcurl can; the field itself comes from `makeHeaderList` (AcceptEncoding).
        // A transfer that decodes itself leaves libcurl's decoders off (Transfer+BodyWriter.swift).
        if options.acceptEncoding, !decodesBody { setter.check(gw_easy_setopt_str(easy, CURLOPT_ACCEPT_ENCODING, "")) }
        // Redirects are the call's (RedirectPolicy decides each hop): libcurl only reports
        // the target (CURLINFO_REDIRECT_URL).
        setter.check(gw_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        if options.freshConnection { setter.check(gw_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1)) }
        // A Content-Length above the limit is refused before the body (CURLE_FILESIZE_EXCEEDED);
        // not a HEAD's, which describes a body never sent (libcurl 7.88 would refuse it too).
        // With a writer, a streamed body has the writer's cap instead, and a body kept in
        // memory is still stopped at the limit as it arrives.
        let refusedLength = writer.map { $0.maxBytes ?? 0 } ?? options.maxResponseBytes
        if writer != nil { setter.check(gw_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, streamedBufferSize)) }
        setter.check(gw_easy_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE,
                                        request.method == .head ? 0 : curl_off_t(refusedLength)))
    }

    /// Where HTTP/2 is possible (TLS, or h2c with prior knowledge), wait for a connection
    /// that may multiplex (one still connecting) instead of opening another: without it,
    /// every call started before the first TLS handshake tells libcurl the server speaks
    /// HTTP/2 opens a connection of its own. Plain http without prior knowledge is always
    /// HTTP/1.1, where the wait would only hold a burst back until the first response.
    private func setHTTPVersion(_ setter: inout OptionSetter) {
        let easy = setter.easy
        let cleartext = Self.isCleartext(request.url)
        let priorKnowledge = options.http2PriorKnowledge && cleartext
        if priorKnowledge {
            setter.check(gw_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE))
            if !PriorKnowledgeReuse.works {
                setter.check(gw_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1))
                setter.check(gw_easy_setopt_long(easy, CURLOPT_FORBID_REUSE, 1))
            }
        }
        if !cleartext || (priorKnowledge && PriorKnowledgeReuse.works) {
            setter.check(gw_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1))
        }
    }

    /// libcurl is about to send the request on a connection: true lets it. The first send
    /// and each redirect's are let through; any other is libcurl re-sending the same request
    /// by itself, which it does when a reused connection dies before the first response byte
    /// ("Connection died, retrying a fresh connect"). That re-send would reach the server
    /// without an attempt in the history, so it is refused: the attempt ends as a `network`
    /// failure with the request counted as sent, and the retry policy decides whether to send
    /// it again, as a recorded attempt.
    private func willSendRequest() -> Bool {
        var redirects = 0
        if let easy { _ = gw_easy_getinfo_long(easy, CURLINFO_REDIRECT_COUNT, &redirects) }
        defer {
            sends += 1
            redirectsAtLastSend = redirects
        }
        if sends == 0 { firstSendAt = MonotonicClock.now() }
        guard sends > 0, redirects == redirectsAtLastSend else { return true }
        refusedResend = true
        return false
    }

    /// Reads the outcome from the handle after libcurl reported it done with `code`.
    func finish(_ code: CURLcode) {
        guard let easy, let buffers else {
            return complete(failure: TransportError(kind: .network, curlCode: 0, message: "transfer was never started"))
        }
        var timings = TransferTimings()
        // A request sent on a reused connection had no DNS, connect or TLS phase, but libcurl
        // 7.88 still stamps the name lookup (and, over TLS, the handshake) a few microseconds
        // after the start (curl issue #3760): those are read only when it opened a connection.
        var connects = 0
        _ = gw_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        let pretransfer = Self.seconds(easy, CURLINFO_PRETRANSFER_TIME_T)
        let reused = connects == 0 && pretransfer > 0
        if !reused {
            timings.dns = Self.seconds(easy, CURLINFO_NAMELOOKUP_TIME_T)
            timings.connect = Self.seconds(easy, CURLINFO_CONNECT_TIME_T)
            timings.tls = Self.seconds(easy, CURLINFO_APPCONNECT_TIME_T)
        }
        timings.firstByte = Self.seconds(easy, CURLINFO_STARTTRANSFER_TIME_T)
        timings.total = Self.seconds(easy, CURLINFO_TOTAL_TIME_T)
        // One that libcurl failed before sending (connecting, resolving) was not queued then.
        if firstSendAt > 0 { timings.queued = queuedTime() }
        var requestSize = 0
        _ = gw_easy_getinfo_long(easy, CURLINFO_REQUEST_SIZE, &requestSize)
        var uploaded: curl_off_t = 0
        _ = gw_easy_getinfo_off(easy, CURLINFO_SIZE_UPLOAD_T, &uploaded)
        let sent = Int64(requestSize) + Int64(uploaded)
        // libcurl reached the point of sending the request (`PRETRANSFER`), or wrote some of
        // it: the server may have seen it. The connect time says nothing here: it is 0 on
        // every reused connection.
        let requestSent = refusedResend || sent > 0 || pretransfer > 0

        var result = TransferResult(response: nil, error: nil, timings: timings, bytesSent: sent,
                                    bytesReceived: Int64(body.count + refusedChunk + stream.bytes), requestSent: requestSent)
        // A body the writer took must be whole (endStream); if not, stream.failure says why.
        if code == CURLE_OK, endStream() {
            var status = 0
            _ = gw_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            var url: UnsafeMutablePointer<CChar>?
            _ = gw_easy_getinfo_str(easy, CURLINFO_EFFECTIVE_URL, &url)
            var version = 0
            _ = gw_easy_getinfo_long(easy, CURLINFO_HTTP_VERSION, &version)
            var location: UnsafeMutablePointer<CChar>?
            if (300...399).contains(status) { _ = gw_easy_getinfo_str(easy, CURLINFO_REDIRECT_URL, &location) }
            // The final response's fields, as strings only when read (``RawHeaderBlock``).
            let headers = buffers.headers.build().map(HTTPHeaders.init) ?? HTTPHeaders()
            result.response = HTTPResponse(status: status, headers: headers, body: body,
                                           effectiveURL: url.map { effectiveURL(UnsafePointer($0)) } ?? request.url,
                                           httpVersion: Self.versionName(version),
                                           redirectURL: location.map { String(cString: $0) })
        } else {
            let detail = buffers.errorBuffer[0] == 0 ? nil : String(cString: buffers.errorBuffer)
            if let failure = stream.failure {
                result.error = failure  // the writer's, or its cap's
            } else if refusedResend, code == CURLE_ABORTED_BY_CALLBACK {
                // Not a cancellation: the connection died under the request (willSendRequest).
                result.error = TransportError(kind: .network, curlCode: Int32(code.rawValue),
                                              message: "connection reset on a reused connection; the request may have "
                                                  + "reached the server, so it was not re-sent unrecorded")
            } else if code == CURLE_FILESIZE_EXCEEDED || (code == CURLE_WRITE_ERROR && refusedChunk > 0) {
                result.error = TransportError(
                    kind: .responseTooLarge, curlCode: Int32(code.rawValue),
                    message: code == CURLE_FILESIZE_EXCEEDED && writer != nil
                        ? "the response's Content-Length exceeds the streamed body's cap (\(writer?.maxBytes ?? 0) bytes); its body was not read"
                        : code == CURLE_FILESIZE_EXCEEDED
                        ? "the response's Content-Length exceeds maxResponseBytes (\(options.maxResponseBytes) bytes); its body was not read"
                        : "the decoded response body passed maxResponseBytes (\(options.maxResponseBytes) bytes); the transfer was aborted there")
            } else if let failure = multipartReadFailure(code, detail: detail) {
                result.error = failure
            } else {
                result.error = Self.error(for: code, detail: detail, requestSent: requestSent)
            }
        }
        reportFinalProgress(easy: easy, code: code)
        deliver(result)
    }

    /// libcurl's `CURLINFO_EFFECTIVE_URL` as a string: the request's own string when they
    /// are the same bytes (the usual case: no copy), else a new one (libcurl normalised it).
    private func effectiveURL(_ url: UnsafePointer<CChar>) -> String {
        var requested = request.url
        let same = requested.withUTF8 { bytes in
            strlen(url) == bytes.count && memcmp(url, bytes.baseAddress!, bytes.count) == 0
        }
        return same ? request.url : String(cString: url)
    }

    /// How long the transfer waited for a connection (``TransferTimings/queued``): in the
    /// loop's admission queue and in libcurl's. libcurl 7.88 has no CURLINFO_QUEUE_TIME_T
    /// (8.6). Its phase counters restart when a transfer leaves its queue (its total does
    /// not), so the time from ``addedAt`` to the first send, less the phases before sending
    /// (PRETRANSFER), is the wait. A transfer never sent counts its whole time so far
    /// (libcurl 7.88 does not say whether it was still queued or already connecting); one
    /// the loop never took, 0.
    private func queuedTime() -> Double {
        guard addedAt > 0 else { return 0 }
        guard firstSendAt > 0 else { return MonotonicClock.now() - addedAt }
        return max(0, firstSendAt - addedAt - (easy.map { Self.seconds($0, CURLINFO_PRETRANSFER_TIME_T) } ?? 0))
    }

    /// Ends the transfer without a libcurl result (cancelled, loop shut down, setup failed),
    /// with the time it waited for a connection (``queuedTime()``): a call ended while its
    /// request was on the wire had waited before it was sent.
    func complete(failure: TransportError) {
        var timings = TransferTimings()
        timings.queued = queuedTime()
        reportFinalProgress(easy: nil, code: CURLE_ABORTED_BY_CALLBACK)
        deliver(TransferResult(response: nil, error: failure, timings: timings, bytesSent: 0, bytesReceived: 0,
                               requestSent: false))
    }

    /// Whether `url`'s scheme is `http` (any case): cleartext, where prior knowledge applies.
    private static func isCleartext(_ url: String) -> Bool {
        // On the contiguous bytes: the generic `elementsEqual` cost ~900 instructions a call.
        url.utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.count > 7 else { return false }
            return bytes[0] | 0x20 == 0x68 && bytes[1] | 0x20 == 0x74 && bytes[2] | 0x20 == 0x74 && bytes[3] | 0x20 == 0x70
                && bytes[4] == 0x3A && bytes[5] == 0x2F && bytes[6] == 0x2F  // "http://", the scheme in any case
        } ?? false
    }

    private func deliver(_ result: TransferResult) {
        guard !completed else { return }
        completed = true
        easy = nil  // the loop cleans the handle up: nothing may reach it through the transfer
        completion(result)
    }

    /// One line from libcurl's header callback. Every response (a redirect, a 1xx, a
    /// proxy's CONNECT answer, the final one) starts with its status line, which drops the
    /// fields collected so far: what remains is the last response's header section, the
    /// fields `curl_easy_nextheader(easy, CURLH_HEADER, -1, ...)` would list (trailers come
    /// after the blank line and are left out, as there). Costs a byte copy per line instead
    /// of that API's per-field scan of every stored header.
    private func received(headerLine line: UnsafeBufferPointer<UInt8>) {
        if line.count >= 5, line[0] == UInt8(ascii: "H"), line[1] == UInt8(ascii: "T"), line[2] == UInt8(ascii: "T"),
           line[3] == UInt8(ascii: "P"), line[4] == UInt8(ascii: "/") {
            buffers?.headers.removeAll()
            readingHeaders = true
        } else if readingHeaders {
            if let first = line.first, first == 13 || first == 10 {
                readingHeaders = false  // the blank line: the header section is over
            } else {
                buffers?.headers.append(line: line)
            }
        }
    }

    private static func seconds(_ easy: UnsafeMutableRawPointer, _ info: CURLINFO) -> Double {
        var micros: curl_off_t = 0
        _ = gw_easy_getinfo_off(easy, info, &micros)
        return Double(micros) / 1_000_000
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return Int(min(seconds * 1000, Double(Int32.max)).rounded(.up))
    }

    private static func versionName(_ version: Int) -> String {
        switch version {
        case CURL_HTTP_VERSION_1_0: "1.0"
        case CURL_HTTP_VERSION_2_0: "2"
        case CURL_HTTP_VERSION_3: "3"
        default: "1.1"
        }
    }

    /// Maps a libcurl result code to Gatewire's failure kinds, by what happened:
    /// `requestSent` says whether the transfer got as far as sending the request.
    /// - A timeout before that is `connect` (no connection was made), after it `timeout`.
    /// - A reply that is not HTTP is `protocolViolation`: `CURLE_WEIRD_SERVER_REPLY`, a
    ///   `CURLE_HTTP2` framing error, a body that cannot be decoded, and, once the request
    ///   went out, `CURLE_UNSUPPORTED_PROTOCOL` ("Received HTTP/0.9 when not allowed", an
    ///   unsupported HTTP version) and `CURLE_BAD_FUNCTION_ARGUMENT` (libcurl 7.88's answer to a
    ///   first header field line that starts with a space: obsolete line folding, RFC 9112
    ///   section 5.2, with nothing to fold onto). Before sending, those two mean the request
    ///   could not be built (a URL's scheme libcurl does not speak): `invalidArgument`.
    ///
    /// The message is libcurl's error buffer (`detail`), else its text for the code, except
    /// for `CURLE_BAD_FUNCTION_ARGUMENT` once the request went out: libcurl's text ("A libcurl
    /// function was given a bad argument") would blame the caller, and the one line that gets
    /// it there is the server's (``foldedFirstLineMessage``).
    static func error(for code: CURLcode, detail: String?, requestSent: Bool = false) -> TransportError {
        let kind: ErrorKind
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: kind = .dns
        case CURLE_COULDNT_CONNECT: kind = .connect
        case CURLE_OPERATION_TIMEDOUT: kind = requestSent ? .timeout : .connect
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_BAD_CONTENT_ENCODING: kind = .protocolViolation
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_FUNCTION_ARGUMENT:
            kind = requestSent ? .protocolViolation : .invalidArgument
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
             CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
             CURLE_SSL_CRL_BADFILE, CURLE_SSL_SHUTDOWN_FAILED, CURLE_USE_SSL_FAILED:
            kind = .tls
        case CURLE_URL_MALFORMAT, CURLE_UNKNOWN_OPTION:
            kind = .invalidArgument
        case CURLE_ABORTED_BY_CALLBACK: kind = .cancelled
        default: kind = .network
        }
        let libcurlMessage = detail.flatMap { $0.isEmpty ? nil : $0 }
        let message = code == CURLE_BAD_FUNCTION_ARGUMENT && requestSent
            ? foldedFirstLineMessage + (libcurlMessage.map { " (libcurl: \($0))" } ?? "")
            : libcurlMessage ?? String(cString: curl_easy_strerror(code))
        return TransportError(kind: kind, curlCode: Int32(code.rawValue), message: message)
    }

    /// What a server did when libcurl 7.88 fails a sent request with
    /// `CURLE_BAD_FUNCTION_ARGUMENT`: in reading a response, only its header store returns that
    /// code (lib/headers.c, `Curl_headers_push`), for a header field line that starts with a
    /// space or tab while no field came before it, so there is no value to continue (a field
    /// line without a colon is `CURLE_WEIRD_SERVER_REPLY`, "Header without colon").
    static let foldedFirstLineMessage = "the server's response is malformed: its first header field line starts with "
        + "a space or tab, a continuation line (obsolete line folding, RFC 9112 section 5.2) with no field before it "
        + "to continue, which libcurl 7.88 refuses (CURLE_BAD_FUNCTION_ARGUMENT)"
}
