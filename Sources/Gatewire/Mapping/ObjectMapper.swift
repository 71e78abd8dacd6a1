/// Applies ``ObjectMapping``s to JSON representations, producing new Jansson trees.
///
/// - An object maps to one object whose keys come in declaration order (attributes, then
///   relationships).
/// - An array maps to an array of mapped objects; `null` elements are skipped (as RestKit).
/// - A string, number or boolean maps only through attributes whose source is the value
///   itself (`"@value"`); any other source key path running into it is a ``MappingError``.
///
/// Mapping graphs may be recursive (a `Comment` whose `replies` are `Comment`s): the data is
/// a finite tree, and nesting deeper than ``maxDepth`` objects is a ``MappingError``.
public struct ObjectMapper: Sendable {
    /// The mappings by name.
    public let mappings: [String: ObjectMapping]
    /// The deepest nesting of mapped objects allowed (default 128).
    public var maxDepth: Int

    /// - Parameter mappings: the mappings relationships may refer to; a later mapping with
    ///   the same name replaces an earlier one.
    public init(mappings: [ObjectMapping], maxDepth: Int = 128) {
        var byName: [String: ObjectMapping] = [:]
        for mapping in mappings { byName[mapping.name] = mapping }
        self.mappings = byName
        self.maxDepth = maxDepth
    }

    /// Maps `node` (an object, an array of objects, or a scalar for `"@value"` mappings) with
    /// the mapping called `name`.
    /// - Parameter keyPath: where `node` is in the body, for error messages.
    /// - Throws: ``MappingError`` for an unknown mapping name, a required attribute missing or
    ///   `null`, a value that cannot be coerced, or a key path running into a scalar.
    public func map(_ node: JSONNode, with name: String, at keyPath: String = "") throws(MappingError) -> JSONValue {
        try map(node, with: try mapping(named: name, at: keyPath), at: keyPath)
    }

    /// Maps `node` with `mapping` (see ``map(_:with:at:)-(_,String,_)``).
    public func map(_ node: JSONNode, with mapping: ObjectMapping, at keyPath: String = "") throws(MappingError) -> JSONValue {
        try mapValue(node, with: mapping, path: keyPath, depth: 0)
    }

    private func mapping(named name: String, at path: String) throws(MappingError) -> ObjectMapping {
        guard let mapping = mappings[name] else { throw MappingError("unknown mapping \"\(name)\"", keyPath: path) }
        return mapping
    }

    private func mapValue(_ node: JSONNode, with mapping: ObjectMapping, path: String, depth: Int) throws(MappingError)
        -> JSONValue
    {
        switch node.kind {
        case .null:
            return .null()
        case .array:
            let result = JSONValue.array()
            for (index, element) in node.elements.enumerated() where !element.isNull {
                result.append(try mapObject(element, with: mapping, path: "\(path)[\(index)]", depth: depth))
            }
            return result
        default:
            return try mapObject(node, with: mapping, path: path, depth: depth)
        }
    }

    private func mapObject(_ node: JSONNode, with mapping: ObjectMapping, path: String, depth: Int) throws(MappingError)
        -> JSONValue
    {
        guard depth < maxDepth else {
            throw MappingError("objects nested deeper than \(maxDepth) levels (mapping \"\(mapping.name)\")", keyPath: path)
        }
        let result = JSONValue.object()
        for attribute in mapping.attributes {
            // The attribute's key path is built only for an error message: building it for
            // every attribute of every object cost more than the mapping itself.
            guard let value = try attribute.source.value(in: node, at: path) else {
                if attribute.required {
                    throw MappingError("required attribute \"\(attribute.destination)\" of \(mapping.name) is missing",
                                       keyPath: attribute.source.appended(to: path))
                }
                continue
            }
            if value.node.isNull {
                if attribute.required {
                    throw MappingError("required attribute \"\(attribute.destination)\" of \(mapping.name) is null",
                                       keyPath: attribute.source.appended(to: path))
                }
                result.set(attribute.destination, .null())
            } else if let type = attribute.type {
                result.set(attribute.destination, try type.coerce(value.node, dateFormat: attribute.dateFormat,
                                                                  keyPath: attribute.source.appended(to: path)))
            } else {
                result.set(attribute.destination, value)
            }
        }
        for relationship in mapping.relationships {
            let where_ = relationship.source.appended(to: path)
            guard let value = try relationship.source.value(in: node, at: path) else { continue }
            let nested = try self.mapping(named: relationship.mapping, at: where_)
            result.set(relationship.destination, try mapValue(value.node, with: nested, path: where_, depth: depth + 1))
        }
        return result
    }
}
