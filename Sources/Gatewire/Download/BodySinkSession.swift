/// One call's ``BodySink`` over its attempts: the writer each transfer gets, the header
/// fields an attempt adds to resume a file, whether a retry may still be sent, and the
/// file's fate when the call completes. Loop thread only (owned by ``Call``).
///
/// Every `2xx` body reaches the sink through a transfer's writer: whatever answers a call
/// without a transfer (a response cache) must hand its body to ``writer`` too, or the file
/// and the chunk consumer would miss it.
final class BodySinkSession {
    let writer: ResponseBodyWriter
    private let file: FileBodyWriter?
    private let chunks: ChunkBodyWriter?

    /// The session of `sink`; a file's temporary file is created here, before the call
    /// sends anything.
    /// - Throws: ``GatewireError`` of kind `invalidArgument` naming the path, for the call
    ///   `method` `path`, when the file cannot be created.
    init(_ sink: BodySink, method: HTTPMethod, path: String) throws(GatewireError) {
        switch sink {
        case let .file(path, resume, maxBytes):
            let file = FileBodyWriter(destination: path, resumes: resume, maxBytes: maxBytes)
            (writer, self.file, chunks) = (file, file, nil)
            do throws(TransportError) {
                try file.open()
            } catch {
                throw GatewireError(kind: error.kind, message: error.message, method: method, path: path)
            }
        case let .chunks(maxBytes, consumer):
            let chunks = ChunkBodyWriter(maxBytes: maxBytes, consumer: consumer)
            (writer, file, self.chunks) = (chunks, nil, chunks)
        }
    }

    /// Before an attempt is sent (after the plugins' `prepare`): a file's `Range` and
    /// `If-Range` when it resumes a partial body (never over a `Range` the request has).
    func prepare(_ request: inout HTTPRequest) {
        guard let file else { return }
        for field in file.requestFields(callerRange: request.headers.contains("Range")) {
            request.headers.set(field.name, field.value)
        }
    }

    /// Why a retry must not be sent, or nil: chunks already reached the consumer.
    var refusesRetry: String? {
        guard let chunks, chunks.delivered > 0 else { return nil }
        return "not retried: \(chunks.delivered) body bytes already reached the chunk consumer"
    }

    /// At the call's end, after the plugins' `process`: a `2xx` success puts the file in
    /// place (a failure to do so fails the call, kind `invalidArgument`); a failure, or a
    /// success of another status (a descriptor accepted it; its body is in the response),
    /// removes it.
    func complete(_ result: inout Result<Response, GatewireError>) {
        guard let file else { return }
        guard case .success(let response) = result, (200...299).contains(response.status) else { return file.discard() }
        do throws(TransportError) {
            try file.commit()
        } catch {
            result = .failure(GatewireError(kind: error.kind, status: response.status, message: error.message,
                                            method: response.method, path: response.path, response: response.http,
                                            attempts: response.attempts))
        }
    }
}
