import GatewireJSON

/// Builds the config's `mappings` from schemas: one mapping per component schema that is an
/// object or a discriminated union (named as the component), and one per inline object a
/// property, an array or a response holds (named after where it is: `Pet.owner`,
/// `listPets.response`).
///
/// Per property: a scalar is an attribute of its type (`integer`, `number`, `boolean`,
/// `string`; `date` for `format: date-time`/`date` (ISO 8601) and `integer` with Stripe's
/// `format: unix-time` (epoch seconds)), `required` when the schema requires it and it is not
/// nullable; an object or a discriminated union is a relationship to its mapping; an array
/// of scalars is a typed attribute (each element coerced), an array of objects a
/// relationship; anything else (free-form objects, unions without a discriminator, arrays of
/// arrays) a `json` attribute. Mappings are built from a queue, never by recursion, so a
/// recursive schema is a relationship to its own mapping.
final class MappingBuilder {
    private let references: References
    private let analyzer: SchemaAnalyzer
    /// The mappings built, by name.
    private(set) var mappings: [String: JSONValue] = [:]
    /// The mapping name of each schema given one (its location after `$ref`s).
    private var names: [Location: String] = [:]
    /// The schema each name was given to.
    private var owners: [String: Location] = [:]
    /// Schemas named but not built yet.
    private var pending: [(name: String, shape: SchemaShape)] = []

    init(references: References) {
        self.references = references
        analyzer = SchemaAnalyzer(references: references)
    }

    /// The shape of `schema` (see ``SchemaAnalyzer``).
    func shape(of schema: Located, report: inout ImportReport) throws(OpenAPIImportError) -> SchemaShape {
        try analyzer.shape(of: schema, report: &report)
    }

    /// Names and builds a mapping for every component schema of the document that is an object
    /// or a discriminated union (sorted by name, so that the components keep their own names
    /// whatever else is named first).
    func addComponents(report: inout ImportReport) throws(OpenAPIImportError) {
        guard let schemas = references.root["components"]?["schemas"] else { return }
        for (name, _) in schemas.sortedMembers {
            owners[name] = schemas.location.appending(name)
        }
        for (_, schema) in schemas.sortedMembers {
            let shape = try analyzer.shape(of: schema, report: &report)
            switch shape.kind {
            case .object, .union: _ = mappingName(for: shape, suggested: "")
            default: break  // scalars and arrays are written where they are used
            }
        }
        try finish(report: &report)
    }

    /// The name of the mapping of `shape` (an object or a union), giving it one and queueing
    /// it when it has none: a component's own name, else `suggested` (made unique with `_2`,
    /// `_3`, ...).
    func mappingName(for shape: SchemaShape, suggested: String) -> String {
        if let name = names[shape.location] { return name }
        var name = componentName(shape.location) ?? suggested
        if let owner = owners[name], owner != shape.location {
            var counter = 2
            while owners["\(name)_\(counter)"] != nil { counter += 1 }
            name = "\(name)_\(counter)"
        }
        owners[name] = shape.location
        names[shape.location] = name
        pending.append((name, shape))
        return name
    }

    /// The most mappings one import makes (Stripe's 4 MB document makes 1,398; the largest
    /// document read, 32 MiB, some 11,000). A YAML document's
    /// aliases can name one inline schema from many places, each a mapping of its own, so a
    /// small text can stand for billions of them: past this the import stops with an error
    /// instead of running for hours.
    static let maxMappings = 25_000

    /// Builds every queued mapping (and those they queue in turn).
    /// - Throws: ``OpenAPIImportError`` at the schema that would be one mapping more than
    ///   ``maxMappings``, and what building one throws.
    func finish(report: inout ImportReport) throws(OpenAPIImportError) {
        while let (name, shape) = pending.popLast() {
            if mappings[name] != nil { continue }
            guard mappings.count < Self.maxMappings else {
                throw references.error(shape.location, "the schemas make more than \(Self.maxMappings) mappings (YAML aliases "
                    + "that repeat inline schemas, each a mapping of its own where it is used)")
            }
            mappings[name] = try build(name, shape, report: &report)
        }
    }

    /// The name a component schema gives its mapping: the key under `components/schemas` (the
    /// last pointer token for a schema elsewhere in another file), or nil for an inline schema.
    private func componentName(_ location: Location) -> String? {
        guard let tokens = JSONPointerText.tokens(of: location.pointer) else { return nil }
        if tokens.count == 3, tokens[0] == "components", tokens[1] == "schemas" { return tokens[2] }
        if !location.file.isEmpty {  // a schema file (`Pet.yaml`, `schemas.yaml#/Pet`)
            if let last = tokens.last { return last }
            let file = location.file.split(separator: "/").last.map(String.init) ?? location.file
            return String(file.prefix { $0 != "." })
        }
        return nil
    }

    private func build(_ name: String, _ shape: SchemaShape, report: inout ImportReport) throws(OpenAPIImportError) -> JSONValue {
        let mapping = JSONValue.object()
        switch shape.kind {
        case .object(let properties, let required):
            let attributes = JSONValue.object()
            let relationships = JSONValue.object()
            for (property, schema) in properties {
                try addField(property, schema, required: required.contains(property), parent: name,
                             attributes: attributes, relationships: relationships, report: &report)
            }
            if attributes.node.count > 0 { mapping.set("attributes", attributes) }
            if relationships.node.count > 0 { mapping.set("relationships", relationships) }
        case .union(let members, let discriminator):
            mapping.set("dynamic", try dynamic(name, members: members, discriminator: discriminator, report: &report))
        default:
            break  // only objects and unions are queued
        }
        return mapping
    }

    /// One property of an object, as an attribute or a relationship.
    private func addField(_ property: String, _ schema: Located, required: Bool, parent: String,
                          attributes: JSONValue, relationships: JSONValue, report: inout ImportReport)
        throws(OpenAPIImportError)
    {
        if property.isEmpty || property.hasPrefix("@") {
            report.add(schema.location.pointer, "property_name_not_mappable",
                       "the property \"\(property)\" is not mapped: a mapping source that is empty or starts with \"@\" "
                       + "reads the value itself or its metadata, not this member", document: analyzer.fileName(schema.location))
            return
        }
        let source = property.replacingAll(".", with: "\\.")  // a dot in a key is escaped, not a key path
        let shape = try analyzer.shape(of: schema, report: &report)
        let field = JSONValue.object()
        if source != property { field.set("to", .string(property)) }
        func attribute(_ type: String, _ dateFormat: String?) {
            field.set("type", .string(type))
            if let dateFormat { field.set("dateFormat", .string(dateFormat)) }
            if required, !shape.nullable { field.set("required", .bool(true)) }
            attributes.set(source, field)
        }
        func relationship(_ target: SchemaShape) {
            field.set("mapping", .string(mappingName(for: target, suggested: "\(parent).\(property)")))
            relationships.set(source, field)
        }
        switch shape.kind {
        case .scalar(let type, let dateFormat): attribute(type, dateFormat)
        case .json: attribute("json", nil)
        case .object, .union: relationship(shape)
        case .array(let items):
            guard let items else { return attribute("json", nil) }
            let element = try analyzer.shape(of: items, report: &report)
            switch element.kind {
            case .scalar(let type, let dateFormat): attribute(type, dateFormat)
            case .object, .union: relationship(element)
            case .json, .array: attribute("json", nil)
            }
        }
    }

    /// The `dynamic` object of a discriminated union: the discriminator's property as the key
    /// path, and each value to its member's mapping: the discriminator's `mapping` first, then
    /// for each member it leaves out the member's own single `enum` value of that property,
    /// else its component name (OpenAPI's implicit value).
    private func dynamic(_ name: String, members: [Located], discriminator: Located, report: inout ImportReport)
        throws(OpenAPIImportError) -> JSONValue
    {
        let property = discriminator["propertyName"]?.node.string ?? ""
        let values = JSONValue.object()
        var covered: Set<Location> = []
        if let explicit = discriminator["mapping"] {
            for (value, target) in explicit.sortedMembers {
                guard let text = target.node.string else { throw references.error(target.location, "a discriminator mapping value must be a string") }
                let reference = text.contains("#") || text.contains("/") || text.hasSuffix(".json") || text.hasSuffix(".yaml")
                    ? text : "#/components/schemas/" + text
                let schema = try references.follow(try references.resolve(reference, at: target.location))
                let shape = try analyzer.shape(of: schema, report: &report)
                guard case .object = shape.kind else {
                    report.add(target.location.pointer, "discriminator_member_not_object",
                               "the value \"\(value)\" names a schema that is not an object: objects with it fail to map",
                               document: analyzer.fileName(target.location))
                    continue
                }
                covered.insert(shape.location)
                values.set(value, .string(mappingName(for: shape, suggested: "\(name).\(value)")))
            }
        }
        for (index, member) in members.enumerated() {
            let shape = try analyzer.shape(of: member, report: &report)
            guard !covered.contains(shape.location) else { continue }
            guard case .object(let properties, _) = shape.kind else {
                report.add(member.location.pointer, "discriminator_member_not_object",
                           "a member that is not an object cannot be chosen by the discriminator \"\(property)\": left out",
                           document: analyzer.fileName(member.location))
                continue
            }
            var value: String?
            if let schema = properties.first(where: { $0.name == property })?.schema,
               let values = try references.follow(schema)["enum"]?.node.elements, values.count == 1 {
                value = values[0].string
            }
            value = value ?? componentName(shape.location)
            guard let value else {
                report.add(member.location.pointer, "discriminator_value_unknown",
                           "an inline member has no single enum value of \"\(property)\" and no component name: left out",
                           document: analyzer.fileName(member.location))
                continue
            }
            values.set(value, .string(mappingName(for: shape, suggested: "\(name).\(index)")))
        }
        let dynamic = JSONValue.object()
        dynamic.set("keyPath", .string(property.replacingAll(".", with: "\\.")))
        dynamic.set("mappings", values)
        return dynamic
    }
}
