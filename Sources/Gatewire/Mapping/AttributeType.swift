import Glibc

/// The destination type of an attribute, with strict coercion from the source value.
///
/// Decided differently from RestKit, whose transformers never fail (`"12abc"` becomes 12,
/// overflow saturates): Gatewire rejects what it cannot convert exactly, with a
/// ``MappingError`` naming the key path, because a silently wrong amount is worse than a
/// failed call. `null` is never coerced: it maps to `null` for every type.
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    /// A JSON string. Strings stay as they are (digit strings such as `"4242"` stay strings);
    /// integers become their decimal text; reals their shortest text with RestKit's
    /// `stringValue` rule for whole values (`1.0` -> `"1"`); booleans `"true"`/`"false"`.
    /// Objects and arrays are errors.
    case string
    /// An exact 64-bit signed integer (never through `Double`). From a JSON integer; a JSON
    /// real with a zero fraction (`3.0` -> 3; `3.5` is an error); a string that is entirely
    /// an optional `-` and decimal digits (`"12abc"` is an error). Values beyond the 64-bit
    /// range (a huge real, or a long digit string) are errors that say so.
    case integer
    /// A number. JSON integers stay integers, reals stay reals; a string must be entirely a
    /// JSON number (`"12.5"`, `"-3"`, `"1e5"`), giving an integer when it has no fraction or
    /// exponent and fits 64 bits, a real otherwise.
    case number
    /// `true`/`false`, the strings `"true"`/`"false"`, or the integers 1/0. Anything else is
    /// an error (RestKit's `yes`/`t`/`y` spellings are not accepted).
    case boolean
    /// A date, read as the attribute's ``DateFormat`` says, written as ISO 8601 UTC with
    /// milliseconds: `2017-10-10T16:00:00.000Z`.
    case date
    /// The value passed through untouched (objects and arrays included).
    case json

    /// Coerces `node` (which is not `null`) to this type.
    /// - Parameter keyPath: where the value is, for the error message (evaluated only on failure).
    /// - Throws: ``MappingError`` when the value cannot be converted exactly.
    public func coerce(_ node: JSONNode, dateFormat: DateFormat = .automatic, keyPath: @autoclosure () -> String)
        throws(MappingError) -> JSONValue
    {
        func fail(_ why: String) -> MappingError {
            MappingError("\(Coercion.show(node)) \(why)", keyPath: keyPath())
        }
        switch self {
        case .json:
            return node.retained()
        case .string:
            switch node.kind {
            case .string: return node.retained()
            case .integer: return .string(String(node.integer!))
            case .real: return .string(Coercion.text(of: node.number!))
            case .bool: return .string(node.bool! ? "true" : "false")
            default: throw fail("is not a string")
            }
        case .integer:
            switch node.kind {
            case .integer:
                return node.retained()
            case .real:
                let value = node.number!
                guard value.rounded() == value else { throw fail("is not an integer (it has a fraction)") }
                guard value >= -9_223_372_036_854_775_808.0, value < 9_223_372_036_854_775_808.0 else {
                    throw fail("is beyond the 64-bit integer range")
                }
                return .integer(Int64(value))
            case .string:
                switch Coercion.integer(node.string!) {
                case .value(let value): return .integer(value)
                case .overflow: throw fail("is beyond the 64-bit integer range")
                case .invalid: throw fail("is not an integer")
                }
            default:
                throw fail("is not an integer")
            }
        case .number:
            switch node.kind {
            case .integer, .real:
                return node.retained()
            case .string:
                let text = node.string!
                guard Coercion.isJSONNumber(text) else { throw fail("is not a number") }
                if case .value(let value) = Coercion.integer(text) { return .integer(value) }
                let value = text.withCString { strtod($0, nil) }
                guard value.isFinite else { throw fail("is beyond the range of a number") }
                return .number(value)
            default:
                throw fail("is not a number")
            }
        case .boolean:
            switch node.kind {
            case .bool: return node.retained()
            case .integer where node.integer == 0 || node.integer == 1: return .bool(node.integer == 1)
            case .string where node.string == "true" || node.string == "false": return .bool(node.string == "true")
            default: throw fail("is not a boolean (expected true, false, \"true\", \"false\", 1 or 0)")
            }
        case .date:
            return .string(try Coercion.date(node, format: dateFormat, keyPath: keyPath()).iso8601)
        }
    }
}

/// The parsing helpers behind ``AttributeType``.
enum Coercion {
    enum IntegerParse { case value(Int64), overflow, invalid }

    /// A string that is entirely `-?[0-9]+`, exactly.
    static func integer(_ text: String) -> IntegerParse {
        var bytes = Substring(text).utf8[...]
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return .invalid }
        var value: Int64 = 0
        for byte in bytes {
            let digit = Int64(byte - 48)
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (next, o2) = negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
            if o1 || o2 { return .overflow }
            value = next
        }
        return .value(value)
    }

    /// Whether `text` is entirely a number in JSON's grammar (RFC 8259 section 6).
    static func isJSONNumber(_ text: String) -> Bool {
        let b = Array(text.utf8)
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

    /// A short rendering of a value for error messages (strings quoted, long text cut).
    static func show(_ node: JSONNode) -> String {
        switch node.kind {
        case .object: return "an object"
        case .array: return "an array"
        default:
            let text = node.serialized()
            return text.count > 60 ? String(text.prefix(57)) + "..." : text
        }
    }

    static func date(_ node: JSONNode, format: DateFormat, keyPath: @autoclosure () -> String) throws(MappingError)
        -> GatewireDate
    {
        func fail(_ why: String) -> MappingError { MappingError("\(show(node)) \(why)", keyPath: keyPath()) }
        func epoch(_ scale: Double) throws(MappingError) -> GatewireDate {
            let unit = scale == 1 ? "seconds" : "milliseconds"
            if node.kind == .integer, scale == 1000 {
                guard let date = GatewireDate(millisecondsSince1970: node.integer!) else {
                    throw fail("is out of the date range (years 0001-9999)")
                }
                return date
            }
            var value: Double
            if let number = node.number {
                value = number
            } else if let text = node.string, isJSONNumber(text) {
                if case .value(let ms) = integer(text), scale == 1000 {
                    guard let date = GatewireDate(millisecondsSince1970: ms) else {
                        throw fail("is out of the date range (years 0001-9999)")
                    }
                    return date
                }
                value = text.withCString { strtod($0, nil) }
            } else {
                throw fail("is not a number of \(unit) since 1970")
            }
            value /= scale
            guard let date = GatewireDate(secondsSince1970: value) else {
                throw fail("is out of the date range (years 0001-9999)")
            }
            return date
        }
        switch format {
        case .epochSeconds: return try epoch(1)
        case .epochMilliseconds: return try epoch(1000)
        case .iso8601:
            guard let text = node.string, let date = GatewireDate(iso8601: text) else {
                throw fail("is not an ISO 8601 date")
            }
            return date
        case .automatic:
            if node.kind == .integer || node.kind == .real { return try epoch(1) }
            guard let text = node.string, let date = GatewireDate(parsing: text) else {
                throw fail("is not a date (expected ISO 8601, an HTTP-date, or seconds since 1970)")
            }
            return date
        }
    }
}
