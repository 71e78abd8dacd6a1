import GatewireJSON

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
///
/// The mappings are compiled once, when the mapper is made (`MappingPlan`); each call walks
/// the source tree on raw Jansson pointers and builds the result with Jansson directly
/// (`MappingWalk`).
package struct ObjectMapper: Sendable {
    /// The mappings by name.
    package let mappings: [String: ObjectMapping]
    /// The deepest nesting of mapped objects allowed (default 128).
    package var maxDepth: Int
    /// `mappings` compiled.
    let program: MappingProgram

    /// - Parameter mappings: the mappings relationships may refer to; a later mapping with
    ///   the same name replaces an earlier one.
    /// - Parameter maxDepth: the deepest nesting of mapped objects allowed.
    package init(mappings: [ObjectMapping], maxDepth: Int = 128) {
        var byName: [String: ObjectMapping] = [:]
        for mapping in mappings { byName[mapping.name] = mapping }
        self.mappings = byName
        self.maxDepth = maxDepth
        program = MappingProgram(byName.keys.sorted().map { byName[$0]! })
    }

    /// Maps `node` (an object, an array of objects, or a scalar for `"@value"` mappings) with
    /// the mapping called `name`.
    /// - Parameters:
    ///   - node: the representation to map.
    ///   - name: the name of the mapping to apply.
    ///   - keyPath: where `node` is in the body, for error messages.
    ///   - context: the body and response metadata for `@root` and `@metadata` sources.
    ///   - parent: the representation holding `node`, for `@parent` sources (nil at the top).
    /// - Throws: ``MappingError`` for an unknown mapping name, a required attribute missing or
    ///   `null`, a value that cannot be coerced, or a key path running into a scalar.
    package func map(_ node: JSONNode, with name: String, at keyPath: String = "", context: MappingContext = .none,
                    parent: JSONNode? = nil) throws(MappingError) -> JSONValue {
        guard let plan = program.plan(named: name) else { throw MappingError("unknown mapping \"\(name)\"", keyPath: keyPath) }
        return try map(node, plan: plan, at: keyPath, context: context, parent: parent)
    }

    /// Maps `node` with `mapping` (see ``map(_:with:at:context:parent:)-(_,String,_,_,_)``).
    package func map(_ node: JSONNode, with mapping: ObjectMapping, at keyPath: String = "",
                    context: MappingContext = .none, parent: JSONNode? = nil) throws(MappingError) -> JSONValue {
        if let plan = program.plan(named: mapping.name), program.mappings[plan.pointee.index] == mapping {
            return try map(node, plan: plan, at: keyPath, context: context, parent: parent)
        }
        // Not one of this mapper's mappings: compiled for this call, its relationships
        // resolved against the mapper's.
        let adHoc = MappingProgram([mapping], base: program)
        return try withExtendedLifetime(adHoc) { () throws(MappingError) in
            try map(node, plan: UnsafePointer(adHoc.plans.baseAddress!), at: keyPath, context: context, parent: parent)
        }
    }

    /// Maps with a plan of `program` (or of a program based on it that the caller keeps alive).
    private func map(_ node: JSONNode, plan: UnsafePointer<MappingPlan>, at keyPath: String, context: MappingContext,
                     parent: JSONNode?) throws(MappingError) -> JSONValue {
        let walk = MappingWalk(program: program, maxDepth: maxDepth, root: context.root?.pointer,
                               metadata: context.metadata?.pointer)
        // The walk borrows every source node: the trees stay alive through these owners.
        let mapped = try withExtendedLifetime((node.owner, parent?.owner, context)) { () throws(MappingError) in
            try walk.value(node.pointer, plan: plan, path: { keyPath }, depth: 0, parent: parent?.pointer)
        }
        return JSONValue(taking: mapped)
    }
}
