import GatewireJSON

/// One operation of the document (a method of a Path Item, OpenAPI 3.0 section 4.7.9, 3.1
/// section 4.8.9), with what the route and the descriptors need.
struct Operation {
    /// The path template as written (`/pets/{petId}`).
    let path: String
    /// The method in upper case (`GET`).
    let method: String
    /// The Operation Object.
    let node: Located
    /// The Path Item it belongs to (after its `$ref`).
    let pathItem: Located

    /// The methods a Path Item may have, in the order the specification lists them.
    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// Every operation under `paths`, paths sorted by their bytes and methods in ``methods``'
    /// order.
    /// - Throws: ``OpenAPIImportError`` for a Path Item `$ref` that cannot be followed.
    static func all(in references: References) throws(OpenAPIImportError) -> [Operation] {
        guard let paths = references.root["paths"] else { return [] }
        var operations: [Operation] = []
        for (path, item) in paths.sortedMembers where !path.hasPrefix("x-") {  // `x-` keys are extensions
            let pathItem = try references.follow(item)
            for method in methods {
                guard let operation = pathItem[method], operation.node.kind == .object else { continue }
                operations.append(Operation(path: path, method: method.uppercased(), node: operation, pathItem: pathItem))
            }
        }
        return operations
    }

    /// The operation's parameters: the Path Item's, replaced by the operation's of the same
    /// `name` and `in` (OpenAPI 3.0 section 4.7.10), each after its `$ref`, sorted by `in` and name.
    func parameters(_ references: References) throws(OpenAPIImportError) -> [(name: String, place: String, node: Located)] {
        var byKey: [String: (name: String, place: String, node: Located)] = [:]
        for list in [pathItem["parameters"], node["parameters"]] {
            for entry in list?.elements ?? [] {
                let parameter = try references.follow(entry)
                guard let name = parameter["name"]?.node.string, let place = parameter["in"]?.node.string else {
                    throw references.error(parameter.location, "a parameter needs a name and an \"in\" (strings)")
                }
                byKey[place + "\u{0}" + name] = (name, place, parameter)
            }
        }
        return byKey.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map(\.value)
    }
}

/// Route names: the operation's `operationId`, or, without one, the method and the path's
/// words (`get_pets_petId` for `GET /pets/{petId}`); a name taken already gets `_2`, `_3`, ...
struct RouteNames {
    private var taken: Set<String> = []

    /// A new unique name for `operation`, and whether its `operationId` was taken already.
    mutating func name(for operation: Operation) -> (name: String, duplicate: Bool) {
        var base: String
        if let id = operation.node["operationId"]?.node.string, !id.isEmpty {
            base = id
        } else {
            let words = operation.path.split(separator: "/").map { segment in
                String(segment.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
                    .split(separator: "_").joined(separator: "_")
            }.filter { !$0.isEmpty }
            base = ([operation.method.lowercased()] + words).joined(separator: "_")
        }
        if taken.insert(base).inserted { return (base, false) }
        var counter = 2
        while !taken.insert("\(base)_\(counter)").inserted { counter += 1 }
        return ("\(base)_\(counter)", operation.node["operationId"] != nil)
    }
}
