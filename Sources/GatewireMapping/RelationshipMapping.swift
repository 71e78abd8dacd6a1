import GatewireJSON

/// A nested object (or array of objects) of an ``ObjectMapping``, mapped with another
/// mapping, named so mappings can refer to each other (and to themselves).
///
/// As RestKit's `RKRelationshipMapping`: an array maps to an array of objects (`null`
/// elements skipped), an object to one object; `null` maps to `null`; a missing source
/// leaves the destination out. Decided differently from RestKit: a failure inside a nested
/// object fails the whole mapping (RestKit logs and drops it), so data is never lost silently.
package struct RelationshipMapping: Sendable, Hashable {
    /// Where the nested representation is (dotted, see ``JSONKeyPath``).
    package var source: JSONKeyPath
    /// The key of the mapped object.
    package var destination: String
    /// The name of the ``ObjectMapping`` applied to the nested representation.
    package var mapping: String

    /// - Parameters:
    ///   - source: the dotted source key path.
    ///   - destination: the destination key; defaults to `source` as written.
    ///   - mapping: the nested mapping's name.
    package init(_ source: String, to destination: String? = nil, mapping: String) {
        self.source = AttributeMapping.keyPath(source)
        self.destination = destination ?? source
        self.mapping = mapping
    }

    /// The config form, keyed by the source key path: `{"to": "address", "mapping": "Address"}`
    /// (`mapping` required, `to` defaults to the source key).
    /// - Throws: ``ConfigError`` for a missing `mapping`, a wrong type or an unknown field.
    ///   Whether the named mapping exists is checked by ``MappingCatalog``.
    package init(config node: ConfigNode, source: String) throws(ConfigError) {
        try node.rejectUnknownKeys(["to", "mapping"])
        self.init(source, to: try node.optional("to")?.string(), mapping: try node.required("mapping").string())
    }
}
