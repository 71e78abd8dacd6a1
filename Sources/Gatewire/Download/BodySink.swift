/// Where a call's success body goes instead of ``HTTPResponse/body``, so that a body of any
/// size never sits in memory (``CallOptions/bodySink``).
///
/// Which bodies stream: those of `2xx` responses (Alamofire's `validate()` range). Any
/// other response (a `5xx` that will be retried, a `4xx` the error descriptors map, a
/// redirect) is kept in memory as without a sink, within ``CallOptions/maxResponseBytes``,
/// and mapped as usual; so a retried attempt's error body never reaches the sink.
///
/// Mapping: a streamed body is not parsed or mapped. The call's ``Response`` has an empty
/// ``HTTPResponse/body``, `mapped` nil and its status and header fields; the attempt's
/// ``Attempt/bytesReceived`` counts the streamed bytes.
///
/// Limits: ``CallOptions/maxResponseBytes`` applies to the bodies kept in memory only; a
/// streamed body has its own optional cap (`maxBytes`; nil, the default, is none: a 10 GiB
/// download is legitimate). Past it the call fails with kind `responseTooLarge`. The
/// attempt timeout (default 30 s) covers the whole body: set a longer one for large bodies.
public enum BodySink: Sendable {
    /// The body goes to the file at `path`: written to a temporary file in the same folder
    /// (`.NAME.PID-RANDOM.part`) and renamed onto `path` when the call succeeds, so `path`
    /// appears (or is replaced) only then, whole; removed when the call fails. Not `fsync`'d
    /// (as curl and Alamofire): sync the file yourself if it must survive a power loss. A
    /// folder that does not take a new file fails the call before anything is sent, with
    /// kind `invalidArgument` naming the path, as does a failed write later. A replaced file
    /// keeps its permission bits (and its owner and group where the process may set them);
    /// a new one gets `0666` less the umask, as from `curl -o`.
    ///
    /// A retry after an attempt that wrote part of a `200` body resumes it when `resume` is
    /// true (the default) and that response had a strong validator (a strong `ETag`, else a
    /// `Last-Modified` at least a second before its `Date`, RFC 9110 section 8.8.2.2) and no
    /// content coding: it sends `Range: bytes=N-` and `If-Range` (RFC 9110 section 13.1.5),
    /// starts the file again on a `200`, and appends a `206` only when it continues the
    /// file exactly: the same validator, `Content-Range: bytes N-LAST/LENGTH` up to the
    /// length the `200` declared (RFC 9110 section 14.4), and exactly those bytes. Any other
    /// `206` (another representation, a range that lies, a body longer or shorter than its
    /// range, or one that answers a request without `Range`) drops the partial file and
    /// fails the attempt with kind `protocolViolation`; the retry policy may send it again,
    /// from byte 0. Without a validator a retry starts the file again from byte 0. A
    /// request with its own `Range` is never resumed: its `206` is the body.
    case file(_ path: String, resume: Bool = true, maxBytes: Int? = nil)

    /// Each chunk of the body goes to `consumer`, in order, on the client's event-loop
    /// thread, as it is decoded (at most 100 KiB; the bytes are borrowed for the call: copy
    /// what you keep). The consumer's ``ChunkVerdict`` may pause the transfer (libcurl's
    /// `CURL_WRITEFUNC_PAUSE`: the loop never blocks, other calls run on) until
    /// ``CallHandle/resumeBody()``, which hands the same chunk again, or stop the call
    /// (kind `cancelled`).
    ///
    /// Decoding: the transport decodes `gzip` and `deflate` itself and offers only those
    /// (`Accept-Encoding: deflate, gzip`), so that a pause holds at most one network read
    /// and one decoded chunk whatever the compression ratio (libcurl 7.88 would hold a whole
    /// read's decoded output, and fail past 64 MiB). A coding it cannot decode fails the
    /// call with kind `protocolViolation`.
    ///
    /// Chunks are never taken back: once one reached the consumer, the call is not retried
    /// (a retry would send the body again from its start); the attempt's failure ends it.
    case chunks(maxBytes: Int? = nil, _ consumer: @Sendable (UnsafeRawBufferPointer) -> ChunkVerdict)
}

/// What a chunk consumer (``BodySink/chunks(maxBytes:_:)``) did with a chunk.
public enum ChunkVerdict: Sendable {
    /// Taken; go on.
    case proceed
    /// Not taken: pause the transfer until ``CallHandle/resumeBody()``, which hands this
    /// chunk again.
    case pause
    /// Not taken: stop the call (kind `cancelled`).
    case stop
}
