import CCurl
import GatewireBase

/// libcurl's receive buffer for a transfer with a writer (`CURLOPT_BUFFERSIZE`), in bytes:
/// 100 KiB, the `curl` tool's (its `BUFFER_SIZE`), against libcurl's default 16 KiB. Fewer,
/// larger chunks: a 1 GiB body is about 10,500 writes instead of 65,536.
let streamedBufferSize = 100 << 10

/// A transfer's streamed body: what its ``ResponseBodyWriter`` took. Loop thread only.
struct StreamState {
    /// Whether the response being received streams to the writer; nil until its first body
    /// byte (the writer is asked then, when status and header fields are known).
    var streaming: Bool?
    /// Bytes the writer took (decoded).
    var bytes = 0
    /// Why the transfer was aborted by the writer or its cap, or nil.
    var failure: TransportError?
    /// The body's content decoder when the transfer decodes it itself (``Transfer/decodesBody``)
    /// and the response has a coding.
    var decoder: ContentDecoder?
    /// How many bytes libcurl hands again after a pause that the decoder had already consumed.
    var consumedBeforePause = 0
}

/// Pausing a decoded body: libcurl 7.88 decodes a whole network read before its write
/// callback can pause, then keeps all that the read decodes to in its pause buffer, and past
/// 64 MiB (`DYN_PAUSE_BUFFER`) fails the transfer with `CURLE_OUT_OF_MEMORY`: one 100 KiB
/// read of a gzip body that compresses 1:1000 decodes to 100 MB. So a transfer whose writer
/// may pause turns libcurl's decoding off and decodes the codings itself
/// (``ContentDecoder``), piece by piece: when the writer refuses a piece, the transfer
/// answers `CURL_WRITEFUNC_PAUSE` for the compressed bytes not yet decoded, which libcurl
/// keeps (one read at most) and hands again on resuming. Memory then stays at one read plus
/// one decoded piece per coding, whatever the compression ratio.
extension Transfer {
    /// Whether this transfer decodes content codings itself instead of libcurl: decoding is
    /// on and the writer may pause. It then offers only what ``ContentDecoder`` decodes.
    var decodesBody: Bool { options.acceptEncoding && writer?.mayPause == true }

    /// Whether the body of the response being received goes to ``writer`` (asked at its
    /// first byte; a failure aborts the transfer through the next ``stream(_:_:)``).
    func streams() -> Bool {
        if let streaming = stream.streaming { return streaming }
        guard let writer, let easy else { return false }
        var status = 0
        _ = gw_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        do throws(TransportError) {
            let field = { (name: String) in Self.field(name, of: easy) }
            stream.streaming = try writer.begin(status: status, field: field)
            if stream.streaming == true, decodesBody {
                stream.decoder = try ContentDecoder.make(contentEncoding: field("Content-Encoding"))
            }
        } catch {
            stream.failure = error
            stream.streaming = true  // the write below refuses, ending the transfer
        }
        return stream.streaming!
    }

    /// Hands `length` bytes at `data` to the writer, through the decoder when there is one:
    /// libcurl's answer (`length` taken, 0 to abort with `CURLE_WRITE_ERROR`, or
    /// `CURL_WRITEFUNC_PAUSE`: libcurl keeps these bytes and hands them again on resuming).
    func stream(_ data: UnsafeMutablePointer<CChar>?, _ length: Int) -> Int {
        guard stream.failure == nil, writer != nil else { return 0 }
        do throws(TransportError) {
            guard let decoder = stream.decoder else {
                return try deliver(UnsafeRawBufferPointer(start: data, count: length)) ? length : Int(CURL_WRITEFUNC_PAUSE)
            }
            // After a pause libcurl hands the same bytes again, from where the paused call began.
            let skipped = min(stream.consumedBeforePause, length)
            stream.consumedBeforePause -= skipped
            let input = UnsafeRawBufferPointer(start: data.map { UnsafeRawPointer($0) + skipped }, count: length - skipped)
            let (consumed, paused) = try decoder.decode(input) { (piece) throws(TransportError) in try deliver(piece) }
            guard paused else { return length }
            stream.consumedBeforePause += skipped + consumed
            return Int(CURL_WRITEFUNC_PAUSE)
        } catch {
            stream.failure = error
            return 0
        }
    }

    /// Gives `bytes` (decoded) to the writer within its cap: true when taken, false when it
    /// asks for a pause.
    /// - Throws: kind `responseTooLarge` past the cap; the writer's error.
    private func deliver(_ bytes: UnsafeRawBufferPointer) throws(TransportError) -> Bool {
        guard let writer, !bytes.isEmpty else { return true }
        if let cap = writer.maxBytes, bytes.count > cap - stream.bytes {
            throw TransportError(
                kind: .responseTooLarge, curlCode: Int32(CURLE_WRITE_ERROR.rawValue),
                message: "the streamed body passed its cap (\(cap) bytes); the transfer was aborted there")
        }
        switch try writer.write(bytes) {
        case .taken:
            stream.bytes += bytes.count
            return true
        case .pause:
            return false
        }
    }

    /// Lets a transfer paused by its writer (``BodyWrite/pause``) take bytes again: the
    /// decoded bytes the transfer holds go to the writer first (it may pause again), then
    /// libcurl hands the bytes it kept (`curl_easy_pause`). Loop thread only, outside
    /// libcurl's callbacks; nothing once the transfer has ended.
    ///
    /// A failure on the way (the writer's, its cap's, the decoder's) is kept in
    /// ``StreamState/failure``: libcurl's kept bytes then reach ``stream(_:_:)``, which
    /// refuses them, and the loop's next `curl_multi_perform` (it runs every transfer) ends
    /// the transfer with it.
    package func resumeBody() {
        guard let easy else { return }
        if let decoder = stream.decoder, stream.failure == nil {
            do throws(TransportError) {
                let empty = UnsafeRawBufferPointer(start: nil, count: 0)
                if try decoder.decode(empty, into: { (piece) throws(TransportError) in try deliver(piece) }).paused { return }
            } catch {
                stream.failure = error
            }
        }
        _ = curl_easy_pause(easy, 0)  // CURLPAUSE_CONT
    }

    /// libcurl completed the transfer: a `2xx` response that had no body byte reaches the
    /// writer now (``streams()``), and the writer checks that a body it took is whole
    /// (``ResponseBodyWriter/end()``). Returns false, with ``StreamState/failure`` set, when
    /// the transfer fails instead.
    func endStream() -> Bool {
        guard let writer else { return true }
        if streams(), stream.failure == nil {
            do throws(TransportError) {
                try writer.end()
            } catch {
                stream.failure = error
            }
        }
        return stream.failure == nil
    }

    /// The value of the response's header field `name`, or nil (`curl_easy_header`, libcurl
    /// 7.83): a field sent on several lines is one value, its lines joined by ", " (RFC 9110
    /// section 5.3), so `Content-Encoding: gzip` twice is two codings, as libcurl decodes it.
    private static func field(_ name: String, of easy: UnsafeMutableRawPointer) -> String? {
        var header: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(easy, name, 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK,
              let first = header?.pointee else { return nil }
        var value = String(cString: first.value)
        for index in 1..<max(first.amount, 1) {
            guard curl_easy_header(easy, name, index, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK,
                  let line = header?.pointee.value else { break }
            value += ", " + String(cString: line)
        }
        return value
    }
}
