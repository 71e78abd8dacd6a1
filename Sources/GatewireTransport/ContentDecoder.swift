import CZlib
import GatewireBase

/// Decodes the content codings of a streamed body whose writer may pause (RFC 9110 section
/// 8.4.1): `gzip` (and `x-gzip`), `deflate` (zlib-wrapped, or raw as some servers send it,
/// which libcurl accepts too) and `identity`; stacked codings (`Content-Encoding: gzip,
/// deflate`) are undone last one first, at most five (libcurl 7.88's limit). Loop thread only.
///
/// Why not libcurl's decoders: libcurl 7.88 decodes a whole network read at once, and when
/// the writer pauses it keeps everything the read decodes to (`Curl_client_write`'s pause
/// buffer), failing the transfer with `CURLE_OUT_OF_MEMORY` past 64 MiB: one 100 KiB read of
/// a highly compressible body (gzip reaches 1:1032) is enough. curl fixed it in 8.13 by pausing
/// before the decoders (curl/curl#16296). This decoder stops where the writer refuses a
/// piece: a pause holds at most one decoded piece (``pieceSize``) per coding, and the input
/// not yet decoded stays with libcurl (one read at most).
///
/// Output goes out in pieces of at most ``pieceSize`` bytes; the sink takes a piece whole
/// (true) or refuses it (false, a pause). A refused piece, and zlib's own pending output, go
/// out first on the next ``decode(_:into:)``, whose input must continue where the consumed
/// bytes ended.
final class ContentDecoder {
    /// The `Accept-Encoding` field a transfer with this decoder sends: the codings it decodes.
    static let field = "Accept-Encoding: deflate, gzip"
    /// The largest piece handed to the sink, in bytes: the transfer's receive buffer, so a
    /// decoded body comes in chunks as large as a plain one.
    static let pieceSize = streamedBufferSize

    /// The codings' decoders, the last coding applied first.
    private let layers: [Inflater]

    /// The decoder for a response's `Content-Encoding` field value, or nil when it names no
    /// coding but `identity`.
    /// - Throws: ``TransportError`` of kind `protocolViolation` for a coding it cannot decode
    ///   or more than five, as libcurl refuses them (`CURLE_BAD_CONTENT_ENCODING`).
    static func make(contentEncoding: String?) throws(TransportError) -> ContentDecoder? {
        guard let contentEncoding else { return nil }
        var layers: [Inflater] = []
        for token in contentEncoding.split(separator: ",") {
            let name = token.filter { $0 != " " && $0 != "\t" }.lowercased()
            switch name {
            case "", "identity": continue
            case "gzip", "x-gzip": layers.append(try Inflater.start(.gzip))
            case "deflate": layers.append(try Inflater.start(.deflate))
            default:
                throw TransportError(kind: .protocolViolation, curlCode: 0,
                                     message: "the response's Content-Encoding \"\(contentEncoding)\" has \"\(name)\", which a "
                                         + "streamed body that may pause cannot decode (it decodes deflate and gzip)")
            }
        }
        guard layers.count <= 5 else {
            throw TransportError(kind: .protocolViolation, curlCode: 0,
                                 message: "the response's Content-Encoding \"\(contentEncoding)\" has more than 5 codings")
        }
        return layers.isEmpty ? nil : ContentDecoder(layers: layers.reversed())
    }

    private init(layers: [Inflater]) { self.layers = layers }

    /// Decodes `input` (empty: only what earlier calls left, as after a pause) into `sink`.
    /// - Returns: how many bytes of `input` were consumed, and whether the sink refused a
    ///   piece (then the rest of `input`, from `consumed` on, must come again).
    /// - Throws: ``TransportError`` of kind `protocolViolation` for a body that is not what
    ///   its coding says; the sink's own error.
    func decode(_ input: UnsafeRawBufferPointer,
                into sink: (UnsafeRawBufferPointer) throws(TransportError) -> Bool) throws(TransportError)
        -> (consumed: Int, paused: Bool)
    {
        try pump(layer: 0, input, sink)
    }

    /// Layer `index` takes `input`; its output feeds the next layer, the last one's `sink`.
    private func pump(layer index: Int, _ input: UnsafeRawBufferPointer,
                      _ sink: (UnsafeRawBufferPointer) throws(TransportError) -> Bool) throws(TransportError)
        -> (consumed: Int, paused: Bool)
    {
        guard index < layers.count else {
            guard !input.isEmpty else { return (0, false) }
            return try sink(input) ? (input.count, false) : (0, true)
        }
        return try layers[index].inflate(input) { (piece) throws(TransportError) in
            try pump(layer: index + 1, piece, sink)
        }
    }
}

/// One coding's zlib stream, with the piece of output its downstream has not taken yet.
private final class Inflater {
    enum Coding {
        case gzip, deflate

        var name: String { self == .gzip ? "gzip" : "deflate" }
    }

    let coding: Coding
    /// zlib's state points back at the `z_stream` (zlib 1.2.9's `inflateStateCheck`): it
    /// must not move, so it is allocated once.
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private let output = UnsafeMutableRawBufferPointer.allocate(byteCount: ContentDecoder.pieceSize, alignment: 1)
    /// The part of `output` the downstream has not taken: `pending.lowerBound..<pending.upperBound`.
    private var pending = 0..<0
    /// Whether the stream reached its end (a gzip member's trailer was checked).
    private var ended = false
    /// Bytes this stream has consumed, and whether it decoded a byte yet (a `deflate` body
    /// without the zlib header is retried as raw deflate only before that, as by libcurl).
    private var consumed = 0
    private var raw = false
    /// Bytes after the end of a raw deflate stream that are let through (libcurl tolerates
    /// four: some servers append the zlib trailer to raw deflate).
    private var tolerated = 0

    /// Whether zlib's state was set up (`inflateEnd` is owed).
    private var started = false

    private init(_ coding: Coding) {
        self.coding = coding
        stream.initialize(to: z_stream())
    }

    /// A decoder of `coding`.
    /// - Throws: ``TransportError`` of kind `network` when zlib cannot allocate its state.
    static func start(_ coding: Coding) throws(TransportError) -> Inflater {
        let inflater = Inflater(coding)
        // 32 + 15: a gzip or zlib header, detected (libcurl's "transparent gzip" mode).
        guard gw_inflate_init2(inflater.stream, coding == .gzip ? MAX_WBITS + 32 : MAX_WBITS) == Z_OK else {
            throw TransportError(kind: .network, curlCode: 0, message: "zlib cannot start a \(coding.name) decoder (out of memory)")
        }
        inflater.started = true
        return inflater
    }

    deinit {
        if started { inflateEnd(stream) }
        stream.deallocate()
        output.deallocate()
    }

    /// Sends the pending piece downstream, then decodes `input` piece by piece, until the
    /// input is used up or the downstream pauses: returns `(input.count, false)`, or how
    /// much was consumed and `true`. `downstream` answers the same way.
    func inflate(_ input: UnsafeRawBufferPointer,
                 downstream: (UnsafeRawBufferPointer) throws(TransportError) -> (consumed: Int, paused: Bool))
        throws(TransportError) -> (consumed: Int, paused: Bool)
    {
        // What the downstream still holds comes first: it was decoded before anything here.
        if try downstream(UnsafeRawBufferPointer(start: nil, count: 0)).paused { return (0, true) }
        if !pending.isEmpty {
            let taken = try downstream(UnsafeRawBufferPointer(rebasing: output[pending]))
            pending = (pending.lowerBound + taken.consumed)..<pending.upperBound
            if taken.paused { return (0, true) }
        }
        var used = 0
        while true {
            if ended {
                guard used < input.count else { return (used, false) }
                try afterEnd(input, &used)
                continue
            }
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress.map { $0 + used }?
                .assumingMemoryBound(to: UInt8.self))
            stream.pointee.avail_in = UInt32(input.count - used)
            stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
            stream.pointee.avail_out = UInt32(output.count)
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            let read = input.count - used - Int(stream.pointee.avail_in)
            let produced = output.count - Int(stream.pointee.avail_out)
            used += read
            switch status {
            case Z_OK, Z_BUF_ERROR:
                break
            case Z_STREAM_END:
                ended = true
            case Z_DATA_ERROR where coding == .deflate && !raw && consumed == 0 && produced == 0:
                try restartAsRawDeflate()
                used = 0
                continue
            default:
                let reason = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                throw TransportError(kind: .protocolViolation, curlCode: 0,
                                     message: "the \(coding.name) body cannot be decoded: \(reason)")
            }
            consumed += read
            if produced > 0 {
                pending = 0..<produced
                let taken = try downstream(UnsafeRawBufferPointer(rebasing: output[pending]))
                pending = taken.consumed..<produced
                if taken.paused { return (used, true) }
            }
            // A full piece may leave more output in zlib; a piece short of full means zlib
            // took all the input it could and has nothing more to give until there is more.
            guard ended || produced == output.count else {
                guard used == input.count else {
                    throw TransportError(kind: .protocolViolation, curlCode: 0,
                                         message: "the \(coding.name) body cannot be decoded: zlib stopped short of its input")
                }
                return (used, false)
            }
        }
    }

    /// Input after the end of the stream: another gzip member (RFC 1952 section 2.2), up to
    /// four bytes after raw deflate; anything else is refused, as by libcurl.
    private func afterEnd(_ input: UnsafeRawBufferPointer, _ used: inout Int) throws(TransportError) {
        let left = input.count - used
        if raw, tolerated + left <= 4 {
            tolerated += left
            used = input.count
            return
        }
        guard coding == .gzip, inflateReset(stream) == Z_OK else {
            throw TransportError(kind: .protocolViolation, curlCode: 0,
                                 message: "\(left) bytes follow the end of the \(coding.name) body")
        }
        ended = false
    }

    /// A `deflate` body without the zlib header: decoded again from its first byte as raw
    /// deflate (RFC 1951), as libcurl does for servers that send it.
    private func restartAsRawDeflate() throws(TransportError) {
        inflateEnd(stream)
        started = false
        stream.initialize(to: z_stream())
        guard gw_inflate_init2(stream, -MAX_WBITS) == Z_OK else {
            throw TransportError(kind: .network, curlCode: 0, message: "zlib cannot start a raw deflate decoder (out of memory)")
        }
        started = true
        raw = true
    }
}
