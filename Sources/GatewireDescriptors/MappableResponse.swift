import GatewireBase
import GatewireJSON

/// What the ``ResponseMapper`` needs to know about a received response.
package struct MappableResponse: Sendable {
    /// The request's method.
    package var method: HTTPMethod
    /// The request path relative to the base URL, as sent (percent-encoded; may carry `?query`).
    package var path: String
    /// The HTTP status code.
    package var status: Int
    /// The `Content-Type` header's value, if any (e.g. `application/json; charset=utf-8`):
    /// the one given to the initializer, or, for a response the client received, the field
    /// of ``headers``, looked up when read (the mapper reads it only when a descriptor
    /// matches or the body is read as JSON; the lookup splits the raw header block).
    package var contentType: String? {
        get {
            switch contentTypeSource {
            case .given(let value): return value
            case .headers: return headers["Content-Type"]
            }
        }
        set { contentTypeSource = .given(newValue) }
    }
    private var contentTypeSource: ContentTypeSource
    private enum ContentTypeSource: Sendable {
        case given(String?)
        case headers
    }
    /// The body bytes as received.
    package var body: [UInt8]
    /// The response's header fields (for `@metadata.headers`); empty when not known.
    package var headers: HTTPHeaders = HTTPHeaders()
    /// The absolute URL the response came from (for `@metadata.url`; after redirects the
    /// last hop's, redacted); nil when not known.
    package var url: String?
    /// What `@metadata` hides of ``url``, the query and the headers (userinfo, secret values):
    /// the metadata reaches mapped objects and results, which leave the library.
    package var redactor = Redactor.standard

    /// A response to map; `path` is relative to the base URL, as sent.
    package init(method: HTTPMethod, path: String, status: Int, contentType: String?, body: [UInt8]) {
        self.method = method
        self.path = path
        self.status = status
        contentTypeSource = .given(contentType)
        self.body = body
    }

    /// A received response whose ``contentType`` is its `Content-Type` field in `headers`.
    package init(method: HTTPMethod, path: String, status: Int, headers: HTTPHeaders, body: [UInt8], url: String) {
        self.method = method
        self.path = path
        self.status = status
        contentTypeSource = .headers
        self.body = body
        self.headers = headers
        self.url = url
    }

    /// A response with its headers and URL, for `@metadata` sources (see ``MappingContext``).
    package init(method: HTTPMethod, path: String, status: Int, contentType: String?, body: [UInt8],
                headers: HTTPHeaders, url: String?) {
        self.init(method: method, path: path, status: status, contentType: contentType, body: body)
        self.headers = headers
        self.url = url
    }

    /// The query parameters of ``path``, percent-decoded (`+` stays `+`); a repeated name
    /// keeps its last value.
    package var queryParameters: [String: String] {
        guard let mark = path.firstIndex(of: "?") else { return [:] }
        var query = path[path.index(after: mark)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            result[PercentDecoding.decode(String(parts[0]))] = parts.count > 1 ? PercentDecoding.decode(String(parts[1])) : ""
        }
        return result
    }

    /// The `@metadata` object (see ``MappingContext``) with these path parameters.
    package func metadata(pathParameters: [String: String]) -> JSONValue {
        let metadata = JSONValue.object()
        metadata.set("method", .string(method.rawValue))
        metadata.set("url", url.map { .string(redactor.url($0)) } ?? .null())
        var bare = Substring(path)
        if let cut = bare.firstIndex(where: { $0 == "?" || $0 == "#" }) { bare = bare[..<cut] }
        metadata.set("path", .string(String(bare)))
        metadata.set("status", .integer(Int64(status)))
        let headerObject = JSONValue.object()
        var seen: [String] = []
        for field in headers {
            let name = field.name.lowercased()
            if seen.contains(name) { continue }
            seen.append(name)
            let value = redactor.isSecretHeader(name) ? Redactor.mask : headers.values(for: name).joined(separator: ", ")
            headerObject.set(name, .string(value))
        }
        metadata.set("headers", headerObject)
        func object(_ values: [String: String]) -> JSONValue {
            let result = JSONValue.object()
            for key in values.keys.sorted() { result.set(key, .string(values[key]!)) }
            return result
        }
        metadata.set("pathParameters", object(pathParameters))
        metadata.set("query", object(queryParameters.reduce(into: [:]) { $0[$1.key] = redactor.queryValue($1.key, $1.value) }))
        return metadata
    }
}
