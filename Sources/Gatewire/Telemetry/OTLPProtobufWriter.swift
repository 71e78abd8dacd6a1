/// OTLP/HTTP protobuf bytes (the protocol buffers wire format: varints, fixed-width
/// little-endian numbers, length-delimited strings, bytes and messages) written as they go
/// into one buffer that it owns and grows by doubling, for the few messages of the OTLP
/// export requests. A message's length is written before it: ``begin(_:)`` keeps one byte for
/// it and ``end(_:)`` writes it there, moving the message up by the length's extra bytes when
/// it is 128 or more (most attributes and events are shorter).
///
/// Noncopyable: it owns its buffer, freed when it goes away. One thread at a time.
struct OTLPProtobufWriter: ~Copyable {
    private var buffer: GrowingBuffer

    /// A writer whose buffer holds `capacity` bytes before it grows.
    init(capacity: Int) { buffer = GrowingBuffer(capacity: capacity) }

    /// The bytes written so far (a copy).
    var bytes: [UInt8] { buffer.bytes }

    // MARK: Fields

    /// Field `field` as a varint (`uint64`, `int64` two's complement, `bool`, `enum`).
    mutating func varint(_ field: Int, _ value: UInt64) {
        key(field, wireType: 0)
        varint(value)
    }

    /// Field `field` as 8 little-endian bytes (`fixed64`, `double`'s bits).
    mutating func fixed64(_ field: Int, _ value: UInt64) {
        key(field, wireType: 1)
        buffer.reserve(8)
        UnsafeMutableRawPointer(buffer.start + buffer.count).storeBytes(of: value.littleEndian, as: UInt64.self)
        buffer.count += 8
    }

    /// Field `field` as 4 little-endian bytes (`fixed32`).
    mutating func fixed32(_ field: Int, _ value: UInt32) {
        key(field, wireType: 5)
        buffer.reserve(4)
        UnsafeMutableRawPointer(buffer.start + buffer.count).storeBytes(of: value.littleEndian, as: UInt32.self)
        buffer.count += 4
    }

    /// Field `field` as a packed `repeated fixed64` or `repeated double` (`bits`): one
    /// length, then 8 little-endian bytes per value.
    mutating func packed(_ field: Int, _ values: some Collection<UInt64>) {
        key(field, wireType: 2)
        varint(UInt64(values.count * 8))
        buffer.reserve(values.count * 8)
        for value in values {
            UnsafeMutableRawPointer(buffer.start + buffer.count).storeBytes(of: value.littleEndian, as: UInt64.self)
            buffer.count += 8
        }
    }

    /// Field `field` as `string`: its UTF-8 bytes.
    mutating func string(_ field: Int, _ value: String) {
        key(field, wireType: 2)
        // Native strings are contiguous UTF-8: copied from their storage, else byte by byte.
        let copied = value.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            varint(UInt64(utf8.count))
            if let base = utf8.baseAddress { buffer.append(base, count: utf8.count) }
            return true
        }
        guard copied == nil else { return }
        let utf8 = Array(value.utf8)
        varint(UInt64(utf8.count))
        raw(utf8)
    }

    /// Field `field` as `bytes`: a trace id, its two words big-endian (as its hex digits read).
    mutating func id(_ field: Int, _ high: UInt64, _ low: UInt64) {
        key(field, wireType: 2)
        buffer.reserve(17)
        buffer.start[buffer.count] = 16
        UnsafeMutableRawPointer(buffer.start + buffer.count + 1).storeBytes(of: high.bigEndian, as: UInt64.self)
        UnsafeMutableRawPointer(buffer.start + buffer.count + 9).storeBytes(of: low.bigEndian, as: UInt64.self)
        buffer.count += 17
    }

    /// Field `field` as `bytes`: a span id, big-endian.
    mutating func id(_ field: Int, _ word: UInt64) {
        key(field, wireType: 2)
        buffer.reserve(9)
        buffer.start[buffer.count] = 8
        UnsafeMutableRawPointer(buffer.start + buffer.count + 1).storeBytes(of: word.bigEndian, as: UInt64.self)
        buffer.count += 9
    }

    /// `bytes` already encoded (fields written earlier by another writer), as they are.
    mutating func raw(_ bytes: [UInt8]) { buffer.append(bytes) }

    /// Starts field `field` as an embedded message; ``end(_:)`` with what this returns ends it.
    mutating func begin(_ field: Int) -> Int {
        key(field, wireType: 2)
        buffer.reserve(1)
        buffer.count += 1
        return buffer.count
    }

    /// Ends the message begun at `mark`: writes its length before it.
    mutating func end(_ mark: Int) {
        let length = buffer.count - mark
        if length < 0x80 {
            buffer.start[mark - 1] = UInt8(truncatingIfNeeded: length)
            return
        }
        var size = 1
        while UInt64(length) >> (7 * UInt64(size)) != 0 { size += 1 }
        buffer.reserve(size - 1)
        UnsafeMutableRawPointer(buffer.start + mark + size - 1).copyMemory(from: buffer.start + mark, byteCount: length)  // a memmove
        buffer.count += size - 1
        var rest = UInt64(length), index = mark - 1
        while rest >= 0x80 {
            buffer.start[index] = UInt8(truncatingIfNeeded: rest) | 0x80
            rest >>= 7
            index += 1
        }
        buffer.start[index] = UInt8(truncatingIfNeeded: rest)
    }

    // MARK: The buffer

    private mutating func key(_ field: Int, wireType: Int) {
        varint(UInt64(field << 3 | wireType))
    }

    private mutating func varint(_ value: UInt64) {
        buffer.reserve(10)
        var rest = value
        while rest >= 0x80 {
            buffer.start[buffer.count] = UInt8(truncatingIfNeeded: rest) | 0x80
            rest >>= 7
            buffer.count += 1
        }
        buffer.start[buffer.count] = UInt8(truncatingIfNeeded: rest)
        buffer.count += 1
    }
}
