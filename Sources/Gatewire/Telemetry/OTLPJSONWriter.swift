/// OTLP/HTTP JSON text written as it goes, without a Jansson tree (a span's tree is a few
/// hundred allocations; this writes into one growing buffer). Strings and reals go through
/// the JSON layer's own literals (``JSONValue/appendLiteral(_:to:)``), so the escaping is
/// Jansson's; keys and punctuation are the caller's ASCII constants.
struct OTLPJSONWriter {
    private(set) var bytes: [UInt8] = []

    /// A writer whose buffer holds `capacity` bytes before it grows.
    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// Appends `text` as is: punctuation and keys (ASCII, nothing to escape).
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends `"key":` for a constant `key`.
    mutating func key(_ key: StaticString) {
        bytes.append(0x22)
        raw(key)
        raw("\":")
    }

    /// Appends `value` as a JSON string.
    mutating func string(_ value: String) { JSONValue.appendLiteral(value, to: &bytes) }

    /// Appends `value` as a JSON integer.
    mutating func integer(_ value: Int64) { bytes.append(contentsOf: String(value).utf8) }

    /// Appends `value` as a decimal string: the OTLP JSON form of 64-bit integers.
    mutating func quoted<Number: BinaryInteger>(_ value: Number) {
        bytes.append(0x22)
        bytes.append(contentsOf: String(value).utf8)
        bytes.append(0x22)
    }

    /// Appends `value` as a JSON real.
    mutating func number(_ value: Double) { JSONValue.appendLiteral(value, to: &bytes) }

    /// Appends `[{"key", "value": {"stringValue" | "intValue" | "doubleValue" | "boolValue"}}]`.
    mutating func attributes(_ list: [SpanAttribute]) {
        raw("[")
        for (index, attribute) in list.enumerated() {
            if index > 0 { raw(",") }
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
        raw("]")
    }
}
