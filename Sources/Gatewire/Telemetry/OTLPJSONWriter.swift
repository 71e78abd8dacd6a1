/// OTLP/HTTP JSON text written as it goes, without a Jansson tree (a span's tree is a few
/// hundred allocations), into one buffer that it owns and grows by doubling: each piece is a
/// bounds check and a copy, numbers and ids are written as digits in place, with no string
/// made for them. Strings are escaped by the JSON layer's rule (``JSONValue/appendLiteral(_:to:)``:
/// a string without `"`, `\` or a control character is copied between quotes, byte for byte
/// what Jansson writes; any other goes through Jansson), and so are reals; keys and
/// punctuation are the caller's ASCII constants.
///
/// Noncopyable: it owns its buffer, freed when it goes away. One thread at a time.
struct OTLPJSONWriter: ~Copyable {
    private var buffer: GrowingBuffer
    /// The whole seconds of the last time written (``time(_:)``) and where their digits are
    /// in the buffer: the times of a batch mostly share them, and copying ten digits is
    /// cheaper than working them out again.
    private var lastSeconds: UInt64 = 0
    private var lastSecondsText = (offset: 0, length: 0)

    /// A writer whose buffer holds `capacity` bytes before it grows.
    init(capacity: Int) { buffer = GrowingBuffer(capacity: capacity) }

    /// The text written so far (a copy).
    var bytes: [UInt8] { buffer.bytes }

    /// Appends `text` as is: punctuation and keys (ASCII, nothing to escape).
    mutating func raw(_ text: StaticString) {
        buffer.append(text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// Appends `"key":` for a constant `key`.
    mutating func key(_ key: StaticString) {
        byte(0x22)
        raw(key)
        raw("\":")
    }

    /// Appends `value` as a JSON string.
    mutating func string(_ value: String) {
        let length = value.utf8.count
        buffer.reserve(length + 2)
        let destination = buffer.start + buffer.count
        // Copied as is when plain (native strings are contiguous UTF-8: no copy of the string).
        let copied = value.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard Self.isPlain(utf8) else { return false }
            destination[0] = 0x22
            if length > 0 { (destination + 1).initialize(from: utf8.baseAddress!, count: length) }
            destination[length + 1] = 0x22
            return true
        }
        if copied == true { return buffer.count += length + 2 }
        var escaped: [UInt8] = []
        JSONValue.appendLiteral(value, to: &escaped)
        buffer.append(escaped)
    }

    /// Whether `bytes` holds no `"`, `\` or control character (U+0000...U+001F): the JSON
    /// layer copies such a string as is. Eight bytes at a time: a byte's high bit in
    /// `(word - 0x01...01) & ~word & 0x80...80` is set when that byte of `word` is 0, and any
    /// such bit (a false one only ever above a true one) means "not plain".
    private static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let raw = UnsafeRawPointer(bytes.baseAddress), count = bytes.count
        var index = 0
        if let raw {
            while index + 8 <= count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
                let zero = (quote &- ones) & ~quote | (backslash &- ones) & ~backslash | (word &- ones &* 0x20) & ~word
                if zero & highs != 0 { return false }
                index += 8
            }
        }
        while index < count {
            let byte = bytes[index]
            if byte == 0x22 || byte == 0x5C || byte < 0x20 { return false }
            index += 1
        }
        return true
    }

    /// Appends `value` as a JSON integer.
    mutating func integer(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        digits(value.magnitude)
    }

    /// Appends `value` as a decimal string: the OTLP JSON form of 64-bit integers.
    mutating func quoted(_ value: UInt64) {
        byte(0x22)
        digits(value)
        byte(0x22)
    }

    /// Appends a time in `nanoseconds` since the Unix epoch as a decimal string (the OTLP JSON
    /// form of `fixed64`): its whole seconds, copied from the last time's when the same, then
    /// its nine digits of nanoseconds.
    mutating func time(_ nanoseconds: UInt64) {
        let seconds = nanoseconds / 1_000_000_000
        guard seconds > 0 else { return quoted(nanoseconds) }
        byte(0x22)
        if seconds == lastSeconds {
            let length = lastSecondsText.length
            buffer.reserve(length)
            (buffer.start + buffer.count).initialize(from: buffer.start + lastSecondsText.offset, count: length)
            buffer.count += length
        } else {
            let offset = buffer.count
            digits(seconds)
            lastSeconds = seconds
            lastSecondsText = (offset, buffer.count - offset)
        }
        digits(nanoseconds % 1_000_000_000, count: 9)
        byte(0x22)
    }

    /// Appends `value` as a decimal string: the OTLP JSON form of 64-bit integers.
    mutating func quoted(_ value: Int64) {
        byte(0x22)
        integer(value)
        byte(0x22)
    }

    /// Appends `value` as a JSON real.
    mutating func number(_ value: Double) {
        var literal: [UInt8] = []
        JSONValue.appendLiteral(value, to: &literal)
        buffer.append(literal)
    }

    /// Appends `"` + the 16 lower-case hex digits of each word in turn + `"`: a trace id
    /// (two words, big-endian halves) or a span id (one), as OTLP JSON writes ids.
    mutating func hex(_ high: UInt64, _ low: UInt64? = nil) {
        buffer.reserve(34)
        buffer.start[buffer.count] = 0x22
        buffer.count += 1
        hexWord(high)
        if let low { hexWord(low) }
        buffer.start[buffer.count] = 0x22
        buffer.count += 1
    }

    /// Appends `[{"key", "value": {"stringValue" | "intValue" | "doubleValue" | "boolValue"}}]`:
    /// the text of `shared` (copied as it is), then `list`.
    mutating func attributes(_ list: [SpanAttribute], after shared: SharedAttributes? = nil) {
        raw("[")
        if let shared, !shared.list.isEmpty {
            buffer.append(shared.json)
            if !list.isEmpty { raw(",") }
        }
        elements(list)
        raw("]")
    }

    /// Appends the attributes of `list` separated by commas, without brackets.
    mutating func elements(_ list: [SpanAttribute]) {
        for index in list.indices {
            if index > 0 { raw(",") }
            attribute(list[index])
        }
    }

    /// Appends `{"key", "value": {...}}` for `attribute`.
    private mutating func attribute(_ attribute: SpanAttribute) {
        raw("{\"key\":")
        string(attribute.key)
        raw(",\"value\":{")
        switch attribute.value {
        case .string(let text):
            key("stringValue")
            string(text)
        case .int(let number):
            key("intValue")
            quoted(number)
        case .double(let number):
            key("doubleValue")
            self.number(number)
        case .bool(let flag):
            key("boolValue")
            raw(flag ? "true" : "false")
        }
        raw("}}")
    }

    // MARK: The buffer

    /// `value` in decimal.
    private mutating func digits(_ value: UInt64) {
        var length = 1
        var limit: UInt64 = 10
        while length < 20, value >= limit {
            length += 1
            limit = limit &* 10
        }
        digits(value, count: length)
    }

    /// The last `length` decimal digits of `value`, zeros in front when it has fewer,
    /// written in place from the last, two at a time.
    private mutating func digits(_ value: UInt64, count length: Int) {
        buffer.reserve(length)
        let pairs = Self.pairs.utf8Start
        var rest = value, index = buffer.count + length
        while index - buffer.count >= 2 {
            let pair = Int(rest % 100) &* 2
            rest /= 100
            index -= 2
            buffer.start[index] = pairs[pair]
            buffer.start[index + 1] = pairs[pair + 1]
        }
        if index > buffer.count { buffer.start[index - 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10) }
        buffer.count += length
    }

    /// "00", "01", ... "99" back to back: the digits of each two-digit pair.
    private static let pairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// 16 lower-case hex digits of `word`, in room already reserved: a byte at a time.
    private mutating func hexWord(_ word: UInt64) {
        let table = Self.hexPairs.utf8Start
        for index in 0..<8 {
            let byte = Int(truncatingIfNeeded: word >> (56 - 8 * UInt64(index))) & 0xff
            buffer.start[buffer.count + 2 * index] = table[2 * byte]
            buffer.start[buffer.count + 2 * index + 1] = table[2 * byte + 1]
        }
        buffer.count += 16
    }

    /// "00", "01", ... "ff" back to back: the two lower-case hex digits of each byte.
    private static let hexPairs: StaticString = """
        000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\
        202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f\
        404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f\
        606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f\
        808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f\
        a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf\
        c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf\
        e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
        """

    private mutating func byte(_ value: UInt8) {
        buffer.reserve(1)
        buffer.start[buffer.count] = value
        buffer.count += 1
    }
}
