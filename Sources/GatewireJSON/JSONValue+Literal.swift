extension JSONValue {
    /// Appends `string` to `text` as a JSON string literal, escaped as Jansson escapes it
    /// (RFC 8259 section 7: `"`, `\` and the control characters U+0000...U+001F; UTF-8
    /// otherwise as is). A string without any of those is copied between quotes, which is
    /// byte for byte what Jansson writes for it; any other goes through Jansson.
    /// For writers that stream JSON text without building a tree.
    package static func appendLiteral(_ string: String, to text: inout [UInt8]) {
        var string = string
        let plain = string.withUTF8 { bytes in !bytes.contains { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 } }
        guard plain else { return text.append(contentsOf: JSONValue.string(string).serialized().utf8) }
        text.append(0x22)
        string.withUTF8 { text.append(contentsOf: $0) }
        text.append(0x22)
    }

    /// Appends `value` to `text` as Jansson writes a real (17 significant digits, so it reads
    /// back exactly); NaN and infinities, which JSON cannot hold, as `null`.
    package static func appendLiteral(_ value: Double, to text: inout [UInt8]) {
        text.append(contentsOf: JSONValue.number(value).serialized().utf8)
    }
}
