/// The one check of header field names and values, so a CR or LF can never add a header line
/// of its own on the wire (header injection). ``HTTPHeaders`` runs it on each field as the
/// field enters (a call's headers, a plugin's, the config's) and keeps the verdict
/// (``HTTPHeaders/problem``), which the call reads after each plugin and `Transfer` once more
/// before libcurl's list is made; settings that become a header later (a credential's token,
/// a plugin's header name) are checked with it when they are given.
///
/// Rules (RFC 9110):
/// - a field name is a `token` (section 5.1, with `token` and `tchar` from section 5.6.2):
///   one or more of the letters, the digits and ``!#$%&'*+-.^_`|~``; so no space, no colon,
///   no control character, nothing outside ASCII;
/// - a name that frames the message or manages the connection is libcurl's to send, never
///   the caller's: `Content-Length` and `Transfer-Encoding` (RFC 9112 section 6: a wrong one
///   desynchronises a reused or proxied connection), the connection-specific fields of
///   RFC 9110 section 7.6.1 (`Connection`, `Keep-Alive`, `Proxy-Connection`, `TE`,
///   `Upgrade`) and `Trailer` (section 6.6.2: only a chunked body, which libcurl decides,
///   carries trailers). Case-insensitive. `Host` stays allowed (RFC 9110 section 7.2: a
///   caller may name the virtual host, as requests and OkHttp allow);
/// - a field value must not contain a control character other than HTAB (section 5.5:
///   `field-vchar` is VCHAR or obs-text, with SP and HTAB between): CR, LF, NUL, `\x01`,
///   `\x0b`, DEL (`\x7f`)... are refused. Bytes from 0x80 (obs-text, UTF-8) and an empty
///   value are sent as given.
///
/// Messages never repeat the value (it may be a credential): they name the header and the
/// position (a 0-based byte offset in the UTF-8 text) of the first bad character.
extension HTTPHeaders {
    /// Why `name` cannot be a header field name, or nil when it can (RFC 9110 section 5.1).
    /// Pure; any thread.
    /// A name that is a token but one of libcurl's framing or connection fields is refused
    /// too (see the rules above).
    package static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "the header name is empty (RFC 9110 section 5.1: a name is a token of 1 or more characters)" }
        var name = name
        // Over the contiguous bytes: this runs for every field a call adds.
        if let (offset, byte) = name.withUTF8({ bytes in bytes.firstIndex { !isTokenByte($0) }.map { ($0, bytes[$0]) } }) {
            return "the header name contains \(describe(byte)) at byte \(offset) "
                + "(RFC 9110 section 5.1: a name is a token of letters, digits and !#$%&'*+-.^_`|~)"
        }
        // Only a name as long as one of libcurl's fields is lower-cased and looked up (most
        // names are not: no allocation for them).
        let length = name.utf8.count
        if length < 64, transportOwnedLengths & 1 << length != 0, let rule = transportOwnedFields[name.lowercased()] {
            return "the header frames the message or manages the connection, which libcurl does (\(rule))"
        }
        return nil
    }

    /// Bit n is set when a name in ``transportOwnedFields`` has n bytes.
    private static let transportOwnedLengths: UInt64 = transportOwnedFields.keys.reduce(0) { $0 | 1 << $1.utf8.count }

    /// The fields only the transport may send (lower-case), with the rule that says why.
    private static let transportOwnedFields: [String: String] = [
        "content-length": "RFC 9112 section 6.2",
        "transfer-encoding": "RFC 9112 section 6.1",
        "connection": "RFC 9110 section 7.6.1",
        "keep-alive": "RFC 9110 section 7.6.1",
        "proxy-connection": "RFC 9110 section 7.6.1",
        "te": "RFC 9110 sections 7.6.1 and 10.1.4",
        "upgrade": "RFC 9110 sections 7.6.1 and 7.8",
        "trailer": "RFC 9110 section 6.6.2",
    ]

    /// Why `value` cannot be a header field value, or nil when it can: it must not contain a
    /// control character other than HTAB (RFC 9110 section 5.5). Pure; any thread.
    package static func valueProblem(_ value: String) -> String? {
        var value = value
        // Over the contiguous bytes: this runs for every field a call adds.
        let found = value.withUTF8 { bytes in
            bytes.firstIndex { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }.map { ($0, bytes[$0]) }
        }
        guard let (offset, byte) = found else { return nil }
        return "the value contains \(describe(byte)) at byte \(offset) "
            + "(RFC 9110 section 5.5: no control character but HTAB is allowed in a field value)"
    }

    /// Why `name: value` cannot be sent, naming the header (`header "X-Evil": the value
    /// contains CR ...`), or nil when it can. Pure; any thread.
    package static func fieldProblem(name: String, value: String) -> String? {
        guard let problem = nameProblem(name) ?? valueProblem(value) else { return nil }
        return "header \(quoted(name)): \(problem)"
    }

    /// `tchar` of RFC 9110 section 5.6.2.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func describe(_ byte: UInt8) -> String {
        switch byte {
        case 0x0D: "CR"
        case 0x0A: "LF"
        case 0x00: "NUL"
        case 0x20: "a space"
        case 0x7F: "DEL"
        case 0x21...0x7E: "\"\(Character(Unicode.Scalar(byte)))\""
        default: "the byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
    }

    /// `name` in double quotes with control characters written as `\r`, `\n`, `\0` or `\xNN`,
    /// so a message stays on one line.
    package static func quoted(_ name: String) -> String {
        var text = "\""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\r": text += "\\r"
            case "\n": text += "\\n"
            case "\0": text += "\\0"
            case "\"": text += "\\\""
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                text += "\\x" + String(scalar.value, radix: 16, uppercase: true)
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }
}
