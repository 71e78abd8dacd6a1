/// Bytes appended to one buffer that it owns and grows by doubling: the storage of the OTLP
/// writers (``OTLPJSONWriter``, ``OTLPProtobufWriter``), which write into it in place after
/// ``reserve(_:)`` and add what they wrote to ``count``.
///
/// Noncopyable: it owns its buffer, freed when it goes away. One thread at a time.
struct GrowingBuffer: ~Copyable {
    /// The first byte; it moves when the buffer grows.
    private(set) var start: UnsafeMutablePointer<UInt8>
    /// The bytes written.
    var count = 0
    private var capacity: Int

    /// A buffer of `capacity` bytes (at least 64) before it grows.
    init(capacity: Int) {
        self.capacity = max(64, capacity)
        start = .allocate(capacity: self.capacity)
    }

    deinit { start.deallocate() }

    /// The bytes written so far (a copy).
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: start, count: count)) }

    /// Room for `more` bytes after those written (``start`` may move).
    mutating func reserve(_ more: Int) {
        guard count + more > capacity else { return }
        let larger = max(count + more, capacity * 2)
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        buffer.initialize(from: start, count: count)
        start.deallocate()
        start = buffer
        capacity = larger
    }

    /// Appends `bytes`.
    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { append(base, count: source.count) }
        }
    }

    /// Appends `length` bytes from `source`.
    mutating func append(_ source: UnsafePointer<UInt8>, count length: Int) {
        reserve(length)
        (start + count).initialize(from: source, count: length)
        count += length
    }
}
