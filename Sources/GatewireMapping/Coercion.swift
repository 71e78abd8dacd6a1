import CJansson
import GatewireJSON
import Glibc

/// The parsing helpers behind ``AttributeType``'s coercions, on the bytes of Jansson's
/// strings (no `String` is made on success).
enum Coercion {
    /// The outcome of reading an integer from text.
    enum IntegerParse { case value(Int64), overflow, invalid }

    /// A text that is entirely `-?[0-9]+`, exactly, as a 64-bit integer.
    static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> IntegerParse {
        var index = 0
        let negative = bytes.count > 0 && bytes[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < bytes.count else { return .invalid }
        var value: Int64 = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte >= 48, byte <= 57 else { return .invalid }
            let digit = Int64(byte - 48)
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
            if o1 || o2 {
                // Still invalid when a later byte is not a digit (`"99999999999999999999x"`).
                while index < bytes.count {
                    guard bytes[index] >= 48, bytes[index] <= 57 else { return .invalid }
                    index += 1
                }
                return .overflow
            }
            value = next
            index += 1
        }
        return .value(value)
    }

    /// Whether `b` is entirely a number in JSON's grammar (RFC 8259 section 6).
    static func isJSONNumber(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        func isDigit(_ i: Int) -> Bool { i < b.count && b[i] >= 48 && b[i] <= 57 }
        if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
        guard isDigit(i) else { return false }
        if b[i] == 48 { i += 1 } else { while isDigit(i) { i += 1 } }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(i) else { return false }
            while isDigit(i) { i += 1 }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard isDigit(i) else { return false }
            while isDigit(i) { i += 1 }
        }
        return i == b.count
    }

    /// A real's text: whole values below 1e15 without a fraction (`1.0` -> `"1"`, as
    /// `NSNumber.stringValue`), others Swift's shortest round-trip text.
    static func text(of value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// A short rendering of a borrowed node for error messages (strings quoted, long text cut).
    static func show(_ value: JSONPointer) -> String {
        switch value.type {
        case JSON_OBJECT: return "an object"
        case JSON_ARRAY: return "an array"
        default:
            let text = value.serialized()
            return text.count > 60 ? String(text.prefix(57)) + "..." : text
        }
    }

    /// The date a borrowed, non-null node holds, read as `format` says (see ``DateFormat``).
    /// - Throws: ``CoercionFailure`` when it is not a date of that form or is out of range.
    static func date(_ value: JSONPointer, format: DateFormat) throws(CoercionFailure) -> GatewireDate {
        func fail(_ why: String) -> CoercionFailure { CoercionFailure(value, why) }
        let type = value.type
        func epoch(_ scale: Double) throws(CoercionFailure) -> GatewireDate {
            let unit = scale == 1 ? "seconds" : "milliseconds"
            if type == JSON_INTEGER, scale == 1000 {
                guard let date = GatewireDate(millisecondsSince1970: json_integer_value(value)) else {
                    throw fail("is out of the date range (years 0001-9999)")
                }
                return date
            }
            var number: Double
            if type == JSON_INTEGER || type == JSON_REAL {
                number = json_number_value(value)
            } else if type == JSON_STRING, isJSONNumber(value.stringBytes) {
                if case .value(let ms) = integer(value.stringBytes), scale == 1000 {
                    guard let date = GatewireDate(millisecondsSince1970: ms) else {
                        throw fail("is out of the date range (years 0001-9999)")
                    }
                    return date
                }
                number = strtod(json_string_value(value), nil)
            } else {
                throw fail("is not a number of \(unit) since 1970")
            }
            number /= scale
            guard let date = GatewireDate(secondsSince1970: number) else {
                throw fail("is out of the date range (years 0001-9999)")
            }
            return date
        }
        switch format {
        case .epochSeconds: return try epoch(1)
        case .epochMilliseconds: return try epoch(1000)
        case .iso8601:
            guard type == JSON_STRING, let date = GatewireDate(iso8601: value.stringBytes) else {
                throw fail("is not an ISO 8601 date")
            }
            return date
        case .automatic:
            if type == JSON_INTEGER || type == JSON_REAL { return try epoch(1) }
            guard type == JSON_STRING, let date = GatewireDate(parsing: value.stringBytes) else {
                throw fail("is not a date (expected ISO 8601, an HTTP-date, or seconds since 1970)")
            }
            return date
        }
    }
}
