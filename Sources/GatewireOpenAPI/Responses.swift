import GatewireJSON

/// The response and error descriptors of one operation, from its Responses Object: for each
/// status key with a JSON body (`application/json` or a `+json` type), the mapping of the
/// body's schema at the right key path, for the route's method and pattern.
///
/// Where the mapping is:
/// - an object schema: its mapping at the body (`""`); an inline list wrapper, an object whose
///   one array of objects sits beside scalars only (Stripe's `{"object": "list", "data": [...],
///   "has_more"}`, Twilio's `{"accounts": [...], "next_page_uri"}`), maps that array's
///   elements at its key (`data`);
/// - an array of objects: the elements' mapping at the body;
/// - a discriminated union: its dynamic mapping at the body;
/// - anything else (a scalar, free-form JSON) is not mapped (a report line): the caller reads
///   the body as it is.
struct Responses {
    /// A descriptor before it is written: the config's fields.
    struct Descriptor {
        var mapping: String
        var keyPath: String
        var ranges: [ClosedRange<Int>]
        var isError: Bool

        /// The same mapping at the same key path for the same kind (merged into one descriptor).
        var signature: String { "\(isError) \(keyPath) \(mapping)" }
    }

    let references: References
    let mappings: MappingBuilder

    /// The descriptors of `operation` (routed as `route`), codes of the same mapping and key
    /// path merged into one descriptor.
    func descriptors(of operation: Operation, route: String, report: inout ImportReport) throws(OpenAPIImportError) -> [Descriptor] {
        guard let responses = operation.node["responses"] else { return [] }
        let members = responses.sortedMembers.filter { !$0.key.hasPrefix("x-") }  // `x-` keys are extensions
        let codes = StatusCodes(keys: members.map(\.key))
        var result: [Descriptor] = []
        let several = members.filter { StatusCodes.isKnown($0.key) }.count > 1
        for (key, entry) in members {
            guard let ranges = codes.byKey[key] else {
                report.add(entry.location.pointer, "response_key_unknown",
                           "\"\(key)\" is not a status code, a class like 2XX or default: its response is not mapped", document: file(entry))
                continue
            }
            let response = try references.follow(entry)
            if response["links"] != nil {
                report.add(response.location.pointer + "/links", "links_not_imported",
                           "response links (operations to call with values of this response) are not part of a gateway config",
                           document: file(response))
            }
            guard let content = response["content"], content.node.count > 0 else { continue }  // no body to map
            guard let media = Self.jsonMedia(content) else {
                report.add(content.location.pointer, "response_not_json",
                           "no JSON media type (\(content.sortedMembers.map(\.key).joined(separator: ", "))): the body is not mapped "
                           + "(a call returns it as it is)", document: file(content))
                continue
            }
            guard !ranges.isEmpty, StatusCodes.isSuccess(ranges) || StatusCodes.isFailure(ranges) else {
                report.add(entry.location.pointer, "response_status_not_mapped",
                           "only 2xx, 4xx and 5xx bodies are mapped (a \(key) response is not an outcome with a body)", document: file(entry))
                continue
            }
            guard let schema = media["schema"] else { continue }  // a body the document does not describe
            let isError = StatusCodes.isFailure(ranges)
            let suggested = "\(route).\(isError ? "error" : "response")" + (several ? ".\(key)" : "")
            guard let (mapping, keyPath) = try target(of: schema, suggested: suggested, report: &report) else { continue }
            let descriptor = Descriptor(mapping: mapping, keyPath: keyPath, ranges: ranges, isError: isError)
            if let index = result.firstIndex(where: { $0.signature == descriptor.signature }) {
                result[index].ranges += ranges
            } else {
                result.append(descriptor)
            }
        }
        return result
    }

    /// The mapping and key path of a response body's schema, or nil (with a report line) when
    /// it has no object to map.
    private func target(of schema: Located, suggested: String, report: inout ImportReport)
        throws(OpenAPIImportError) -> (String, String)?
    {
        let shape = try mappings.shape(of: schema, report: &report)
        switch shape.kind {
        case .object(let properties, _):
            if shape.location == schema.location, let (key, items) = try listWrapper(properties, report: &report) {
                return (mappings.mappingName(for: items, suggested: suggested + "." + key), key.replacingAll(".", with: "\\."))
            }
            return (mappings.mappingName(for: shape, suggested: suggested), "")
        case .union:
            return (mappings.mappingName(for: shape, suggested: suggested), "")
        case .array(let items?):
            let element = try mappings.shape(of: items, report: &report)
            switch element.kind {
            case .object, .union: return (mappings.mappingName(for: element, suggested: suggested), "")
            default: break
            }
        default:
            break
        }
        report.add(schema.location.pointer, "response_without_mapping",
                   "the body is not an object or an array of objects (a scalar, free-form JSON, a union without a "
                   + "discriminator): no mapping, a call returns it "
                   + "as it is", document: file(schema))
        return nil
    }

    /// The key and element shape of an inline list wrapper: exactly one property is an array of
    /// objects (or of a discriminated union), every other one a scalar.
    private func listWrapper(_ properties: [(name: String, schema: Located)], report: inout ImportReport)
        throws(OpenAPIImportError) -> (String, SchemaShape)?
    {
        var found: (String, SchemaShape)?
        for (name, schema) in properties {
            let shape = try mappings.shape(of: schema, report: &report)
            switch shape.kind {
            case .scalar: continue
            case .array(let items?):
                let element = try mappings.shape(of: items, report: &report)
                switch element.kind {
                case .object, .union:
                    guard found == nil else { return nil }
                    found = (name, element)
                default: return nil
                }
            default: return nil
            }
        }
        return found
    }

    /// The JSON media type of a Content map: `application/json` (parameters ignored), else the
    /// first `+json` type by name, else nil.
    static func jsonMedia(_ content: Located) -> Located? {
        let types = content.sortedMembers
        func base(_ key: String) -> String {
            String(key.prefix { $0 != ";" }).lowercased().trimmingSpaces
        }
        if let json = types.first(where: { base($0.key) == "application/json" }) { return json.value }
        return types.first(where: { base($0.key).hasSuffix("+json") })?.value
    }

    private func file(_ located: Located) -> String? { located.location.file.isEmpty ? nil : located.location.file }
}

extension String {
    /// This text without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
