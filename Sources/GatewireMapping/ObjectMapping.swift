import GatewireJSON

/// How one kind of object is read from a JSON representation: a name, attribute mappings
/// and relationship mappings (RestKit's `RKObjectMapping` with an `NSMutableDictionary`
/// target, plus typed coercion).
///
/// Applied by ``ObjectMapper``. The mapped object's keys come out in declaration order:
/// attributes first, then relationships.
///
/// ```swift
/// ObjectMapping(name: "User",
///               attributes: [.init("full_name", to: "name", type: .string, required: true)],
///               relationships: [.init("address", mapping: "Address")])
/// ```
package struct ObjectMapping: Sendable, Hashable {
    /// The mapping's name, referred to by descriptors and relationships.
    package var name: String
    /// Attribute mappings, in output order.
    package var attributes: [AttributeMapping]
    /// Relationship mappings, in output order (after the attributes).
    package var relationships: [RelationshipMapping]
    /// When set, each object is mapped with the mapping this picks (by a discriminator);
    /// `attributes` and `relationships` are then empty.
    package var dynamic: DynamicMapping?

    /// The Swift builder form; output keys follow the order given.
    package init(name: String, attributes: [AttributeMapping] = [], relationships: [RelationshipMapping] = []) {
        self.name = name
        self.attributes = attributes
        self.relationships = relationships
        self.dynamic = nil
    }

    /// A dynamic mapping: each object is mapped with the mapping `dynamic` picks.
    package init(name: String, dynamic: DynamicMapping) {
        self.init(name: name)
        self.dynamic = dynamic
    }

    /// The config form (the value of `mappings.<name>`):
    /// `{"attributes": {"email": "email", "full_name": {"to": "name", "type": "string", "required": true}},
    ///   "relationships": {"address": {"to": "address", "mapping": "Address"}}}`.
    /// Or the dynamic form `{"dynamic": {"keyPath": "type", "mappings": {"Issue": "Issue"}, "default": "Other"}}`
    /// (see ``DynamicMapping``).
    /// - Throws: ``ConfigError`` naming the field for unknown fields, wrong types, or two
    ///   attributes/relationships writing the same destination key (RestKit asserts on this).
    package init(config node: ConfigNode, name: String) throws(ConfigError) {
        if let dynamic = try node.optional("dynamic") {
            try node.rejectUnknownKeys(["dynamic"])
            self.init(name: name, dynamic: try DynamicMapping(config: dynamic))
            return
        }
        try node.rejectUnknownKeys(["attributes", "relationships", "dynamic"])
        var attributes: [AttributeMapping] = []
        var relationships: [RelationshipMapping] = []
        var destinations: [String: String] = [:]
        func claim(_ destination: String, _ field: ConfigNode) throws(ConfigError) {
            if let earlier = destinations[destination] {
                throw field.error("destination key \"\(destination)\" is already written by \(earlier)")
            }
            destinations[destination] = field.path
        }
        if let node = try node.optional("attributes") {
            for (source, field) in try node.members() {
                let attribute = try AttributeMapping(config: field, source: source)
                try claim(attribute.destination, field)
                attributes.append(attribute)
            }
        }
        if let node = try node.optional("relationships") {
            for (source, field) in try node.members() {
                let relationship = try RelationshipMapping(config: field, source: source)
                try claim(relationship.destination, field)
                relationships.append(relationship)
            }
        }
        self.init(name: name, attributes: attributes, relationships: relationships)
    }
}
