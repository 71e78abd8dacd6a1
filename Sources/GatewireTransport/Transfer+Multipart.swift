import CCurl
import GatewireBase
import Glibc

/// The `multipart/form-data` body of a transfer, built with libcurl's MIME API.
///
/// Every transfer builds its own `curl_mime` from ``HTTPRequest/parts``: a retry and a
/// redirect that keeps the body (307, 308) are new transfers, so they send every part from
/// its first byte. Within one transfer libcurl rewinds the body itself when it must send it
/// again (a file part seeks back to 0); the one re-send it would do on its own, on a reused
/// connection that died, is refused (``willSendRequest()``). File parts are opened when the
/// transfer builds its body and read while libcurl sends them, in its upload buffer's
/// chunks, by ``MultipartFileSource``: a file of any size keeps memory flat, and exactly the
/// size declared in `Content-Length` is sent even when the file changes meanwhile.
extension Transfer {
    /// Sets `CURLOPT_MIMEPOST` to a new MIME body of the request's parts, when it has some
    /// (after the method: libcurl's `CURLOPT_POST` would turn a MIME post back into a plain one).
    /// Returns kind `invalidArgument` for a request that also has ``HTTPRequest/body`` bytes
    /// (a plugin set both), or naming the part when a part cannot be sent
    /// (``MultipartPart/problem``: a file that vanished or became unreadable since the call
    /// checked it), before anything is sent; kind `network` when libcurl has no memory for it.
    func setMultipart(_ setter: inout OptionSetter) -> TransportError? {
        guard let parts = request.parts else { return nil }
        guard request.body == nil else {
            return TransportError(kind: .invalidArgument, curlCode: 0,
                                  message: "the request has both body bytes and multipart parts; set one")
        }
        guard let mime = curl_mime_init(setter.easy) else {
            return TransportError(kind: .network, curlCode: Int32(CURLE_OUT_OF_MEMORY.rawValue),
                                  message: "libcurl could not make a multipart body (out of memory)")
        }
        self.mime = mime
        for part in parts {
            if let problem = part.problem { return TransportError(kind: .invalidArgument, curlCode: 0, message: problem) }
            guard let handle = curl_mime_addpart(mime) else {
                return TransportError(kind: .network, curlCode: Int32(CURLE_OUT_OF_MEMORY.rawValue),
                                      message: "libcurl could not add a multipart part (out of memory)")
            }
            setter.check(curl_mime_name(handle, part.name))  // every curl_mime_* setter copies its argument
            switch part.content {
            case .text(var text):
                text.withUTF8 { bytes in setter.check(Self.setData(handle, UnsafeRawBufferPointer(bytes))) }
            case .bytes(let bytes):
                bytes.withUnsafeBytes { bytes in setter.check(Self.setData(handle, bytes)) }
            case .file(let path):
                let source: MultipartFileSource
                switch MultipartFileSource.open(partName: part.name, path: path) {
                case .success(let opened): source = opened
                case .failure(let error): return TransportError(kind: .invalidArgument, curlCode: 0, message: error.message)
                }
                fileSources.append(source)
                setter.check(curl_mime_data_cb(handle, curl_off_t(source.size), Self.readFile, Self.seekFile,
                                               Self.releaseFile, Unmanaged.passRetained(source).toOpaque()))
            }
            let filename = part.filename ?? part.fileName
            if let filename { setter.check(curl_mime_filename(handle, filename)) }
            if let contentType = part.contentType ?? part.fileContentType(filename: filename) {
                setter.check(curl_mime_type(handle, contentType))
            }
        }
        setter.check(gw_easy_setopt_ptr(setter.easy, CURLOPT_MIMEPOST, UnsafeMutableRawPointer(mime)))
        setter.check(gw_easy_setopt_long(setter.easy, CURLOPT_UPLOAD_BUFFERSIZE, Self.uploadBufferBytes))
        return nil
    }

    /// libcurl's upload buffer for a multipart body (`CURLOPT_UPLOAD_BUFFERSIZE`; 64 KiB by
    /// default, 2 MiB at most): each pass of the event loop sends at most one buffer, so the
    /// default costs a poll and a send per 64 KiB. With 512 KiB a 1 GiB upload to a loopback
    /// sink took 1.5 s instead of 5.3 s with raw libcurl multi, and as much memory per upload
    /// only while it runs (make bench's upload rows).
    static let uploadBufferBytes = 512 * 1024

    /// A file part that changed size or failed while it was sent (``MultipartFileSource``
    /// aborted the transfer), or that libcurl could not read (`CURLE_READ_ERROR`), ends the
    /// attempt as `invalidArgument`, naming the part and what happened to its file: a retry
    /// would send a body other than the one the call was given, or fail the same way.
    func multipartReadFailure(_ code: CURLcode, detail: String?) -> TransportError? {
        if code == CURLE_ABORTED_BY_CALLBACK, let failure = fileSources.lazy.compactMap(\.failure).first {
            return TransportError(kind: .invalidArgument, curlCode: Int32(code.rawValue),
                                  message: "a multipart file part changed while it was sent, so the attempt was "
                                      + "stopped and its connection closed: \(failure)")
        }
        guard code == CURLE_READ_ERROR, let parts = request.parts else { return nil }
        let problems = parts.compactMap(\.problem)
        let reason = problems.isEmpty ? detail ?? String(cString: curl_easy_strerror(code)) : problems.joined(separator: "; ")
        return TransportError(kind: .invalidArgument, curlCode: Int32(code.rawValue),
                              message: "a multipart file part could not be read while it was sent: \(reason)")
    }

    /// libcurl's callbacks for a file part: `arg` is its retained ``MultipartFileSource``,
    /// released when libcurl frees the part (`curl_mime_free`).
    private static let readFile: curl_read_callback = { buffer, size, count, arg in
        guard let buffer, let arg else { return Int(CURL_READFUNC_ABORT) }
        return Unmanaged<MultipartFileSource>.fromOpaque(arg).takeUnretainedValue()
            .read(into: UnsafeMutableRawPointer(buffer), capacity: size * count)
    }
    private static let seekFile: curl_seek_callback = { arg, offset, origin in
        guard let arg else { return Int32(CURL_SEEKFUNC_FAIL) }
        return Unmanaged<MultipartFileSource>.fromOpaque(arg).takeUnretainedValue().seek(to: Int64(offset), origin: origin)
    }
    private static let releaseFile: curl_free_callback = { arg in
        guard let arg else { return }
        Unmanaged<MultipartFileSource>.fromOpaque(arg).release()
    }

    /// Copies `bytes` into `part` (`curl_mime_data`; no bytes, NULL: an empty part).
    private static func setData(_ part: OpaquePointer, _ bytes: UnsafeRawBufferPointer) -> CURLcode {
        curl_mime_data(part, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
    }
}

extension MultipartPart {
    /// A file part's default `filename`: its path's last component, as `curl -F name=@path`
    /// and libcurl's `curl_mime_filedata` send it; nil for the other parts.
    fileprivate var fileName: String? {
        guard case .file(let path) = content else { return nil }
        return path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
    }

    /// A file part's default `Content-Type`, as libcurl gives a `curl_mime_filedata` part:
    /// its guess from the extension of `filename` (libcurl 7.88's table in `mime.c`, compared
    /// without case), else `application/octet-stream`; nil for the other parts, which keep
    /// libcurl's own guess from their filename, if any.
    fileprivate func fileContentType(filename: String?) -> String? {
        guard case .file = content else { return nil }
        let lowered = (filename ?? "").lowercased()
        let guess = Self.libcurlContentTypes.first { lowered.hasSuffix($0.suffix) }
        return guess?.type ?? "application/octet-stream"
    }

    private static let libcurlContentTypes: [(suffix: String, type: String)] = [
        (".gif", "image/gif"), (".jpg", "image/jpeg"), (".jpeg", "image/jpeg"), (".png", "image/png"),
        (".svg", "image/svg+xml"), (".txt", "text/plain"), (".htm", "text/html"), (".html", "text/html"),
        (".pdf", "application/pdf"), (".xml", "application/xml"),
    ]
}
