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
    /// Bytes the writer took.
    var bytes = 0
    /// Why the transfer was aborted by the writer or its cap, or nil.
    var failure: TransportError?
}

extension Transfer {
    /// Whether the body of the response being received goes to ``writer`` (asked at its
    /// first byte; a failure aborts the transfer through the next ``stream(_:_:)``).
    func streams() -> Bool {
        if let streaming = stream.streaming { return streaming }
        guard let writer, let easy else { return false }
        var status = 0
        _ = gw_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        do throws(TransportError) {
            stream.streaming = try writer.begin(status: status) { Self.field($0, of: easy) }
        } catch {
            stream.failure = error
            stream.streaming = true  // the write below refuses, ending the transfer
        }
        return stream.streaming!
    }

    /// Hands `length` bytes at `data` to the writer: libcurl's answer (`length` taken, 0 to
    /// abort with `CURLE_WRITE_ERROR`, or `CURL_WRITEFUNC_PAUSE`).
    func stream(_ data: UnsafeMutablePointer<CChar>?, _ length: Int) -> Int {
        guard stream.failure == nil, let writer else { return 0 }
        if let cap = writer.maxBytes, length > cap - stream.bytes {
            stream.failure = TransportError(
                kind: .responseTooLarge, curlCode: Int32(CURLE_WRITE_ERROR.rawValue),
                message: "the streamed body passed its cap (\(cap) bytes); the transfer was aborted there")
            return 0
        }
        do throws(TransportError) {
            switch try writer.write(UnsafeRawBufferPointer(start: data, count: length)) {
            case .taken:
                stream.bytes += length
                return length
            case .pause:
                return Int(CURL_WRITEFUNC_PAUSE)
            }
        } catch {
            stream.failure = error
            return 0
        }
    }

    /// Lets a transfer paused by its writer (``BodyWrite/pause``) take bytes again: libcurl
    /// hands the refused bytes to the writer at once (`curl_easy_pause`). Loop thread only;
    /// nothing once the transfer has ended.
    package func resumeBody() {
        guard let easy else { return }
        _ = curl_easy_pause(easy, 0)  // CURLPAUSE_CONT
    }

    /// The value of the response's header field `name` (its last one), or nil
    /// (`curl_easy_header`, libcurl 7.83).
    private static func field(_ name: String, of easy: UnsafeMutableRawPointer) -> String? {
        var header: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(easy, name, 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK,
              let value = header?.pointee.value else { return nil }
        return String(cString: value)
    }
}
