import GatewireJSON

/// The request descriptor of an operation's `requestBody` (OpenAPI 3.0 section 4.7.13) whose
/// schema is an object (a union has none: a dynamic mapping cannot build a body): its
/// object type is the route's name (the route's `objectType` names it, so the route's calls
/// turn their object into the body), its mapping the body schema's, its format the media type's:
/// `application/json` (or `+json`) `json`, `application/x-www-form-urlencoded` `form` (Stripe's,
/// Twilio's), `multipart/form-data` `multipart`, preferred in that order.
struct RequestBodies {
    let references: References
    let mappings: MappingBuilder

    /// The media types a request descriptor can write, with their format, in order of preference.
    static let formats: [(media: String, format: String)] = [
        ("application/json", "json"), ("application/x-www-form-urlencoded", "form"), ("multipart/form-data", "multipart"),
    ]

    /// The request descriptor for `operation` routed as `route`, or nil (with a report line
    /// when there is a body it cannot describe).
    func descriptor(of operation: Operation, route: String, report: inout ImportReport) throws(OpenAPIImportError) -> JSONValue? {
        guard let entry = operation.node["requestBody"] else { return nil }
        let body = try references.follow(entry)
        let file = body.location.file.isEmpty ? nil : body.location.file
        guard let content = body["content"], content.node.count > 0 else { return nil }
        let types = content.sortedMembers.map { (base: String($0.key.prefix { $0 != ";" }).lowercased().trimmingSpaces, media: $0.value) }
        var chosen: (format: String, base: String, media: Located)?
        for (media, format) in Self.formats {
            if let match = types.first(where: { $0.base == media || (format == "json" && $0.base.hasSuffix("+json")) }) {
                chosen = (format, match.base, match.media)
                break
            }
        }
        guard let (format, chosenType, media) = chosen else {
            report.add(content.location.pointer, "request_body_not_mapped",
                       "no JSON, form or multipart media type (\(types.map(\.base).joined(separator: ", "))): a call sends its body as it is",
                       document: file)
            return nil
        }
        for other in types where other.media.location != media.location {
            report.add(other.media.location.pointer, "request_media_not_chosen",
                       "the body is sent as \(chosenType) (format \(format)), not as \(other.base)",
                       document: file)
        }
        guard let schema = media["schema"] else { return nil }
        let shape = try mappings.shape(of: schema, report: &report)
        switch shape.kind {
        case .object: break
        case .union:
            report.add(schema.location.pointer, "request_body_not_mapped",
                       "the body is a oneOf/anyOf: a request descriptor needs one concrete mapping (a dynamic one cannot "
                       + "build a body), so a call sends its body as it is", document: file)
            return nil
        case .json where try isEmptyObject(schema):
            return nil  // `properties: {}` and `additionalProperties: false` (Stripe's GETs): nothing to send
        default:
            report.add(schema.location.pointer, "request_body_not_mapped",
                       "the body is not an object (a scalar, an array or free-form JSON): no request descriptor, a call sends its "
                       + "body as it is", document: file)
            return nil
        }
        let descriptor = JSONValue.object()
        descriptor.set("objectType", .string(route))
        descriptor.set("mapping", .string(mappings.mappingName(for: shape, suggested: "\(route).request")))
        descriptor.set("method", .string(operation.method))
        if format != "json" { descriptor.set("format", .string(format)) }
        // An operation's optional properties are optional to send: a key the caller's object
        // lacks is left out, never sent as null (which a form reads as an empty field, and
        // Stripe as "unset this field"; a non-nullable JSON property refuses it).
        descriptor.set("missingAttributes", .string("omit"))
        return descriptor
    }

    /// Whether `schema` is an object that can hold nothing: no properties, none additional.
    private func isEmptyObject(_ schema: Located) throws(OpenAPIImportError) -> Bool {
        let resolved = try references.follow(schema)
        return resolved["properties"]?.node.count == 0 && resolved["additionalProperties"]?.node.bool == false
    }
}
