/// The `Content-Range` field of a single-part `206 (Partial Content)` response (RFC 9110
/// section 14.4): which bytes of the selected representation its body holds.
///
/// Only the form a `206` carries is accepted, strictly: `range-unit SP first-pos "-"
/// last-pos "/" (complete-length / "*")`, the unit `bytes` (any case, section 14.1), every
/// number `1*DIGIT` (no sign, no space, no overflow), `first <= last`, and `last <
/// complete-length` when the length is known ("a response ... with an invalid range"
/// is one the recipient must not use, section 14.4). The unsatisfied form `bytes */LENGTH`
/// (a `416`'s) and anything else is nil.
package struct ContentRange: Equatable, Sendable {
    /// The first byte's offset in the representation (0-based).
    package let first: Int
    /// The last byte's offset, inclusive.
    package let last: Int
    /// The representation's whole length in bytes, nil for `*` (unknown to the server).
    package let completeLength: Int?

    /// The number of bytes the range covers: `last - first + 1`.
    package var count: Int { last - first + 1 }

    /// Parses `value`, a field value as libcurl hands it (without surrounding whitespace).
    package init?(_ value: String) {
        let bytes = Array(value.utf8)
        guard bytes.count > 6, Self.isBytesUnit(bytes[0..<5]), bytes[5] == UInt8(ascii: " ") else { return nil }
        let rest = bytes[6...]
        guard let dash = rest.firstIndex(of: UInt8(ascii: "-")),
              let slash = rest.firstIndex(of: UInt8(ascii: "/")), dash < slash,
              let first = Self.number(rest[rest.startIndex..<dash]),
              let last = Self.number(rest[(dash + 1)..<slash]), first <= last else { return nil }
        let length = rest[(slash + 1)...]
        if length.elementsEqual([UInt8(ascii: "*")]) {
            completeLength = nil
        } else {
            guard let complete = Self.number(length), last < complete else { return nil }
            completeLength = complete
        }
        self.first = first
        self.last = last
    }

    /// Whether `unit` is "bytes" in any case.
    private static func isBytesUnit(_ unit: ArraySlice<UInt8>) -> Bool {
        unit.map { $0 | 0x20 }.elementsEqual("bytes".utf8)
    }

    /// A `1*DIGIT` that fits in `Int`, else nil.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}
