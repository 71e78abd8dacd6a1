import CJansson
import GatewireJSON

/// One application of compiled mappings (``MappingPlan``) to a parsed Jansson tree: the
/// engine behind ``ObjectMapper``, with its rules (see there).
///
/// It works on raw Jansson pointers: source nodes are borrowed from the parsed tree (which
/// the caller keeps alive for the whole walk), and the mapped tree is built directly with
/// Jansson calls (`json_object_setn_new_nocheck` with the plans' C-string keys), so no
/// Swift object, `String` or reference count is touched per value on success. Values that
/// need no conversion are shared with the parsed tree (a reference, not a copy). Key paths
/// for error messages are closures, called only when a ``MappingError`` is thrown.
///
/// Not thread-bound: a walk runs on one thread, and any number run at once over shared
/// plans and a shared, read-only source tree.
struct MappingWalk {
    /// The mapper's plans, for dynamic mappings' picks (by name).
    let program: MappingProgram
    /// The deepest nesting of mapped objects allowed.
    let maxDepth: Int
    /// The whole body, for `@root` sources (borrowed; nil: `@root` finds nothing).
    let root: JSONPointer?
    /// The response metadata, for `@metadata` sources (borrowed; nil: finds nothing).
    let metadata: JSONPointer?

    /// Maps `node` (borrowed): `null` to `null`, an array element by element (`null`
    /// elements skipped), anything else as one object.
    /// - Parameters:
    ///   - plan: the mapping, from a program that outlives the walk.
    ///   - path: `node`'s key path from the body's root, for error messages.
    ///   - parent: the representation holding `node`, for `@parent` (borrowed; nil at the top).
    /// - Returns: a new reference to the mapped value.
    /// - Throws: ``MappingError`` (nothing is leaked: a partly built result is released).
    func value(_ node: JSONPointer, plan: UnsafePointer<MappingPlan>, path: () -> String, depth: Int,
               parent: JSONPointer?) throws(MappingError) -> JSONPointer {
        switch node.type {
        case JSON_NULL:
            return json_null()
        case JSON_ARRAY:
            let result = json_array()!
            do throws(MappingError) {
                for index in 0..<json_array_size(node) {
                    let element = json_array_get(node, index)!
                    if element.type == JSON_NULL { continue }
                    let mapped = try object(element, plan: plan, path: { "\(path())[\(index)]" }, depth: depth, parent: parent)
                    json_array_append_new(result, mapped)
                }
            } catch {
                json_decref(result)
                throw error
            }
            return result
        default:
            return try object(node, plan: plan, path: path, depth: depth, parent: parent)
        }
    }

    /// Maps one representation (an object, or a scalar for `"@value"` attributes) with `plan`.
    /// - Returns: a new reference to the mapped object.
    private func object(_ node: JSONPointer, plan: UnsafePointer<MappingPlan>, path: () -> String, depth: Int,
                        parent: JSONPointer?) throws(MappingError) -> JSONPointer {
        guard depth < maxDepth else {
            throw MappingError("objects nested deeper than \(maxDepth) levels (mapping \"\(plan.pointee.mapping.name)\")",
                               keyPath: path())
        }
        if plan.pointee.isDynamic {
            let name = try plan.pointee.mapping.dynamic!.pick(for: JSONValue(retaining: node).node, at: path)
            guard let chosen = program.plan(named: name) else {
                throw MappingError("unknown mapping \"\(name)\"", keyPath: path())
            }
            return try object(node, plan: chosen, path: path, depth: depth + 1, parent: parent)
        }
        let result = json_object()!
        do throws(MappingError) {
            try attributes(of: node, plan: plan, into: result, path: path, parent: parent)
            try relationships(of: node, plan: plan, into: result, path: path, depth: depth, parent: parent)
        } catch {
            json_decref(result)
            throw error
        }
        return result
    }

    /// Sets `plan`'s attributes of `node` into `result` (a new object the caller owns), in
    /// order: missing ones left out, `null` as `null`, coerced values as new references.
    private func attributes(of node: JSONPointer, plan: UnsafePointer<MappingPlan>, into result: JSONPointer,
                            path: () -> String, parent: JSONPointer?) throws(MappingError) {
        let attributes = plan.pointee.attributes
        for index in 0..<attributes.count {
            let attribute = attributes[index]
            // The attribute as written, and its key path from the body's root: only for errors.
            func written() -> AttributeMapping { plan.pointee.mapping.attributes[index] }
            func where_() -> String { written().source.appended(to: path()) }
            guard let found = try resolve(attribute.source, rest: { plan.pointee.attributeRest(index) }, in: node,
                                          path: path, parent: parent) else {
                if attribute.required {
                    throw MappingError("required attribute \"\(written().destination)\" of \(plan.pointee.mapping.name) is missing",
                                       keyPath: where_())
                }
                continue
            }
            defer { found.release() }
            let value = found.pointer
            let mapped: JSONPointer
            if value.type == JSON_NULL {
                if attribute.required {
                    throw MappingError("required attribute \"\(written().destination)\" of \(plan.pointee.mapping.name) is null",
                                       keyPath: where_())
                }
                mapped = json_null()
            } else if let type = attribute.type, type != .json, value.type == JSON_ARRAY {
                // An array of scalars: each element coerced, `null` kept.
                mapped = json_array()!
                for position in 0..<json_array_size(value) {
                    let element = json_array_get(value, position)!
                    do {
                        json_array_append_new(mapped, element.type == JSON_NULL ? json_null()
                            : try type.coerce(raw: element, dateFormat: attribute.dateFormat))
                    } catch {
                        json_decref(mapped)
                        throw MappingError(error.message, keyPath: "\(where_())[\(position)]")
                    }
                }
            } else if let type = attribute.type {
                do {
                    mapped = try type.coerce(raw: value, dateFormat: attribute.dateFormat)
                } catch {
                    throw MappingError(error.message, keyPath: where_())
                }
            } else {
                mapped = value.newReference()
            }
            json_object_setn_new_nocheck(result, attribute.destination.chars, attribute.destination.count, mapped)
        }
    }

    /// Sets `plan`'s relationships of `node` into `result`, each mapped with its nested plan
    /// one level deeper, with `node` as the nested objects' `@parent`.
    private func relationships(of node: JSONPointer, plan: UnsafePointer<MappingPlan>, into result: JSONPointer,
                               path: () -> String, depth: Int, parent: JSONPointer?) throws(MappingError) {
        let relationships = plan.pointee.relationships
        for index in 0..<relationships.count {
            let relationship = relationships[index]
            func where_() -> String { plan.pointee.mapping.relationships[index].source.appended(to: path()) }
            guard let found = try resolve(relationship.source, rest: { plan.pointee.relationshipRest(index) }, in: node,
                                          path: path, parent: parent) else {
                continue
            }
            defer { found.release() }
            guard let target = relationship.target else {
                throw MappingError("unknown mapping \"\(plan.pointee.mapping.relationships[index].mapping)\"", keyPath: where_())
            }
            let mapped = try value(found.pointer, plan: target, path: where_, depth: depth + 1, parent: node)
            json_object_setn_new_nocheck(result, relationship.destination.chars, relationship.destination.count, mapped)
        }
    }

    /// A value found by ``resolve(_:rest:in:path:parent:)``: borrowed from the source tree,
    /// or a new array (a path through arrays) that ``release()`` drops.
    private struct Found {
        let pointer: JSONPointer
        let owned: Bool

        /// Drops the reference a full walk made (nothing for a borrowed node).
        func release() {
            if owned { json_decref(pointer) }
        }
    }

    /// The value at `source` for the object `node`, or nil when nothing is found (see
    /// ``JSONKeyPath``'s walking rules). Objects all the way down are walked here on the plan's C
    /// keys; anything else (an array, `null` or a scalar on the way) takes ``JSONKeyPath``'s
    /// full walk of `rest()` (the path after its special root) from the start.
    private func resolve(_ source: PlannedPath, rest: () -> JSONKeyPath, in node: JSONPointer, path: () -> String,
                         parent: JSONPointer?) throws(MappingError) -> Found? {
        let base: JSONPointer
        switch source.root {
        case .node: base = node
        case .root: guard let root else { return nil }; base = root
        case .metadata: guard let metadata else { return nil }; base = metadata
        case .parent: guard let parent else { return nil }; base = parent
        }
        var current = base
        for key in source.keys {
            guard current.isObject else {
                let owner = JSONValue(retaining: base)
                guard let value = try rest().value(in: owner.node, at: source.root == .node ? path() : source.root.name) else {
                    return nil
                }
                return Found(pointer: value.pointer.newReference(), owned: true)
            }
            guard let child = json_object_getn(current, key.chars, key.count) else { return nil }
            current = child
        }
        return Found(pointer: current, owned: false)
    }
}
