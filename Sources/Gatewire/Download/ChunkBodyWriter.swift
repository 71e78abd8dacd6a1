/// ``BodySink/chunks(maxBytes:_:)`` as the transfer's writer: `2xx` bodies go to the
/// consumer. Loop thread only.
final class ChunkBodyWriter: ResponseBodyWriter {
    let maxBytes: Int?
    private let consumer: @Sendable (UnsafeRawBufferPointer) -> ChunkVerdict
    /// Bytes the consumer took, over every attempt.
    private(set) var delivered = 0

    init(maxBytes: Int?, consumer: @escaping @Sendable (UnsafeRawBufferPointer) -> ChunkVerdict) {
        self.maxBytes = maxBytes
        self.consumer = consumer
    }

    /// A consumer can pause (``ChunkVerdict/pause``).
    var mayPause: Bool { true }

    func begin(status: Int, field: (String) -> String?) -> Bool { (200...299).contains(status) }

    func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) -> BodyWrite {
        switch consumer(bytes) {
        case .proceed:
            delivered += bytes.count
            return .taken
        case .pause:
            return .pause
        case .stop:
            throw TransportError(kind: .cancelled, curlCode: 0, message: "the chunk consumer stopped the body")
        }
    }

    /// Chunks are whatever arrived: nothing to check at the end.
    func end() {}
}
