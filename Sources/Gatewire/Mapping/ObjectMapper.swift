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
    /// - Parameters:
    ///   - keyPath: where `node` is in the body, for error messages.
    ///   - context: the body and response metadata for `@root` and `@metadata` sources.
    ///   - parent: the representation holding `node`, for `@parent` sources (nil at the top).
    /// - Throws: ``MappingError`` for an unknown mapping name, a required attribute missing or
    ///   `null`, a value that cannot be coerced, or a key path running into a scalar.
    public func map(_ node: JSONNode, with name: String, at keyPath: String = "", context: MappingContext = .none,
                    parent: JSONNode? = nil) throws(MappingError) -> JSONValue {
        try map(node, with: try mapping(named: name, at: keyPath), at: keyPath, context: context, parent: parent)
    }

    /// Maps `node` with `mapping` (see ``map(_:with:at:context:parent:)-(_,String,_,_,_)``).
    public func map(_ node: JSONNode, with mapping: ObjectMapping, at keyPath: String = "",
                    context: MappingContext = .none, parent: JSONNode? = nil) throws(MappingError) -> JSONValue {
        try mapValue(node, with: mapping, path: keyPath, depth: 0, context: context, parent: parent)
    }

    private func mapping(named name: String, at path: String) throws(MappingError) -> ObjectMapping {
        guard let mapping = mappings[name] else { throw MappingError("unknown mapping \"\(name)\"", keyPath: path) }
        return mapping
    }

    private func mapValue(_ node: JSONNode, with mapping: ObjectMapping, path: String, depth: Int,
                          context: MappingContext, parent: JSONNode?) throws(MappingError) -> JSONValue {
        switch node.kind {
        case .null:
            return .null()
        case .array:
            let result = JSONValue.array()
            for (index, element) in node.elements.enumerated() where !element.isNull {
                result.append(try mapObject(element, with: mapping, path: "\(path)[\(index)]", depth: depth,
                                            context: context, parent: parent))
            }
            return result
        default:
            return try mapObject(node, with: mapping, path: path, depth: depth, context: context, parent: parent)
        }
    }

    /// The value at `source` for the object `node`: from `node` itself, or from a special
    /// root (`@root`, `@metadata`, `@parent`; see ``MappingContext``).
    private func resolve(_ source: KeyPath, in node: JSONNode, path: String, context: MappingContext,
                         parent: JSONNode?) throws(MappingError) -> JSONValue? {
        guard let (root, rest) = SourceRoot.split(source) else { return try source.value(in: node, at: path) }
        let base: JSONNode?
        switch root {
        case .root: base = context.root?.node
        case .metadata: base = context.metadata?.node
        case .parent: base = parent
        }
        guard let base else { return nil }
        return try rest.value(in: base, at: root.rawValue)
    }

    private func mapObject(_ node: JSONNode, with mapping: ObjectMapping, path: String, depth: Int,
                           context: MappingContext, parent: JSONNode?) throws(MappingError) -> JSONValue {
        guard depth < maxDepth else {
            throw MappingError("objects nested deeper than \(maxDepth) levels (mapping \"\(mapping.name)\")", keyPath: path)
        }
        if let dynamic = mapping.dynamic {
            let chosen = try self.mapping(named: try dynamic.pick(for: node, at: path), at: path)
            return try mapObject(node, with: chosen, path: path, depth: depth + 1, context: context, parent: parent)
        }
        let result = JSONValue.object()
        for attribute in mapping.attributes {
            // The attribute's key path is built only for an error message: building it for
            // every attribute of every object cost more than the mapping itself.
            guard let value = try resolve(attribute.source, in: node, path: path, context: context, parent: parent) else {
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
            } else if let type = attribute.type, type != .json, value.node.kind == .array {
                // An array of scalars: each element coerced, `null` kept.
                let array = JSONValue.array()
                for (index, element) in value.node.elements.enumerated() {
                    array.append(element.isNull ? .null()
                        : try type.coerce(element, dateFormat: attribute.dateFormat, keyPath: "\(attribute.source.appended(to: path))[\(index)]"))
                }
                result.set(attribute.destination, array)
            } else if let type = attribute.type {
                result.set(attribute.destination, try type.coerce(value.node, dateFormat: attribute.dateFormat,
                                                                  keyPath: attribute.source.appended(to: path)))
            } else {
                result.set(attribute.destination, value)
            }
        }
        for relationship in mapping.relationships {
            let where_ = relationship.source.appended(to: path)
            guard let value = try resolve(relationship.source, in: node, path: path, context: context, parent: parent) else {
                continue
            }
            let nested = try self.mapping(named: relationship.mapping, at: where_)
            result.set(relationship.destination, try mapValue(value.node, with: nested, path: where_, depth: depth + 1,
                                                              context: context, parent: node))
        }
        return result
    }
}
