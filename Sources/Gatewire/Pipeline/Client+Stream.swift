extension Client {
    /// Starts `request` with its `2xx` body as a ``BodyStream`` of chunks, and returns at once.
    ///
    /// ```swift
    /// let body = client.stream(Request.get("/stream-bytes/1000000"))
    /// for try await chunk in body { hash.update(chunk) }
    /// let response = try await body.response()
    /// ```
    /// The request's own ``CallOptions/bodySink`` is replaced; its `maxBytes` cap is kept.
    /// - Parameters:
    ///   - request: the call; its `2xx` body streams (see ``BodySink``).
    ///   - bufferBytes: how many bytes may wait for the consumer before the transfer pauses
    ///     (default 1 MiB; at least 64 KiB).
    /// - Returns: the stream; the call has started. Its failure is thrown by the iteration.
    public func stream(_ request: Request, bufferBytes: Int = 1 << 20) -> BodyStream {
        let queue = ChunkQueue(bufferBytes: bufferBytes)
        var request = request
        var cap: Int?
        if case .chunks(let maxBytes, _) = request.options.bodySink { cap = maxBytes }
        request.options.bodySink = .chunks(maxBytes: cap) { queue.offer($0) }
        let handle = start(request) { queue.finish($0) }
        return BodyStream(queue: queue, handle: handle, client: self)
    }
}
