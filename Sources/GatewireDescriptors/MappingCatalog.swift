import GatewireBase
import GatewireJSON
import GatewireMapping

/// Everything about mapping from one gateway config: the named mappings and the request,
/// response and error descriptors, with every mapping reference checked.
///
/// Built once (from config or Swift builders), then read-only and `Sendable`. The
/// ``ResponseMapper`` uses it to decide what a response means; ``requestBody(for:objectType:method:)``
/// builds request bodies.
package struct MappingCatalog: Sendable {
    /// The mappings in declaration order.
    package let mappings: [ObjectMapping]
    /// Applies the mappings (by name).
    package let mapper: ObjectMapper
    /// Request descriptors in registration order.
    package let requestDescriptors: [RequestDescriptor]
    /// Response descriptors in registration order (later ones win ties).
    package let responseDescriptors: [ResponseDescriptor]
    /// Error descriptors in registration order.
    package let errorDescriptors: [ResponseDescriptor]

    /// A catalog with no mappings and no descriptors: every 2xx is accepted, nothing is mapped.
    package static let empty = MappingCatalog(emptyCatalog: ())

    private init(emptyCatalog: Void) {
        mappings = []
        mapper = ObjectMapper(mappings: [])
        requestDescriptors = []
        responseDescriptors = []
        errorDescriptors = []
    }

    /// The Swift builder form.
    /// - Throws: ``ConfigError`` when a descriptor or relationship names an unknown mapping
    ///   (paths as in config, e.g. `responseDescriptors[0].mapping`), or two mappings share a name.
    package init(mappings: [ObjectMapping], requestDescriptors: [RequestDescriptor] = [],
                responseDescriptors: [ResponseDescriptor] = [], errorDescriptors: [ResponseDescriptor] = [])
        throws(ConfigError)
    {
        var seen: Set<String> = []
        for mapping in mappings where !seen.insert(mapping.name).inserted {
            throw ConfigError(path: "mappings.\(mapping.name)", message: "a mapping with this name already exists")
        }
        self.mappings = mappings
        self.mapper = ObjectMapper(mappings: mappings)
        self.requestDescriptors = requestDescriptors
        self.responseDescriptors = responseDescriptors
        self.errorDescriptors = errorDescriptors
        try checkReferences()
    }

    /// Reads the root keys `mappings`, `requestDescriptors`, `responseDescriptors` and
    /// `errorDescriptors` of a gateway config (all optional); other root keys are left to
    /// their owners.
    /// - Throws: ``ConfigError`` naming the field: unknown fields inside mappings and
    ///   descriptors, wrong types, bad patterns or status codes, and unknown mapping names
    ///   (`responseDescriptors[0].mapping: unknown mapping "Usr" (known: Address, User)`).
    package init(config root: ConfigNode) throws(ConfigError) {
        var mappings: [ObjectMapping] = []
        if let node = try root.optional("mappings") {
            for (name, value) in try node.members() { mappings.append(try ObjectMapping(config: value, name: name)) }
        }
        func list<T>(_ key: String, _ make: (ConfigNode) throws(ConfigError) -> T) throws(ConfigError) -> [T] {
            guard let node = try root.optional(key) else { return [] }
            var result: [T] = []
            for element in try node.elements() { result.append(try make(element)) }
            return result
        }
        try self.init(
            mappings: mappings,
            requestDescriptors: list("requestDescriptors") { node throws(ConfigError) in try RequestDescriptor(config: node) },
            responseDescriptors: list("responseDescriptors") { node throws(ConfigError) in
                try ResponseDescriptor(config: node, defaultStatusCodes: .successful)
            },
            errorDescriptors: list("errorDescriptors") { node throws(ConfigError) in
                try ResponseDescriptor(config: node, defaultStatusCodes: .failures)
            })
    }

    /// The mapping called `name`, if any.
    package func mapping(named name: String) -> ObjectMapping? { mapper.mappings[name] }

    /// The request descriptor for an object type and method: the last registered one whose
    /// `objectType` equals `objectType` (or is nil) and whose methods include `method`;
    /// an exact `objectType` beats a descriptor without one.
    package func requestDescriptor(objectType: String?, method: HTTPMethod) -> RequestDescriptor? {
        let candidates = requestDescriptors.filter { $0.methods.contains(method) }
        return candidates.last { $0.objectType != nil && $0.objectType == objectType }
            ?? candidates.last { $0.objectType == nil }
    }

    /// The request body for `object` built by the matching request descriptor, or nil when
    /// none matches (the caller then sends `object` as it is).
    /// - Throws: ``MappingError`` from ``RequestDescriptor/body(for:mapper:)``.
    package func requestBody(for object: JSONNode, objectType: String?, method: HTTPMethod) throws(MappingError) -> JSONValue? {
        try requestDescriptor(objectType: objectType, method: method)?.body(for: object, mapper: mapper)
    }

    /// Legal but suspicious setups, one sentence each:
    /// - two response (or error) descriptors with overlapping methods and statuses, the same
    ///   key path, and the same pattern or equally specific patterns that can match the same
    ///   path (``PathPattern/ties(with:)``): the later one wins (as RestKit; issues #1725, #2075);
    /// - a response descriptor listing 4xx/5xx codes: those responses are failures, so its
    ///   objects become error objects;
    /// - an error descriptor listing only 2xx codes: never used;
    /// - two request descriptors for the same object type and an overlapping method.
    package func warnings() -> [String] {
        var warnings: [String] = []
        for (label, list) in [("responseDescriptors", responseDescriptors), ("errorDescriptors", errorDescriptors)] {
            for (j, later) in list.enumerated() {
                for (i, earlier) in list[..<j].enumerated()
                where !earlier.methods.isDisjoint(with: later.methods) && earlier.keyPath == later.keyPath
                    && earlier.statusCodes.overlaps(later.statusCodes) {
                    if earlier.pathPattern?.pattern == later.pathPattern?.pattern {
                        warnings.append("\(label)[\(j)] has the same method, pathPattern and keyPath as \(label)[\(i)] (\(later)); the later one wins")
                    } else if let a = earlier.pathPattern, let b = later.pathPattern, a.ties(with: b) {
                        warnings.append("\(label)[\(j)] (\(later)) and \(label)[\(i)] (\(earlier)) are ambiguous: equally specific patterns that can match the same path with the same keyPath; the later one wins")
                    }
                }
            }
        }
        for (index, descriptor) in responseDescriptors.enumerated() where descriptor.statusCodes.overlaps(.failures) {
            warnings.append("responseDescriptors[\(index)].statusCodes (\(descriptor.statusCodes)) lists 4xx/5xx codes: such responses always fail, so its objects become errorObjects; an errorDescriptor says so more clearly")
        }
        for (index, descriptor) in errorDescriptors.enumerated()
        where !descriptor.statusCodes.overlaps(StatusCodeSet(ranges: [100...199, 300...599])) {
            warnings.append("errorDescriptors[\(index)].statusCodes (\(descriptor.statusCodes)) lists only 2xx codes: error descriptors are used only on failures, so it never applies")
        }
        for (j, later) in requestDescriptors.enumerated() {
            for (i, earlier) in requestDescriptors[..<j].enumerated()
            where earlier.objectType == later.objectType && !earlier.methods.isDisjoint(with: later.methods) {
                warnings.append("requestDescriptors[\(j)] has the same objectType (\(later.objectType ?? "any")) and an overlapping method as requestDescriptors[\(i)]; the later one wins")
            }
        }
        return warnings
    }

    private func checkReferences() throws(ConfigError) {
        let known = Set(mappings.map(\.name))
        func check(_ name: String, _ path: String) throws(ConfigError) {
            guard !known.contains(name) else { return }
            let list = known.sorted().joined(separator: ", ")
            throw ConfigError(path: path, message: "unknown mapping \"\(name)\" (known: \(list.isEmpty ? "none" : list))")
        }
        for mapping in mappings {
            for relationship in mapping.relationships {
                let source = relationship.source.isRoot ? "@value" : relationship.source.description
                try check(relationship.mapping, "mappings.\(mapping.name).relationships.\(source).mapping")
            }
            for name in mapping.dynamic?.mappingNames ?? [] { try check(name, "mappings.\(mapping.name).dynamic") }
        }
        for (index, descriptor) in requestDescriptors.enumerated() { try check(descriptor.mapping, "requestDescriptors[\(index)].mapping") }
        for (index, descriptor) in responseDescriptors.enumerated() { try check(descriptor.mapping, "responseDescriptors[\(index)].mapping") }
        for (index, descriptor) in errorDescriptors.enumerated() { try check(descriptor.mapping, "errorDescriptors[\(index)].mapping") }
    }
}

extension MappingCatalog {
    /// A ``ResponseMapper`` over this catalog.
    package var responseMapper: ResponseMapper { ResponseMapper(catalog: self) }

    /// What `response` means: the same as `ResponseMapper(catalog: self).map(response)`.
    package func map(_ response: MappableResponse) -> MappingOutcome { responseMapper.map(response) }
}
