/// Turning a caller's ``Request`` into the ``PreparedRequest`` every attempt of its call
/// sends: the route, the body, the headers and the path, each checked once per call.
extension ClientCore {
    /// Resolves route, parameters, body and headers.
    /// - Throws: ``GatewireError`` of kind `invalidArgument` naming what is wrong (an unknown
    ///   route, a missing parameter or required query parameter (``Route/requiredQuery``), a
    ///   parameter or path with a dot segment (``DotSegments``),
    ///   a path or download destination with a NUL byte (``Request/cStringProblem``),
    ///   an option outside its range (`CallOptions.limitsProblem`),
    ///   a header that ``HTTPHeaders/fieldProblem(name:value:)`` rejects, a body on a HEAD
    ///   request: ``HTTPMethod/bodyProblem(hasBody:)``).
    func prepare(_ request: Request) throws(GatewireError) -> PreparedRequest {
        let target = try target(of: request)
        let (method, pattern) = (target.method, target.pattern)
        let invalid = { (message: String) in
            GatewireError(kind: .invalidArgument, message: message, method: method, path: self.redactor.url(pattern))
        }
        if let problem = request.cStringProblem ?? request.options.limitsProblem { throw invalid(problem) }
        var headers = config.headers
        if request.headers.count > 0 { headers.merge(request.headers) }
        let body = try encode(request.body, for: target, headers: &headers, invalid: invalid)
        // Each header was checked once, as it entered its ``HTTPHeaders`` (the call's, the
        // config's); these read the verdicts. A bad config header fails every call, even one
        // that sets the same name.
        if let problem = request.headers.problem ?? config.headers.problem { throw invalid(problem) }
        if let problem = method.bodyProblem(hasBody: body.bytes != nil || body.parts != nil) { throw invalid(problem) }
        if let baseURLProblem { throw invalid("baseURL \(baseURLProblem)") }
        if let route = target.resolved?.route, let missing = route.requiredQuery.first(where: { name in
            request.parameters[name] == nil && request.listParameters[name] == nil && !body.parameters.contains { $0.0 == name }
        }) {
            throw invalid("missing query parameter \"\(missing)\" of route \(route.name) (its requiredQuery)")
        }
        if let resolved = target.resolved, let path = resolved.staticPath, let url = resolved.staticURL,
           request.parameters.isEmpty, request.listParameters.isEmpty, body.parameters.isEmpty {
            // A route without `:name` parameters called without parameters: its path and URL
            // were built once (object attributes only fill `:name` segments, never the query).
            return PreparedRequest(method: method, path: path, url: url, headers: headers, body: body.bytes,
                                   parts: body.parts, route: request.route, resolved: resolved,
                                   readsJSONBody: request.readsJSONBody)
        }
        let path = try self.path(pattern, request: request, body: body, unfilled: target.unfilled, invalid: invalid)
        return PreparedRequest(method: method, path: path, url: (target.urlPrefix ?? urlPrefix) + path, headers: headers,
                               body: body.bytes,
                               parts: body.parts, route: request.route, resolved: target.resolved,
                               readsJSONBody: request.readsJSONBody)
    }

    /// What a request names: its method and path pattern, from its route, from the route of its
    /// object's type (RestKit's `RKRoute routeWithClass:pathPattern:method:`), or as given.
    private struct Target {
        var method: HTTPMethod
        var pattern: String
        var objectType: String?
        var resolved: ResolvedRoute?
        /// A route's pattern promises its `:name`s (`.missing`); a path given to the call is a
        /// path, whose colons are data unless a parameter names them (`.literal`).
        var unfilled: Router.UnfilledName = .missing
        /// What the path is appended to when it is not the client's base URL: the origin of an
        /// absolute URL given as the path, outside the base URL's path.
        var urlPrefix: String?
    }

    private func target(of request: Request) throws(GatewireError) -> Target {
        if let name = request.route {
            guard let entry = resolvedRoutes[name] else {
                throw GatewireError(kind: .invalidArgument, message: config.unknownRouteMessage(name),
                                    method: request.method, path: name)
            }
            return Target(method: entry.route.method, pattern: entry.route.pathPattern,
                          objectType: entry.route.objectType, resolved: entry)
        }
        if request.path.isEmpty, let type = request.body?.objectType {
            guard let route = config.routes.values.sorted(by: { $0.name < $1.name })
                .first(where: { $0.objectType == type && $0.method == request.method }) else {
                throw GatewireError(kind: .invalidArgument,
                                    message: "no path and no route for object type \"\(type)\" and \(request.method)",
                                    method: request.method, path: "")
            }
            return Target(method: request.method, pattern: route.pathPattern, objectType: type)
        }
        if let absolute = AbsoluteURL(request.path) { return try target(of: absolute, method: request.method) }
        return Target(method: request.method, pattern: request.path, unfilled: .literal)
    }

    /// The target of a path given as an absolute URL, as requests and httpx users pass one. Only
    /// the base URL's origin is accepted (scheme, host and port, as libcurl reads them): the
    /// client's credentials, cookies and plugins are for it, so a URL on another origin is
    /// refused, never sent to the base URL's server nor anywhere else. Inside the base URL's
    /// path the call is the same as with the relative path (routes, descriptors and the
    /// cache see that path); outside it, the path is the URL's.
    private func target(of absolute: AbsoluteURL, method: HTTPMethod) throws(GatewireError) -> Target {
        let invalid = { (message: String) in
            GatewireError(kind: .invalidArgument, message: message, method: method, path: self.redactor.url(absolute.text))
        }
        guard let origin = URLOrigin(absolute.text) else {
            throw invalid("the path \(redactor.url(absolute.text)) looks like an absolute URL, which libcurl cannot parse")
        }
        guard origin == baseOrigin else {
            let base = baseOrigin.map(\.description) ?? redactor.url(urlPrefix)
            throw invalid("the URL \(redactor.url(absolute.text)) is on origin \(origin), not on the base URL's (\(base)): a "
                + "client calls only its base URL's origin, which its credentials, cookies and plugins are for; "
                + "make a client for \(origin) to call it")
        }
        if absolute.path.hasPrefix(basePath + "/") {
            return Target(method: method, pattern: String(absolute.path.dropFirst(basePath.count)), unfilled: .literal)
        }
        return Target(method: method, pattern: absolute.path, unfilled: .literal, urlPrefix: absolute.origin)
    }

    /// A request body as sent: its bytes (nil for none), and for an object body the values that
    /// fill the path's `:name` segments and, on a method without a body, the query parameters.
    private struct EncodedBody {
        var bytes: [UInt8]?
        var parts: [MultipartPart]?
        var attributes: [String: String] = [:]
        var parameters: [(String, String)] = []
    }

    /// Encodes `body` and sets the Content-Type it implies unless `headers` has one.
    private func encode(_ body: Request.Body?, for target: Target, headers: inout HTTPHeaders,
                        invalid: (String) -> GatewireError) throws(GatewireError) -> EncodedBody {
        switch body {
        case nil:
            return EncodedBody()
        case .json(let value):
            if !headers.contains("Content-Type") { headers.set("Content-Type", "application/json") }
            return EncodedBody(bytes: Array(value.serialized().utf8))
        case .object(let value, let type):
            return try encodeObject(value, type: type ?? target.objectType, method: target.method,
                                    headers: &headers, invalid: invalid)
        case .bytes(let bytes, let contentType):
            if !headers.contains("Content-Type") {
                // Checked as it is set. When a config or call header is bad too (reported
                // by prepare otherwise), this one's problem still comes first.
                let earlier = headers.problem
                headers.set("Content-Type", contentType)
                let problem = earlier == nil ? headers.problem : HTTPHeaders.fieldProblem(name: "Content-Type", value: contentType)
                if let problem { throw invalid(problem) }
            }
            return EncodedBody(bytes: bytes)
        case .form(let fields):
            if !headers.contains("Content-Type") { headers.set("Content-Type", RequestDescriptor.BodyFormat.form.contentType) }
            return EncodedBody(bytes: Array(FormEncoding.body(fields: fields).utf8))
        case .multipart(let parts, let object, let type):
            return try encodeMultipart(parts, object: object, type: type ?? target.objectType, method: target.method,
                                       headers: &headers, invalid: invalid)
        case .encodable(let value):
            return try encode(.json(tree(of: value, invalid: invalid)), for: target, headers: &headers, invalid: invalid)
        case .encodableObject(let value, let type):
            return try encodeObject(tree(of: value, invalid: invalid), type: type ?? target.objectType, method: target.method,
                                    headers: &headers, invalid: invalid)
        }
    }

    private func tree(of value: any Encodable, invalid: (String) -> GatewireError) throws(GatewireError) -> JSONValue {
        do {
            return try Request.Body.tree(of: value)
        } catch {
            throw invalid(error.message)
        }
    }

    /// An object body through its type's request descriptor (RestKit's `RKRequestDescriptor`):
    /// JSON or a form, or query parameters on GET, HEAD and DELETE.
    private func encodeObject(_ value: JSONValue, type: String?, method: HTTPMethod, headers: inout HTTPHeaders,
                              invalid: (String) -> GatewireError) throws(GatewireError) -> EncodedBody {
        let (descriptor, mapped) = try map(value, type: type, method: method, invalid: invalid)
        var encoded = EncodedBody()
        for (key, member) in value.node.members {
            switch member.kind {
            case .string: encoded.attributes[key] = member.string
            case .integer, .real, .bool: encoded.attributes[key] = member.serialized()
            default: break
            }
        }
        if [.get, .head, .delete].contains(method) {
            encoded.parameters = FormEncoding.pairs(mapped.node, includeNulls: false)  // no body: parameters instead
        } else if descriptor.format == .multipart {
            encoded.parts = Self.fieldParts(mapped.node)
            headers.remove("Content-Type")  // libcurl's, with the boundary
        } else {
            encoded.bytes = Array((descriptor.format == .form ? FormEncoding.body(mapped.node) : mapped.serialized()).utf8)
            if !headers.contains("Content-Type") { headers.set("Content-Type", descriptor.format.contentType) }
        }
        return encoded
    }

    /// `value` mapped by the request descriptor of `type` and `method`, with that descriptor.
    private func map(_ value: JSONValue, type: String?, method: HTTPMethod,
                     invalid: (String) -> GatewireError) throws(GatewireError) -> (RequestDescriptor, JSONValue) {
        guard let typeName = type else {
            throw invalid("an object body needs an object type: the call's or its route's objectType")
        }
        guard let descriptor = catalog.requestDescriptor(objectType: typeName, method: method) else {
            throw invalid("no request descriptor for object type \"\(typeName)\" and \(method)")
        }
        do {
            return (descriptor, try descriptor.body(for: value.node, mapper: catalog.mapper))
        } catch {
            throw invalid("the \(typeName) object could not be mapped: \(error)")
        }
    }

    /// The fields of a mapped object as text parts, named as a form names them
    /// (``FormEncoding/pairs(_:includeNulls:)``: `user[name]`, `tags[]`; null is empty text).
    private static func fieldParts(_ mapped: JSONNode) -> [MultipartPart] {
        FormEncoding.pairs(mapped).map { MultipartPart.field($0.0, $0.1) }
    }

    /// A multipart body: `object`'s mapped fields (when given), then `parts`, each checked
    /// (``MultipartPart/problem``: a file that cannot be read is refused here, before anything
    /// is sent). The `Content-Type` is libcurl's, with its boundary.
    private func encodeMultipart(_ parts: [MultipartPart], object: JSONValue?, type: String?, method: HTTPMethod,
                                 headers: inout HTTPHeaders,
                                 invalid: (String) -> GatewireError) throws(GatewireError) -> EncodedBody {
        var all: [MultipartPart] = []
        if let object { all = Self.fieldParts(try map(object, type: type, method: method, invalid: invalid).1.node) }
        all += parts
        for part in parts { if let problem = part.problem { throw invalid(problem) } }
        headers.remove("Content-Type")
        return EncodedBody(parts: all)
    }

    /// The path sent: `pattern` filled and percent-encoded (``Router``), with dot segments refused.
    /// The query's lists are written in the call's style, else the config's.
    private func path(_ pattern: String, request: Request, body: EncodedBody, unfilled: Router.UnfilledName,
                      invalid: (String) -> GatewireError) throws(GatewireError) -> String {
        var path: String
        do {
            path = try Router.build(pattern.hasPrefix("/") ? pattern : "/" + pattern, parameters: request.parameters,
                                    lists: request.listParameters,
                                    style: request.options.arrayParameters ?? config.arrayParameters,
                                    objectAttributes: body.attributes, objectParameters: body.parameters,
                                    unfilled: unfilled)
        } catch {
            throw invalid(error.message)
        }
        path = Router.encodingNonASCII(path)
        if let part = DotSegments.inPath(path) {
            // Refused rather than resolved (RFC 3986 section 5.2.4): the path sent, the path
            // reported and the route matched stay the same, inside the base URL's path.
            throw invalid("path \(part) has a dot segment (. or .., in any percent-encoding), which would change "
                + "the resource it names (RFC 3986 section 5.2.4); it is refused, not resolved")
        }
        return path
    }
}
