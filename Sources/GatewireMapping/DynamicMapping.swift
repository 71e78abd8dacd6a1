import GatewireJSON

/// Picks the mapping of each object by a discriminator field, such as JSON:API's `type` or
/// Stripe's `object` (RestKit's `RKDynamicMapping` with `setObjectMapping:whenValueOfKeyPath:isEqualTo:`).
///
/// Config form (a mapping entry that has only `dynamic`):
/// `{"dynamic": {"keyPath": "type", "mappings": {"articles": "Article", "people": "Person"}, "default": "Other"}}`.
/// The discriminator is read at `keyPath` in the object (a string, an integer or a boolean,
/// compared by its text). Without a match the `default` mapping applies; without a default
/// that is a ``MappingError`` naming the discriminator's key path and value.
package struct DynamicMapping: Sendable, Hashable {
    /// Where the discriminator is in each object.
    package var keyPath: JSONKeyPath
    /// Discriminator value -> mapping name.
    package var mappings: [String: String]
    /// The mapping for any other value (or a missing discriminator); nil makes those errors.
    package var defaultMapping: String?

    /// The Swift builder form.
    package init(keyPath: JSONKeyPath, mappings: [String: String], defaultMapping: String? = nil) {
        self.keyPath = keyPath
        self.mappings = mappings
        self.defaultMapping = defaultMapping
    }

    /// Parses `{"keyPath": "type", "mappings": {...}, "default": "Name"}`.
    /// - Throws: ``ConfigError`` naming the field (missing `keyPath` or `mappings`, wrong types, unknown fields).
    package init(config node: ConfigNode) throws(ConfigError) {
        try node.rejectUnknownKeys(["keyPath", "mappings", "default"])
        var mappings: [String: String] = [:]
        for (value, name) in try node.required("mappings").members() { mappings[value] = try name.string() }
        self.init(keyPath: JSONKeyPath(try node.required("keyPath").string()), mappings: mappings,
                  defaultMapping: try node.optional("default")?.string())
    }

    /// Every mapping name it can pick, sorted (for reference checks).
    package var mappingNames: [String] { (Array(mappings.values) + (defaultMapping.map { [$0] } ?? [])).sorted() }

    /// The mapping name for `node`.
    /// - Parameter path: `node`'s key path from the body's root, for errors (called only on failure).
    /// - Throws: ``MappingError`` at the discriminator's key path when no mapping fits.
    func pick(for node: JSONNode, at path: () -> String) throws(MappingError) -> String {
        let value = node.kind == .object ? try keyPath.value(in: node, at: path()) : nil
        var text: String?
        switch value?.node.kind {
        case .string?: text = value?.node.string
        case .integer?, .bool?: text = value?.node.serialized()
        default: text = nil
        }
        if let text, let name = mappings[text] { return name }
        if let defaultMapping { return defaultMapping }
        let known = mappings.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
        if let text {
            throw MappingError("no mapping for discriminator \"\(text)\" (known: \(known); no default)",
                               keyPath: keyPath.appended(to: path()))
        }
        throw MappingError("the discriminator is missing (known values: \(known); no default)",
                           keyPath: keyPath.appended(to: path()))
    }
}
