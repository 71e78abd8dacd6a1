import GatewireJSON

/// What an import made: the gateway config, the report of what it could not express, and the
/// counts a caller shows.
public struct OpenAPIImport: Sendable {
    /// The gateway config as JSON text: keys sorted, two spaces of indentation, descriptors in a
    /// fixed order, ended by a newline; the same document always gives the same bytes.
    public let config: String
    /// What was dropped or approximated, one line per place.
    public let report: ImportReport
    /// The operations under the document's `paths`.
    public let operationCount: Int
    /// The routes made (an operation whose path no pattern can express has a report line instead).
    public let routeCount: Int
}

/// Imports an OpenAPI 3.0 or 3.1 document (JSON or YAML, with local `$ref`s, also to other
/// files) as a gateway config that `gatewire check` accepts, and reports what the config
/// cannot express. Every rule is in docs/openapi.md.
///
/// Pure: reads the document's files and nothing else, no network; safe on any thread (each
/// call has its own state).
public enum OpenAPIImporter {
    /// Imports the document at `path` (files its `$ref`s name are read relative to its folder).
    /// - Parameter server: the index of the `servers` entry that gives `baseURL` (nil: the first).
    /// - Throws: ``OpenAPIImportError`` naming the file and the place: a file that cannot be
    ///   read or parsed, a document that is not OpenAPI 3.0/3.1, a dangling or cyclic `$ref`, a
    ///   cyclic `allOf`, a `server` out of range.
    public static func importDocument(atPath path: String, server: Int? = nil) throws(OpenAPIImportError) -> OpenAPIImport {
        let document = try DocumentLoader.load(path: path, name: path)
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        return try run(References(document: document, name: path, folder: folder.isEmpty ? "/" : folder), server: server)
    }

    /// Imports the document `text` (JSON or YAML); `name` is how errors name it. A `$ref` to
    /// another file is an error (there is no folder to read it from).
    public static func importDocument(text: String, name: String = "document", server: Int? = nil)
        throws(OpenAPIImportError) -> OpenAPIImport
    {
        var text = text
        let parsed = text.withUTF8 { bytes in
            Result { () throws(OpenAPIImportError) in try DocumentLoader.parse(UnsafeRawBufferPointer(bytes), name: name) }
        }
        let document = try parsed.get()
        return try run(References(document: document, name: name, folder: nil), server: server)
    }

    private static func run(_ references: References, server: Int?) throws(OpenAPIImportError) -> OpenAPIImport {
        let root = references.root
        try checkVersion(root, references)
        var report = ImportReport()
        let config = JSONValue.object()
        let baseURL = try Servers.baseURL(references, index: server, report: &report)
        config.set("baseURL", .string(baseURL))
        let mappings = MappingBuilder(references: references)
        try mappings.addComponents(report: &report)
        let (auth, headers, plugins) = try Security(references: references).build(try Operation.all(in: references), report: &report)
        if let auth { config.set("auth", auth) }
        if let headers { config.set("headers", headers) }
        if let plugins { config.set("plugins", plugins) }
        let routes = try RouteBuilder(references: references, mappings: mappings, baseURL: baseURL)
            .build(report: &report)
        for (name, _) in root["webhooks"]?.sortedMembers ?? [] {
            report.add(JSONPointerText.appending(name, to: "/webhooks"), "webhook_not_imported",
                       "a webhook is a request the API sends, not a call a gateway config makes")
        }
        try mappings.finish(report: &report)
        config.set("routes", routes.routes)
        let mappingObject = JSONValue.object()
        for (name, mapping) in mappings.mappings { mappingObject.set(name, mapping) }
        if mappingObject.node.count > 0 { config.set("mappings", mappingObject) }
        if routes.requestDescriptors.node.count > 0 { config.set("requestDescriptors", routes.requestDescriptors) }
        if routes.responseDescriptors.node.count > 0 { config.set("responseDescriptors", routes.responseDescriptors) }
        if routes.errorDescriptors.node.count > 0 { config.set("errorDescriptors", routes.errorDescriptors) }
        return OpenAPIImport(config: DeterministicJSON.text(config, indented: true), report: report,
                             operationCount: routes.operationCount, routeCount: routes.routes.node.count)
    }

    /// Refuses what is not an OpenAPI 3.0 or 3.1 document (Swagger 2.0 included).
    private static func checkVersion(_ root: Located, _ references: References) throws(OpenAPIImportError) {
        guard root.node.kind == .object else {
            throw references.error(root.location, "not an OpenAPI document: the top level is \(root.node.kind.name), not an object")
        }
        guard let version = root["openapi"]?.node.string else {
            let swagger = root["swagger"] != nil ? " (Swagger 2.0 documents are not imported: convert them to OpenAPI 3 first)" : ""
            throw references.error(root.location, "not an OpenAPI document: it has no \"openapi\" version string\(swagger)")
        }
        guard version.hasPrefix("3.0") || version.hasPrefix("3.1") else {
            throw references.error(root.location.appending("openapi"), "OpenAPI \(version) is not imported (only 3.0 and 3.1 are)")
        }
    }
}
