import GatewireJSON

/// Reads Schema Objects into ``SchemaShape``s: follows `$ref`s, merges every `allOf` member
/// (properties and `required` of all of them, not the first), reads both forms of nullable,
/// and reduces a `oneOf`/`anyOf` with a single non-null member to that member.
struct SchemaAnalyzer {
    let references: References
    /// The schemas read so far by this import, against ``maxSchemaReads``.
    private let reads = Counter()

    /// The most Schema Objects one import reads (Stripe's 4 MB document: about 10,000; the
    /// largest document read, 32 MiB, would need some 80,000). YAML aliases
    /// can make an `allOf` of ten aliases of an `allOf` of ten aliases...: past this the import
    /// stops with an error instead of running for hours.
    static let maxSchemaReads = 250_000

    init(references: References) { self.references = references }

    /// A count shared by the copies of one analyzer.
    private final class Counter { var value = 0 }

    /// The shape of `schema`.
    /// - Throws: ``OpenAPIImportError`` for a dangling or cyclic `$ref`, and for an `allOf`
    ///   that includes itself (directly or through other schemas), naming the place.
    func shape(of schema: Located, report: inout ImportReport) throws(OpenAPIImportError) -> SchemaShape {
        var merging: [Location] = []
        return try shape(of: schema, merging: &merging, report: &report)
    }

    /// The deepest nesting of `allOf`, `oneOf` and `anyOf` followed into one schema.
    static let maxDepth = 64

    private func shape(of original: Located, merging: inout [Location], report: inout ImportReport)
        throws(OpenAPIImportError) -> SchemaShape
    {
        let schema = try references.follow(original)
        reads.value += 1
        guard reads.value <= Self.maxSchemaReads else {
            throw references.error(schema.location, "the document makes more than \(Self.maxSchemaReads) schema reads (YAML "
                + "aliases that repeat allOf, oneOf or anyOf members)")
        }
        guard merging.count < Self.maxDepth else {
            throw references.error(schema.location, "schemas nested deeper than \(Self.maxDepth) levels of allOf, oneOf and anyOf")
        }
        if schema.node.kind == .bool {  // 3.1: `true` is any value, `false` none
            return SchemaShape(kind: .json, nullable: true, location: schema.location)
        }
        guard schema.node.kind == .object else {
            throw references.error(schema.location, "a schema must be an object (or, in 3.1, a boolean), not \(schema.node.kind.name)")
        }
        var nullable = schema["nullable"]?.node.bool == true
        if let allOf = schema["allOf"] {
            return try merged(schema, allOf: allOf, nullable: nullable, merging: &merging, report: &report)
        }
        for keyword in ["oneOf", "anyOf"] {
            guard let list = schema[keyword] else { continue }
            var members: [Located] = []
            for member in list.elements {
                if try isNullSchema(member) { nullable = true } else { members.append(member) }
            }
            if members.count == 1 {
                merging.append(schema.location)
                defer { merging.removeLast() }
                var inner = try shape(of: members[0], merging: &merging, report: &report)
                inner.nullable = inner.nullable || nullable
                return inner
            }
            if let discriminator = schema["discriminator"], members.count > 1 {
                guard discriminator["propertyName"]?.node.string != nil else {
                    report.add(discriminator.location.pointer, "discriminator_without_property",
                               "a discriminator without a propertyName cannot choose a mapping: the \(keyword) is mapped as any "
                               + "JSON value (type json)", document: fileName(discriminator.location))
                    return SchemaShape(kind: .json, nullable: nullable, location: schema.location)
                }
                return SchemaShape(kind: .union(members: members, discriminator: discriminator), nullable: nullable,
                                   location: schema.location)
            }
            report.add(list.location.pointer, "union_as_json",
                       "a \(keyword) of \(members.count) schemas without a discriminator is mapped as any JSON value (type json): "
                       + "nothing in the document says which schema an object follows", document: fileName(list.location))
            return SchemaShape(kind: .json, nullable: nullable, location: schema.location)
        }
        if let discriminator = schema["discriminator"] {
            report.add(discriminator.location.pointer, "discriminator_without_union",
                       "a discriminator outside a oneOf or anyOf is ignored (the schema maps as itself)",
                       document: fileName(discriminator.location))
        }
        var type = schema["type"]?.node.string
        if let types = schema["type"], types.node.kind == .array {
            let named = types.node.elements.compactMap(\.string)
            nullable = nullable || named.contains("null")
            let others = named.filter { $0 != "null" }
            if others.count != 1 {
                if others.count > 1 {
                    report.add(types.location.pointer, "several_types_as_json",
                               "a value of the types \(others.joined(separator: ", ")) is mapped as any JSON value (type json)",
                               document: fileName(types.location))
                }
                return SchemaShape(kind: .json, nullable: nullable, location: schema.location)
            }
            type = others[0]
        }
        if type == nil {
            if schema["properties"] != nil { type = "object" }
            else if schema["items"] != nil { type = "array" }
            else if let first = schema["enum"]?.node.elements.first(where: { !$0.isNull }) {
                type = switch first.kind {
                case .string: "string"
                case .integer: "integer"
                case .real: "number"
                case .bool: "boolean"
                default: nil
                }
            }
        }
        let kind: SchemaShape.Kind
        switch type {
        case "object":
            let properties = schema["properties"]?.sortedMembers.map { (name: $0.key, schema: $0.value) } ?? []
            kind = properties.isEmpty ? .json : .object(properties: properties, required: requiredNames(schema))
        case "array": kind = .array(items: schema["items"])
        case "integer":
            kind = schema["format"]?.node.string == "unix-time" ? .scalar(type: "date", dateFormat: "epochSeconds")
                : .scalar(type: "integer", dateFormat: nil)
        case "number": kind = .scalar(type: "number", dateFormat: nil)
        case "boolean": kind = .scalar(type: "boolean", dateFormat: nil)
        case "string":
            switch schema["format"]?.node.string {
            case "date-time", "date": kind = .scalar(type: "date", dateFormat: "iso8601")
            default: kind = .scalar(type: "string", dateFormat: nil)
            }
        case "null": return SchemaShape(kind: .json, nullable: true, location: schema.location)
        default: kind = .json
        }
        return SchemaShape(kind: kind, nullable: nullable, location: schema.location)
    }

    /// An `allOf`: the object whose properties and `required` are those of every member (and
    /// of the schema itself), a later member's property replacing an earlier one's; when no
    /// member is an object, the first member's shape.
    private func merged(_ schema: Located, allOf: Located, nullable: Bool, merging: inout [Location],
                        report: inout ImportReport) throws(OpenAPIImportError) -> SchemaShape
    {
        if let start = merging.firstIndex(of: schema.location) {  // the chain leads back to this allOf
            let cycle = (merging[start...] + [schema.location]).map(references.describe).joined(separator: " -> ")
            throw references.error(schema.location, "a cyclic allOf: \(cycle)")
        }
        merging.append(schema.location)
        defer { merging.removeLast() }
        let members = allOf.elements
        if members.count == 1, schema["properties"] == nil, schema["required"] == nil {
            // `allOf: [$ref]` with a description beside it (Spotify's album): the member itself.
            var inner = try shape(of: members[0], merging: &merging, report: &report)
            inner.nullable = inner.nullable || nullable
            return inner
        }
        var properties: [String: Located] = [:]
        var required: Set<String> = []
        var first: SchemaShape?
        var isObject = false
        for member in members {
            let part = try shape(of: member, merging: &merging, report: &report)
            first = first ?? part
            if case .object(let memberProperties, let memberRequired) = part.kind {
                isObject = true
                for (name, property) in memberProperties { properties[name] = property }
                required.formUnion(memberRequired)
            }
        }
        if let own = schema["properties"] {
            isObject = true
            for (name, property) in own.sortedMembers { properties[name] = property }
        }
        required.formUnion(requiredNames(schema))
        guard isObject else {
            var shape = first ?? SchemaShape(kind: .json, nullable: nullable, location: schema.location)
            shape.location = schema.location
            shape.nullable = shape.nullable || nullable
            return shape
        }
        let sorted = properties.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { (name: $0.key, schema: $0.value) }
        return SchemaShape(kind: .object(properties: sorted, required: required), nullable: nullable, location: schema.location)
    }

    /// The names listed in `required` (strings only).
    private func requiredNames(_ schema: Located) -> Set<String> {
        Set(schema["required"]?.node.elements.compactMap(\.string) ?? [])
    }

    /// Whether `member` only allows null (`type: "null"`, `enum: [null]`, 3.0's
    /// `nullable: true` with no type).
    private func isNullSchema(_ member: Located) throws(OpenAPIImportError) -> Bool {
        let schema = try references.follow(member)
        if schema["type"]?.node.string == "null" { return true }
        if let values = schema["enum"]?.node.elements, !values.isEmpty, values.allSatisfy(\.isNull) { return true }
        return false
    }

    /// The file a report line names for `location` (nil: the document).
    func fileName(_ location: Location) -> String? { location.file.isEmpty ? nil : location.file }
}
