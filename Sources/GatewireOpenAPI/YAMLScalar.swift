import CJansson
import GatewireJSON
import Glibc

/// How a YAML scalar becomes a JSON value: the YAML 1.2 core schema (YAML 1.2.2 section
/// 10.3.2), which libyaml leaves to its caller, so that `yes`, `on` and `0755` stay what the
/// core schema says (the string "yes", the string "on", the integer 755) and not what YAML
/// 1.1's type library would make of them.
///
/// A quoted, literal or folded scalar, or one tagged `!!str`, is a string. A plain one is
/// `null` (`null`, `Null`, `NULL`, `~`, empty), a boolean (`true`, `True`, `TRUE`, and the
/// `false` forms), an integer (`[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`; beyond 64 bits
/// a real), a real (`[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`), or else a string.
/// `.inf` and `.nan`, which JSON cannot hold, stay strings.
enum YAMLScalar {
    /// A new Jansson reference for the scalar `text` (valid UTF-8, libyaml checked it).
    static func value(_ text: UnsafeBufferPointer<UInt8>, plain: Bool, tag: String?) -> JSONPointer {
        if !plain || tag == "tag:yaml.org,2002:str" { return newJSONString(validUTF8: text) }
        switch text.count {
        case 0: return json_null()
        case 1 where text[0] == UInt8(ascii: "~"): return json_null()
        default: break
        }
        let string = String(decoding: text, as: UTF8.self)
        switch string {
        case "null", "Null", "NULL": return json_null()
        case "true", "True", "TRUE": return json_true()
        case "false", "False", "FALSE": return json_false()
        default: break
        }
        if let integer = integer(string) { return integer }
        if isReal(text) { return json_real(strtod(string, nil)) }
        return newJSONString(validUTF8: text)
    }

    /// An integer node for the core schema's three integer forms, or nil.
    private static func integer(_ text: String) -> JSONPointer? {
        var digits = Substring(text)
        var radix = 10
        var negative = false
        if digits.hasPrefix("0o") { radix = 8; digits = digits.dropFirst(2) }
        else if digits.hasPrefix("0x") { radix = 16; digits = digits.dropFirst(2) }
        else if let sign = digits.first, sign == "-" || sign == "+" { negative = sign == "-"; digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && Int(String($0), radix: radix) != nil }) else {
            return nil
        }
        if let magnitude = UInt64(digits, radix: radix) {
            if negative, magnitude <= Int64.min.magnitude { return json_integer(Int64(truncatingIfNeeded: 0 &- magnitude)) }
            if !negative, magnitude <= UInt64(Int64.max) { return json_integer(Int64(magnitude)) }
        }
        // Beyond 64 bits: a real, as a JSON parser reading the same digits would give.
        guard radix == 10 else { return nil }
        return json_real(strtod(text, nil))
    }

    /// Whether `text` matches the core schema's real pattern.
    private static func isReal(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        func digits() -> Int {
            let start = index
            while index < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[index]) { index += 1 }
            return index - start
        }
        if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") { index += 1 }
        let whole = digits()
        var fraction = 0
        if index < text.count, text[index] == UInt8(ascii: ".") {
            index += 1
            fraction = digits()
            guard whole > 0 || fraction > 0 else { return false }
        } else if whole == 0 {
            return false
        }
        if index < text.count, text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") {
            index += 1
            if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index == text.count
    }
}
