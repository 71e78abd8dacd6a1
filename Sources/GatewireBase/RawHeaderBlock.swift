import Glibc

/// A response's header fields kept as bytes until someone asks: names and values in one
/// buffer (`name NUL value NUL ...`), split into Swift strings only on first use of
/// ``fields`` and then cached. A lookup by name (``value(named:)``) scans the bytes and
/// builds one string. Most calls never read their headers, or read one (`Content-Type`).
///
/// Immutable once built; ``fields`` may be first read from any number of threads at once
/// (``OnceReference``).
package final class RawHeaderBlock: Sendable {
    /// `name NUL value NUL` for every field, in order.
    private let bytes: [UInt8]
    /// The number of fields.
    package let count: Int
    /// The fields as strings, split on first use.
    private let parsed = OnceReference<FieldList>()

    private final class FieldList: Sendable {
        let fields: [HTTPHeaders.Field]
        init(_ fields: [HTTPHeaders.Field]) { self.fields = fields }
    }

    /// `bytes`: `count` pairs of NUL-terminated name and value, as ``Builder`` writes them.
    private init(bytes: [UInt8], count: Int) {
        self.bytes = bytes
        self.count = count
    }

    /// The fields in order, split into strings on the first call (any thread).
    package var fields: [HTTPHeaders.Field] {
        parsed.get {
            var fields: [HTTPHeaders.Field] = []
            fields.reserveCapacity(count)
            forEachField { name, value in
                fields.append(HTTPHeaders.Field(name: String(decoding: name, as: UTF8.self),
                                                value: String(decoding: value, as: UTF8.self)))
            }
            return FieldList(fields)
        }.fields
    }

    /// The value of the first field named `name`, compared case-insensitively as
    /// ``HTTPHeaders/subscript(_:)`` does (`lowercased()`), or nil. Builds no other string.
    package func value(named name: String) -> String? {
        var name = name
        return name.withUTF8 { wanted -> String? in
            let wantedIsASCII = wanted.allSatisfy { $0 < 0x80 }
            return bytes.withUnsafeBufferPointer { all -> String? in
                var field = all.baseAddress!
                for _ in 0..<count {
                    let nameLength = Self.length(field)
                    let value = field + nameLength + 1
                    let valueLength = Self.length(value)
                    let fieldName = UnsafeBufferPointer(start: field, count: nameLength)
                    if Self.sameName(fieldName, wanted, wantedIsASCII: wantedIsASCII) {
                        return String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
                    }
                    field = value + valueLength + 1
                }
                return nil
            }
        }
    }

    /// Whether a field name equals `wanted` under `lowercased()` (RFC 9110 section 5.1:
    /// names are case-insensitive): byte by byte for ASCII (header names nearly always are),
    /// through strings otherwise. Both header stores look names up with it.
    static func sameName(_ name: UnsafeBufferPointer<UInt8>, _ wanted: UnsafeBufferPointer<UInt8>,
                                 wantedIsASCII: Bool) -> Bool {
        if wantedIsASCII, name.allSatisfy({ $0 < 0x80 }) {
            guard name.count == wanted.count else { return false }
            for index in 0..<name.count where lowercase(name[index]) != lowercase(wanted[index]) { return false }
            return true
        }
        return String(decoding: name, as: UTF8.self).lowercased() == String(decoding: wanted, as: UTF8.self).lowercased()
    }

    private static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// The bytes before the NUL at or after `start`.
    private static func length(_ start: UnsafePointer<UInt8>) -> Int {
        strlen(UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self))
    }

    /// Calls `body` with each field's name and value bytes, in order.
    private func forEachField(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Void) {
        bytes.withUnsafeBufferPointer { all in
            var field = all.baseAddress!
            for _ in 0..<count {
                let nameLength = Self.length(field)
                let value = field + nameLength + 1
                let valueLength = Self.length(value)
                body(UnsafeBufferPointer(start: field, count: nameLength), UnsafeBufferPointer(start: value, count: valueLength))
                field = value + valueLength + 1
            }
        }
    }

    /// Collects the header lines of one response, as libcurl's header callback delivers
    /// them, and splits each into name and value as libcurl's own headers API does
    /// (`curl_easy_header`, lib/headers.c): the name is everything before the first colon,
    /// the value follows with leading blanks and trailing white space removed, a line ends at
    /// its first CR or LF, and a line that starts with a blank continues the previous value
    /// (obsolete line folding: its trailing space removed, at most one leading blank kept).
    /// A line without a colon is not a field.
    ///
    /// The bytes go to a buffer of its own (plain `memcpy`s: this runs for every header line
    /// of every response); ``deallocate()`` frees it.
    package struct Builder {
        private var buffer: UnsafeMutablePointer<UInt8>?
        private var capacity = 0
        private var length = 0
        private var count = 0

        /// No fields yet.
        package init() {}

        /// Frees the buffer; the builder is empty afterwards.
        package mutating func deallocate() {
            buffer?.deallocate()
            buffer = nil
            capacity = 0
            removeAll()
        }

        /// Drops every field (a new response's status line: only the last response counts).
        package mutating func removeAll() {
            length = 0
            count = 0
        }

        /// Adds one header line (with its CR LF), not the status line nor the blank line
        /// that ends the header section.
        package mutating func append(line: UnsafeBufferPointer<UInt8>) {
            guard let base = line.baseAddress else { return }
            // The line ends at its first CR or LF; unterminated, or with a NUL before its end,
            // libcurl's C-string split finds no line. (memchr: these are hot, per line.)
            var end = min(Self.offset(of: 13, in: base, line.count) ?? line.count,
                          Self.offset(of: 10, in: base, line.count) ?? line.count)
            guard end < line.count, Self.offset(of: 0, in: base, end) == nil else { return }
            var start = 0
            if start < end, Self.isBlank(base[start]) {
                if count > 0 {
                    // A folded line: more of the previous value.
                    while end > start, Self.isSpace(base[end - 1]) { end -= 1 }
                    while end - start > 1, Self.isBlank(base[start]), Self.isBlank(base[start + 1]) { start += 1 }
                    length -= 1  // the previous value's NUL
                    add(base + start, end - start)
                    return
                }
                while start < end, Self.isBlank(base[start]) { start += 1 }  // nothing to continue
            }
            guard let found = Self.offset(of: UInt8(ascii: ":"), in: base + start, end - start) else { return }
            let colon = start + found
            var valueStart = colon + 1
            while valueStart < end, Self.isBlank(base[valueStart]) { valueStart += 1 }
            while end > valueStart, Self.isSpace(base[end - 1]) { end -= 1 }
            add(base + start, colon - start)
            add(base + valueStart, end - valueStart)
            count += 1
        }

        /// `length` bytes from `start`, then a NUL.
        private mutating func add(_ start: UnsafePointer<UInt8>, _ size: Int) {
            if length + size + 1 > capacity {
                let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: max(256, 2 * (length + size + 1)))
                if let buffer {
                    grown.update(from: buffer, count: length)
                    buffer.deallocate()
                }
                buffer = grown
                capacity = max(256, 2 * (length + size + 1))
            }
            let target = buffer! + length
            target.update(from: start, count: size)
            target[size] = 0
            length += size + 1
        }

        /// The fields so far as a block (a copy); nil when there are none.
        package func build() -> RawHeaderBlock? {
            guard count > 0, let buffer else { return nil }
            return RawHeaderBlock(bytes: Array(UnsafeBufferPointer(start: buffer, count: length)), count: count)
        }

        /// The offset of the first `byte` in the `count` bytes at `start`, or nil.
        private static func offset(of byte: UInt8, in start: UnsafePointer<UInt8>, _ count: Int) -> Int? {
            guard count > 0, let found = memchr(start, Int32(byte), count) else { return nil }
            return UnsafeRawPointer(found) - UnsafeRawPointer(start)
        }

        /// Space or horizontal tab (libcurl's `ISBLANK`).
        private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

        /// Space, tab, LF, VT, FF or CR (libcurl's `ISSPACE`).
        private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
    }
}
