import GatewireJSON

/// The config's `auth`, `headers` and `plugins` from the document's security requirements
/// (OpenAPI 3.0 sections 4.7.27 and 4.7.30): one gateway config sends one set of credentials, so the
/// requirement most operations take first (their own `security`, else the document's) is the
/// config's, and each operation that cannot use it has a report line.
///
/// Secrets are never invented: every credential is a placeholder the user replaces
/// (`<basicAuth username>`). What each scheme becomes:
/// - `http` `basic`: `auth` `{"type": "basic", "username", "password"}`;
/// - `http` `bearer`, `oauth2` (any flow: the user gets the token from its `tokenUrl`) and
///   `openIdConnect`: `auth` `{"type": "bearer", "token"}` (the last two with a report line:
///   the config does not fetch or refresh tokens);
/// - `apiKey` in a header: a default header of that name;
/// - `apiKey` in the query: the config's `apiKey` plugin with the parameter's name (its value
///   redacted in every URL the library reports);
/// - `apiKey` in a cookie, `mutualTLS`, other `http` schemes: a report line (a call sends it
///   itself).
struct Security {
    let references: References

    /// What the config says of credentials: `auth`, default `headers` and `plugins` (each nil
    /// for none).
    typealias Credentials = (auth: JSONValue?, headers: JSONValue?, plugins: JSONValue?)

    /// The config's credentials for the requirement most operations take.
    func build(_ operations: [Operation], report: inout ImportReport) throws(OpenAPIImportError) -> Credentials {
        let root = references.root["security"]
        var counts: [String: Int] = [:]
        var effective: [(Operation, Located?)] = []
        for operation in operations {
            let requirement = operation.node["security"] ?? root
            effective.append((operation, requirement))
            if let first = requirement?.elements.first { counts[key(first), default: 0] += 1 }
        }
        if counts.isEmpty, let first = root?.elements.first { counts[key(first)] = 1 }
        guard let chosenKey = counts.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) })?.key else {
            return (nil, nil, nil)
        }
        var chosen: Located?
        var lists: [Located] = root.map { [$0] } ?? []  // the requirement lists met, each once
        for (operation, requirement) in effective {
            if let own = operation.node["security"] { lists.append(own) }
            let alternatives = requirement?.elements ?? []
            let pointer = (operation.node["security"] != nil ? operation.node.location.appending("security") : operation.node.location).pointer
            if alternatives.isEmpty || alternatives.contains(where: { key($0).isEmpty }) {
                report.add(pointer, "operation_without_security",
                           "the operation needs no credentials, but the config's auth and headers are sent with it too")
            } else if let match = alternatives.first(where: { key($0) == chosenKey }) {
                chosen = chosen ?? match
            } else {
                report.add(pointer, "operation_security_differs",
                           "the operation takes \(alternatives.map(key).joined(separator: " or ")), not the config's \(chosenKey): "
                           + "a call must send its credentials itself")
            }
        }
        if chosen == nil { chosen = root?.elements.first(where: { key($0) == chosenKey }) }
        guard let chosen else { return (nil, nil, nil) }
        for list in lists where list.elements.contains(where: { key($0) == chosenKey }) {
            for alternative in list.elements where key(alternative) != chosenKey {
                report.add(alternative.location.pointer, "security_alternative_not_chosen",
                           "the alternative \(key(alternative)) is not the config's (\(chosenKey)): one config has one set of credentials")
            }
        }
        return try express(chosen, report: &report)
    }

    /// `auth`, `headers` and `plugins` for the schemes of one requirement (all of them apply at once).
    private func express(_ requirement: Located, report: inout ImportReport) throws(OpenAPIImportError) -> Credentials {
        var auth: JSONValue?
        let headers = JSONValue.object()
        let plugins = JSONValue.array()
        for (name, _) in requirement.sortedMembers {
            let reference = "#/components/securitySchemes/" + name.replacingAll("~", with: "~0").replacingAll("/", with: "~1")
            let scheme = try references.follow(try references.resolve(reference, at: requirement.location.appending(name)))
            let pointer = scheme.location.pointer
            let type = scheme["type"]?.node.string ?? ""
            func setAuth(_ value: JSONValue) {
                guard auth == nil else {
                    report.add(pointer, "security_scheme_not_expressible",
                               "the config has one auth, taken by another scheme of the same requirement: a call sends this one itself")
                    return
                }
                auth = value
            }
            switch (type, scheme["scheme"]?.node.string?.lowercased(), scheme["in"]?.node.string) {
            case ("http", "basic", _):
                let basic = JSONValue.object()
                basic.set("type", .string("basic"))
                basic.set("username", .string("<\(name) username>"))
                basic.set("password", .string("<\(name) password>"))
                setAuth(basic)
            case ("http", "bearer", _):
                setAuth(bearer(name))
            case ("oauth2", _, _), ("openIdConnect", _, _):
                setAuth(bearer(name))
                let flows = scheme["flows"]?.sortedMembers.map(\.key).joined(separator: ", ")
                report.add(pointer, "token_placeholder",
                           "\(type)\(flows.map { " (\($0))" } ?? ""): the config sends a bearer token the user gets and renews; "
                           + "it does not run the flow")
            case ("apiKey", _, "header"):
                guard let header = scheme["name"]?.node.string, !header.isEmpty else {
                    throw references.error(scheme.location, "an apiKey scheme needs a name (the header's)")
                }
                headers.set(header, .string("<\(name) api key>"))
            case ("apiKey", _, "query"):
                guard let parameter = scheme["name"]?.node.string, !parameter.isEmpty else {
                    throw references.error(scheme.location, "an apiKey scheme needs a name (the query parameter's)")
                }
                let plugin = JSONValue.object()
                plugin.set("name", .string("apiKey"))
                plugin.set("query", .string(parameter))
                plugin.set("value", .string("<\(name) api key>"))
                plugins.append(plugin)
            default:
                let place = scheme["in"]?.node.string.map { " in the \($0)" } ?? ""
                report.add(pointer, "security_scheme_not_expressible",
                           "a \(type)\(scheme["scheme"]?.node.string.map { " \($0)" } ?? "") credential\(place) is not part of a "
                           + "gateway config: a call sends it itself (a query parameter, a cookie, a client certificate)")
            }
        }
        return (auth, headers.node.count > 0 ? headers : nil, plugins.node.count > 0 ? plugins : nil)
    }

    private func bearer(_ name: String) -> JSONValue {
        let value = JSONValue.object()
        value.set("type", .string("bearer"))
        value.set("token", .string("<\(name) token>"))
        return value
    }

    /// A requirement's schemes, sorted and joined by ` + ` (empty: no credentials).
    private func key(_ requirement: Located) -> String {
        requirement.sortedMembers.map(\.key).joined(separator: " + ")
    }
}
