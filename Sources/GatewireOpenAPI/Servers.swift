import GatewireJSON

/// The config's `baseURL` from the document's `servers` (OpenAPI 3.0 section 4.7.5, 3.1
/// section 4.8.5): the chosen server's `url` with each `{variable}` replaced by its `default`,
/// without a trailing `/` (the routes' patterns start with one).
enum Servers {
    /// The host a relative or missing server URL is put under: `.invalid` never resolves
    /// (RFC 6761 section 6.4), so the config fails to call until the user writes the real one,
    /// rather than calling a host the document never named.
    static let placeholderOrigin = "https://server.invalid"

    /// The base URL of `servers[index]` (the first server when nil).
    /// - Throws: ``OpenAPIImportError`` at `/servers` when `index` is out of range, and at a
    ///   server's `url` for a `{variable}` it does not define or an unclosed `{`.
    static func baseURL(_ references: References, index: Int?, report: inout ImportReport) throws(OpenAPIImportError) -> String {
        let servers = references.root["servers"]?.elements ?? []
        if let index, !(0..<max(servers.count, 1)).contains(index) {
            throw references.error(Location(file: "", pointer: "/servers"), "there is no server \(index): the document lists \(servers.count) (0...\(max(servers.count, 1) - 1))")
        }
        guard !servers.isEmpty else {
            report.add("/servers", "server_missing",
                       "the document names no server: baseURL is \(placeholderOrigin) (OpenAPI's default \"/\" is relative "
                       + "to where the document was served, which the importer does not know); write the real one")
            return placeholderOrigin
        }
        let chosen = index ?? 0
        for (position, server) in servers.enumerated() where position != chosen {
            report.add(server.location.pointer, "server_not_chosen",
                       "not the chosen server (\(chosen)): import with --server \(position) for this one")
        }
        return try url(of: servers[chosen], references: references, report: &report)
    }

    /// A Server Object's URL with its variables' defaults, relative ones under
    /// ``placeholderOrigin``, without a trailing `/`.
    static func url(of server: Located, references: References, report: inout ImportReport) throws(OpenAPIImportError) -> String {
        guard let template = server["url"], let text = template.node.string else {
            throw references.error(Location(file: "", pointer: server.location.pointer), "a server needs a url (a string)")
        }
        var url = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            url += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw references.error(Location(file: "", pointer: template.location.pointer), "an unclosed \"{\" in \"\(text)\"")
            }
            let name = String(rest[rest.index(after: open)..<close])
            guard let variable = server["variables"]?[name], let value = variable["default"]?.node.string else {
                throw references.error(Location(file: "", pointer: template.location.pointer), "the variable {\(name)} has no default in the server's variables")
            }
            if let choices = variable["enum"]?.node.elements, choices.count > 1 {
                report.add(variable.location.pointer, "server_variable_default",
                           "{\(name)} is its default \"\(value)\" of \(choices.compactMap(\.string).joined(separator: ", "))")
            }
            url += value
            rest = rest[rest.index(after: close)...]
        }
        url += rest
        if !url.contains("://") {
            report.add(template.location.pointer, "server_relative",
                       "the server URL \"\(url)\" is relative to where the document was served: baseURL puts it under "
                       + "\(placeholderOrigin); write the real origin")
            url = placeholderOrigin + (url.hasPrefix("/") || url.isEmpty ? "" : "/") + url
        }
        while url.hasSuffix("/"), !url.hasSuffix("://") { url.removeLast() }
        return url
    }
}
