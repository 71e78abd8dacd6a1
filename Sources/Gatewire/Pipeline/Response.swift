/// A successful call: the final response, its mapped objects and the attempt history.
public struct Response: Sendable {
    /// The method that was sent.
    public let method: HTTPMethod
    /// The path relative to the base URL, as sent (parameters filled in, query included).
    public let path: String
    /// The final response (status, headers, raw body).
    public let http: HTTPResponse
    /// The objects the response descriptors mapped, as a JSON object keyed by each
    /// descriptor's key path (`""` for the whole body); nil when no descriptor matched or
    /// the body was empty.
    public let mapped: JSONValue?
    /// Values of the path pattern's `:name` parameters of the matching descriptor.
    public let pathParameters: [String: String]
    /// Every attempt, oldest first.
    public let attempts: [Attempt]
    /// The parsed body (parsed once; the mapper walked this tree), nil when not parsed.
    public internal(set) var body: JSONValue? = nil
    /// The response metadata the mappings saw as `@metadata` (see ``MappingContext``), nil
    /// when no descriptor matched.
    public internal(set) var metadata: JSONValue? = nil

    /// The status code.
    public var status: Int { http.status }

    /// Decodes the mapped object at `keyPath` (a descriptor's key path; `""` for the root)
    /// into `T`, straight from Jansson's tree.
    /// - Throws: `DecodingError` when the shape does not fit, or `GatewireError` of kind
    ///   `mapping` when nothing was mapped at `keyPath`.
    public func decode<T: Decodable>(_ type: T.Type, at keyPath: String = "") throws -> T {
        guard let mapped, let node = mapped.node[keyPath] else {
            let known = mapped?.node.members.map { "\"\($0.key)\"" }.joined(separator: ", ") ?? ""
            throw mappingError("nothing was mapped at key path \"\(keyPath)\""
                + (known.isEmpty ? " (no descriptor mapped this response)" : " (mapped: \(known))"))
        }
        return try JSONNodeDecoder().decode(type, from: node)
    }

    /// A `mapping` failure of this response, with its status, body and attempts.
    func mappingError(_ message: String) -> GatewireError {
        GatewireError(kind: .mapping, status: status, message: message, method: method, path: path,
                      response: http, attempts: attempts)
    }
}
