/// Where a ``Transfer`` writes the body of a response it streams instead of keeping it in
/// ``HTTPResponse/body``: a file (``FileBodyWriter``) or a consumer of chunks. Loop thread only.
///
/// The transfer asks ``begin(status:field:)`` once per response, at its first body byte
/// (or, for a response without a body, when libcurl completes it); a response the writer
/// takes streams every decoded byte to ``write(_:)``, with no
/// ``TransferOptions/maxResponseBytes`` limit (``maxBytes`` is the writer's own cap), and
/// ends with ``end()`` when libcurl completed the transfer; any other response is kept in
/// memory as without a writer (within `maxResponseBytes`), for the call to map.
package protocol ResponseBodyWriter: AnyObject {
    /// The largest streamed body accepted, in bytes, or nil for no limit. Past it the
    /// transfer is aborted with kind `responseTooLarge`; a `Content-Length` above it is
    /// refused before the body (`CURLOPT_MAXFILESIZE_LARGE`).
    var maxBytes: Int? { get }

    /// Whether ``write(_:)`` may answer ``BodyWrite/pause``. Such a writer's transfer decodes
    /// the body's content codings itself (``ContentDecoder``), so that a pause holds at most
    /// one network read: libcurl 7.88 would hold the whole decoded output of the read instead,
    /// and fail the transfer past 64 MiB (`Transfer+BodyWriter.swift`).
    var mayPause: Bool { get }

    /// Whether the body of a response with `status` streams to this writer. `field(name)`:
    /// the value of the response's header field `name` (case-insensitive), or nil.
    /// - Throws: ``TransportError`` when the response cannot be taken (a `206` that does not
    ///   continue what was written): the transfer is aborted with it.
    func begin(status: Int, field: (String) -> String?) throws(TransportError) -> Bool

    /// Takes the next decoded body bytes (borrowed for the call), or asks the transfer to
    /// pause (only a writer that ``mayPause``): the transfer keeps these bytes and hands the
    /// same ones again once ``Transfer/resumeBody()`` runs.
    /// - Throws: ``TransportError``: the transfer is aborted with it.
    func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) -> BodyWrite

    /// libcurl completed the transfer of a body this writer took: the writer checks that it
    /// is whole.
    /// - Throws: ``TransportError``: the transfer fails with it instead.
    func end() throws(TransportError)
}

/// What ``ResponseBodyWriter/write(_:)`` did with the bytes.
package enum BodyWrite {
    /// Taken.
    case taken
    /// Not taken: pause the transfer until ``Transfer/resumeBody()``.
    case pause
}
