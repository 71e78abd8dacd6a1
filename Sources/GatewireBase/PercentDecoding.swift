/// Percent-decoding (RFC 3986 section 2.1) of the pieces of a URL: path segments and their
/// parameters, query names and values. One rule for the path matcher, the redactor and the
/// redirect policy, so a name or a segment is the same text to each. Pure; any thread.
package enum PercentDecoding {
    /// `%XX` sequences decoded as UTF-8 (invalid sequences become U+FFFD); a `%` not followed
    /// by two hex digits is kept. `+` stays `+` (URL decoding, not a form's).
    package static func decode(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")), let decoded = decodedOnce(Array(text.utf8)) else { return text }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// `bytes` with every `%XX` decoded once, or nil when there is none (a `%` without two
    /// hex digits stays as it is).
    package static func decodedOnce(_ bytes: [UInt8]) -> [UInt8]? {
        func hex(_ b: UInt8) -> UInt8? {
            switch b {
            case 48...57: b - 48
            case 65...70: b - 55
            case 97...102: b - 87
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var changed = false
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let high = hex(bytes[i + 1]), let low = hex(bytes[i + 2]) {
                out.append(high << 4 | low)
                changed = true
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return changed ? out : nil
    }
}
