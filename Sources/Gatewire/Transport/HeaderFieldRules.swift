/// The one check of header field names and values, used at every boundary where a header
/// enters Gatewire (config `headers`, call headers, plugins, credentials, the CLI) and once
/// more where headers become libcurl's list (`Transfer`), so a CR or LF can never add a
/// header line of its own on the wire (header injection).
///
/// Rules (RFC 9110):
/// - a field name is a `token` (section 5.1, with `token` and `tchar` from section 5.6.2):
///   one or more of the letters, the digits and ``!#$%&'*+-.^_`|~``; so no space, no colon,
///   no control character, nothing outside ASCII;
/// - a field value must not contain CR, LF or NUL (section 5.5). Other characters are sent
///   as given (an empty value too).
///
/// Messages never repeat the value (it may be a credential): they name the header and the
/// position (a 0-based byte offset in the UTF-8 text) of the first bad character.
extension HTTPHeaders {
    /// Why `name` cannot be a header field name, or nil when it can (RFC 9110 section 5.1).
    /// Pure; any thread.
    public static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "the header name is empty (RFC 9110 section 5.1: a name is a token of 1 or more characters)" }
        for (offset, byte) in name.utf8.enumerated() where !isTokenByte(byte) {
            return "the header name contains \(describe(byte)) at byte \(offset) "
                + "(RFC 9110 section 5.1: a name is a token of letters, digits and !#$%&'*+-.^_`|~)"
        }
        return nil
    }

    /// Why `value` cannot be a header field value, or nil when it can: it must not contain
    /// CR, LF or NUL (RFC 9110 section 5.5). Pure; any thread.
    public static func valueProblem(_ value: String) -> String? {
        for (offset, byte) in value.utf8.enumerated() where byte == 0x0D || byte == 0x0A || byte == 0x00 {
            return "the value contains \(describe(byte)) at byte \(offset) "
                + "(RFC 9110 section 5.5: CR, LF and NUL are not allowed in a field value)"
        }
        return nil
    }

    /// Why `name: value` cannot be sent, naming the header (`header "X-Evil": the value
    /// contains CR ...`), or nil when it can. Pure; any thread.
    public static func fieldProblem(name: String, value: String) -> String? {
        guard let problem = nameProblem(name) ?? valueProblem(value) else { return nil }
        return "header \(quoted(name)): \(problem)"
    }

    /// The first field that cannot be sent, as ``fieldProblem(name:value:)`` describes it, or
    /// nil when every field can.
    public var problem: String? {
        for field in fields {
            if let problem = Self.fieldProblem(name: field.name, value: field.value) { return problem }
        }
        return nil
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
        case 0x21...0x7E: "\"\(Character(Unicode.Scalar(byte)))\""
        default: "the byte 0x\(String(byte, radix: 16, uppercase: true))"
        }
    }

    /// `name` in double quotes with control characters written as `\r`, `\n`, `\0` or `\xNN`,
    /// so a message stays on one line.
    static func quoted(_ name: String) -> String {
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
