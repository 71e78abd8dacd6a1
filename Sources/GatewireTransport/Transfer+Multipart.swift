import CCurl
import GatewireBase
import Glibc

/// The `multipart/form-data` body of a transfer, built with libcurl's MIME API.
///
/// Every transfer builds its own `curl_mime` from ``HTTPRequest/parts``: a retry and a
/// redirect that keeps the body (307, 308) are new transfers, so they send every part from
/// its first byte. Within one transfer libcurl rewinds the body itself when it must send it
/// again (a file part seeks back to 0); the one re-send it would do on its own, on a reused
/// connection that died, is refused (``willSendRequest()``). File parts are opened and read
/// by libcurl while it sends them (`curl_mime_filedata`), in its upload buffer's chunks: a
/// file of any size keeps memory flat.
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
                let code = curl_mime_filedata(handle, path)  // also sets the filename to the path's last component
                guard code == CURLE_OK else {
                    return TransportError(kind: .invalidArgument, curlCode: Int32(code.rawValue),
                                          message: MultipartPart.unreadable(name: part.name, path: path, errno: errno))
                }
            }
            if let filename = part.filename { setter.check(curl_mime_filename(handle, filename)) }
            if let contentType = part.contentType { setter.check(curl_mime_type(handle, contentType)) }
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

    /// A file part libcurl could not read while it sent it (`CURLE_READ_ERROR`: the file
    /// went away or failed between the check and the read) ends the attempt as
    /// `invalidArgument`, naming the parts that cannot be read now: a retry would fail the same way.
    func multipartReadFailure(_ code: CURLcode, detail: String?) -> TransportError? {
        guard code == CURLE_READ_ERROR, let parts = request.parts else { return nil }
        let problems = parts.compactMap(\.problem)
        let reason = problems.isEmpty ? detail ?? String(cString: curl_easy_strerror(code)) : problems.joined(separator: "; ")
        return TransportError(kind: .invalidArgument, curlCode: Int32(code.rawValue),
                              message: "a multipart file part could not be read while it was sent: \(reason)")
    }

    /// Copies `bytes` into `part` (`curl_mime_data`; no bytes, NULL: an empty part).
    private static func setData(_ part: OpaquePointer, _ bytes: UnsafeRawBufferPointer) -> CURLcode {
        curl_mime_data(part, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
    }
}
