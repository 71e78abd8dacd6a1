import GatewireJSON

/// One attribute of an ``ObjectMapping``: the value at `source` in the representation is
/// written to the key `destination` of the mapped object, coerced to `type`.
///
/// As RestKit's `RKAttributeMapping` on a dictionary target: a missing source leaves the
/// destination out, `null` maps to `null` (RestKit clears the property). Decided differently
/// from RestKit: a value that cannot be coerced is a ``MappingError`` (RestKit logs and
/// skips it), and `required` makes a missing or `null` value an error.
///
/// The source ``JSONKeyPath/root`` (written `"@value"` in config) maps the value itself, the way
/// RestKit's `nil` source key path maps arrays of strings (e.g. `{"errors": ["a", "b"]}` with
/// an attribute `"@value" -> "message"` gives two objects).
package struct AttributeMapping: Sendable, Hashable {
    /// Where the value is in the source representation (dotted, see ``JSONKeyPath``).
    package var source: JSONKeyPath
    /// The key of the mapped object (a plain key: dots are not split).
    package var destination: String
    /// The coercion applied; nil copies the value as parsed.
    package var type: AttributeType?
    /// How a ``AttributeType/date`` source is read; ignored for other types.
    package var dateFormat: DateFormat
    /// Whether a missing or `null` source value fails the mapping.
    package var required: Bool

    /// - Parameters:
    ///   - source: the dotted source key path (`"@value"` or `""` for the value itself).
    ///   - destination: the destination key; defaults to `source` as written.
    ///   - type: the coercion applied; nil copies the value as parsed.
    ///   - dateFormat: how a ``AttributeType/date`` source is read; ignored for other types.
    ///   - required: whether a missing or `null` source value fails the mapping.
    package init(_ source: String, to destination: String? = nil, type: AttributeType? = nil,
                dateFormat: DateFormat = .automatic, required: Bool = false) {
        self.source = AttributeMapping.keyPath(source)
        self.destination = destination ?? source
        self.type = type
        self.dateFormat = dateFormat
        self.required = required
    }

    /// The config form, keyed by the source key path: either the destination key as a string
    /// (`"email": "email"`) or an object
    /// `{"to": "createdAt", "type": "date", "dateFormat": "iso8601", "required": true}`
    /// where every field is optional (`to` defaults to the source key).
    /// - Throws: ``ConfigError`` naming the field for a wrong type, an unknown type or date
    ///   format name, `dateFormat` on a non-date type, or an unknown field.
    package init(config node: ConfigNode, source: String) throws(ConfigError) {
        if node.json.kind == .string {
            self.init(source, to: try node.string())
            return
        }
        try node.rejectUnknownKeys(["to", "type", "dateFormat", "required"])
        var type: AttributeType?
        if let typeNode = try node.optional("type") {
            let name = try typeNode.string()
            guard let parsed = AttributeType(rawValue: name) else {
                throw typeNode.error("unknown type \"\(name)\" (expected one of: \(AttributeType.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            type = parsed
        }
        var format = DateFormat.automatic
        if let formatNode = try node.optional("dateFormat") {
            let name = try formatNode.string()
            guard let parsed = DateFormat(rawValue: name), parsed != .automatic || name == "automatic" else {
                throw formatNode.error("unknown date format \"\(name)\" (expected one of: iso8601, epochSeconds, epochMilliseconds)")
            }
            guard type == .date else { throw formatNode.error("dateFormat is only allowed with \"type\": \"date\"") }
            format = parsed
        }
        self.init(source, to: try node.optional("to")?.string(), type: type, dateFormat: format,
                  required: try node.optional("required")?.bool() ?? false)
    }

    /// `"@value"` and `""` are the value itself; anything else a dotted path.
    static func keyPath(_ source: String) -> JSONKeyPath {
        source == "@value" ? .root : JSONKeyPath(source)
    }
}
