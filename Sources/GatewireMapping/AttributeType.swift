import CJansson
import GatewireJSON
import Glibc

/// The destination type of an attribute, with strict coercion from the source value.
///
/// Decided differently from RestKit, whose transformers never fail (`"12abc"` becomes 12,
/// overflow saturates): Gatewire rejects what it cannot convert exactly, with a
/// ``MappingError`` naming the key path, because a silently wrong amount is worse than a
/// failed call. `null` is never coerced: it maps to `null` for every type.
package enum AttributeType: String, Sendable, Hashable, CaseIterable {
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
    /// - Parameter node: the value, not `null`.
    /// - Parameter dateFormat: how a ``date`` value is read; ignored for other types.
    /// - Parameter keyPath: where the value is, for the error message (evaluated only on failure).
    /// - Throws: ``MappingError`` when the value cannot be converted exactly.
    package func coerce(_ node: JSONNode, dateFormat: DateFormat = .automatic, keyPath: @autoclosure () -> String)
        throws(MappingError) -> JSONValue
    {
        do {
            return JSONValue(taking: try coerce(raw: node.pointer, dateFormat: dateFormat))
        } catch {
            throw MappingError(error.message, keyPath: keyPath())
        }
    }

    /// Coerces the borrowed node `value` (which is not `null`) to this type: the mapper's
    /// form, with no Swift object made on success.
    /// - Returns: a new reference (the same node when no conversion is needed, shared).
    /// - Throws: ``CoercionFailure`` (the caller adds the key path) when the value cannot be
    ///   converted exactly.
    func coerce(raw value: JSONPointer, dateFormat: DateFormat) throws(CoercionFailure) -> JSONPointer {
        func fail(_ why: String) -> CoercionFailure { CoercionFailure(value, why) }
        let type = value.type
        switch self {
        case .json:
            return value.newReference()
        case .string:
            switch type {
            case JSON_STRING: return value.newReference()
            case JSON_INTEGER: return newJSONString(String(json_integer_value(value)))
            case JSON_REAL: return newJSONString(Coercion.text(of: json_real_value(value)))
            case JSON_TRUE: return newJSONString("true")
            case JSON_FALSE: return newJSONString("false")
            default: throw fail("is not a string")
            }
        case .integer:
            switch type {
            case JSON_INTEGER:
                return value.newReference()
            case JSON_REAL:
                let number = json_real_value(value)
                guard number.rounded() == number else { throw fail("is not an integer (it has a fraction)") }
                guard number >= -9_223_372_036_854_775_808.0, number < 9_223_372_036_854_775_808.0 else {
                    throw fail("is beyond the 64-bit integer range")
                }
                return json_integer(Int64(number))
            case JSON_STRING:
                switch Coercion.integer(value.stringBytes) {
                case .value(let number): return json_integer(number)
                case .overflow: throw fail("is beyond the 64-bit integer range")
                case .invalid: throw fail("is not an integer")
                }
            default:
                throw fail("is not an integer")
            }
        case .number:
            switch type {
            case JSON_INTEGER, JSON_REAL:
                return value.newReference()
            case JSON_STRING:
                let bytes = value.stringBytes
                guard Coercion.isJSONNumber(bytes) else { throw fail("is not a number") }
                if case .value(let number) = Coercion.integer(bytes) { return json_integer(number) }
                // A JSON number has no U+0000, so the C string is the whole text.
                let number = strtod(json_string_value(value), nil)
                guard number.isFinite else { throw fail("is beyond the range of a number") }
                return json_real(number)
            default:
                throw fail("is not a number")
            }
        case .boolean:
            switch type {
            case JSON_TRUE, JSON_FALSE: return value.newReference()
            case JSON_INTEGER where json_integer_value(value) == 0: return json_false()
            case JSON_INTEGER where json_integer_value(value) == 1: return json_true()
            case JSON_STRING where value.stringEquals("true"): return json_true()
            case JSON_STRING where value.stringEquals("false"): return json_false()
            default: throw fail("is not a boolean (expected true, false, \"true\", \"false\", 1 or 0)")
            }
        case .date:
            let date = try Coercion.date(value, format: dateFormat)
            return date.withISO8601 { newJSONString(validUTF8: $0) }
        }
    }
}

/// Why a value could not be coerced, without where it is (the caller knows the key path and
/// makes the ``MappingError``): the coercions run per value, and a path is built only on failure.
struct CoercionFailure: Error {
    /// The value shown and the reason, e.g. `"12abc" is not an integer`.
    let message: String

    /// A failure of the borrowed `value` (shown as ``Coercion/show(_:)`` renders it).
    init(_ value: JSONPointer, _ why: String) {
        message = "\(Coercion.show(value)) \(why)"
    }
}
