import GatewireJSON

/// The routes and descriptors of every operation: a route per operation (its name from
/// ``RouteNames``, method, pattern from ``PathTemplate``), the operation's response and
/// error descriptors (``Responses``), and a report line for each part of the operation the
/// config does not express.
struct RouteBuilder {
    let references: References
    let mappings: MappingBuilder
    let baseURL: String

    /// What ``build(report:)`` made.
    struct Built {
        let routes: JSONValue
        let responseDescriptors: JSONValue
        let requestDescriptors: JSONValue
        let errorDescriptors: JSONValue
        let operationCount: Int
    }

    func build(report: inout ImportReport) throws(OpenAPIImportError) -> Built {
        let operations = try Operation.all(in: references)
        let routes = JSONValue.object()
        var names = RouteNames()
        let responses = Responses(references: references, mappings: mappings)
        let bodies = RequestBodies(references: references, mappings: mappings)
        let paging = Paging(references: references, mappings: mappings)
        var requests: [(String, JSONValue)] = []
        var descriptors: [(pattern: String, method: String, descriptor: Responses.Descriptor)] = []
        var routeCount = 0
        for operation in operations {
            let pointer = operation.node.location.pointer
            let file = operation.node.location.file.isEmpty ? nil : operation.node.location.file
            guard let (pattern, renamed) = PathTemplate.pattern(operation.path) else {
                report.add(pointer, "path_not_expressible",
                           "no route: the path \"\(operation.path)\" has what a Gatewire path pattern cannot hold (a * or ?, "
                           + "a dot segment, two parameters with nothing between them, a parameter twice)", document: file)
                continue
            }
            let (name, duplicate) = names.name(for: operation)
            if duplicate {
                report.add(pointer + "/operationId", "operation_id_duplicate",
                           "the operationId is used by an earlier operation too: this route is \"\(name)\"", document: file)
            }
            for (original, safe) in renamed {
                report.add(pointer, "path_parameter_renamed",
                           "the path parameter {\(original)} is :\(safe) in the pattern (names hold only A-Z, a-z, 0-9 and _)",
                           document: file)
            }
            let route = JSONValue.object()
            route.set("method", .string(operation.method))
            route.set("pathPattern", .string(pattern))
            if let request = try bodies.descriptor(of: operation, route: name, report: &report) {
                route.set("objectType", .string(name))
                requests.append((name, request))
            }
            if let pagination = try paging.pagination(of: operation, report: &report) { route.set("pagination", pagination) }
            let required = try requiredQuery(of: operation)
            if !required.isEmpty {
                let names = JSONValue.array()
                for name in required { names.append(.string(name)) }
                route.set("requiredQuery", names)
            }
            routes.set(name, route)
            routeCount += 1
            try reportUnexpressed(operation, pointer: pointer, file: file, report: &report)
            for descriptor in try responses.descriptors(of: operation, route: name, report: &report) {
                descriptors.append((pattern, operation.method, descriptor))
            }
        }
        let (success, errors) = Self.write(descriptors, routeCount: routeCount)
        let requestDescriptors = JSONValue.array()
        for (_, request) in requests.sorted(by: { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }) { requestDescriptors.append(request) }
        return Built(routes: routes, responseDescriptors: success, requestDescriptors: requestDescriptors, errorDescriptors: errors,
                     operationCount: operations.count)
    }

    /// The names of the operation's required query parameters, sorted (the route's `requiredQuery`).
    private func requiredQuery(of operation: Operation) throws(OpenAPIImportError) -> [String] {
        try operation.parameters(references).filter { $0.place == "query" && $0.node["required"]?.node.bool == true }
            .map(\.name).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Report lines for what the route does not carry: required header and cookie parameters
    /// (a route checks its path's and its required query parameters), other servers and callbacks.
    private func reportUnexpressed(_ operation: Operation, pointer: String, file: String?, report: inout ImportReport)
        throws(OpenAPIImportError)
    {
        for (name, place, parameter) in try operation.parameters(references) where place != "path" && place != "query" {
            guard parameter["required"]?.node.bool == true else { continue }
            report.add(parameter.location.pointer, "parameter_not_checked",
                       "the required \(place) parameter \"\(name)\" is not checked by the route: a call must send it itself",
                       document: parameter.location.file.isEmpty ? nil : parameter.location.file)
        }
        if let servers = operation.node["servers"] ?? operation.pathItem["servers"], let first = servers.elements.first {
            var ignored = ImportReport()
            let url = try Servers.url(of: first, references: references, report: &ignored)
            if url != baseURL {
                report.add(servers.location.pointer, "operation_server_ignored",
                           "the operation's server \(url) is not the config's baseURL \(baseURL): one config has one base URL; "
                           + "import again with that server for a config of its own", document: file)
            }
        }
        if operation.node["callbacks"] != nil {
            report.add(pointer + "/callbacks", "callbacks_not_imported",
                       "callbacks are requests the API sends, not calls a gateway config makes", document: file)
        }
    }

    /// The descriptors as the config's two arrays, sorted by pattern, method, key path and
    /// mapping. An error descriptor every route has alike is written once, for every path and
    /// method (Stripe's `default` error on all 400-odd operations).
    private static func write(_ all: [(pattern: String, method: String, descriptor: Responses.Descriptor)], routeCount: Int)
        -> (JSONValue, JSONValue)
    {
        func key(_ descriptor: Responses.Descriptor) -> String {
            "\(descriptor.signature) \(StatusCodes.configValue(descriptor.ranges, error: true)?.serialized() ?? "")"
        }
        var routesWith: [String: Set<String>] = [:]
        for entry in all where entry.descriptor.isError {
            routesWith[key(entry.descriptor), default: []].insert(entry.method + " " + entry.pattern)
        }
        let shared = Set(routesWith.filter { routeCount > 1 && $0.value.count == routeCount }.keys)
        let success = JSONValue.array()
        let errors = JSONValue.array()
        var sharedWritten: Set<String> = []
        let sorted = all.sorted {
            ($0.pattern, $0.method, $0.descriptor.keyPath, $0.descriptor.mapping)
                < ($1.pattern, $1.method, $1.descriptor.keyPath, $1.descriptor.mapping)
        }
        for (pattern, method, descriptor) in sorted {
            let isShared = descriptor.isError && shared.contains(key(descriptor))
            if isShared, !sharedWritten.insert(key(descriptor)).inserted { continue }
            let object = JSONValue.object()
            object.set("mapping", .string(descriptor.mapping))
            if !isShared {
                object.set("method", .string(method))
                object.set("pathPattern", .string(pattern))
            }
            if !descriptor.keyPath.isEmpty { object.set("keyPath", .string(descriptor.keyPath)) }
            if let codes = StatusCodes.configValue(descriptor.ranges, error: descriptor.isError) { object.set("statusCodes", codes) }
            (descriptor.isError ? errors : success).append(object)
        }
        return (success, errors)
    }
}
