/// The result of a successful call: its final response (``http``), the objects its
/// descriptors mapped (``mappingResult``) and every attempt. A failed call's result is the
/// ``GatewireError`` it throws instead.
public struct Response: Sendable {
    /// The method that was sent.
    public let method: HTTPMethod
    /// The path relative to the base URL, as sent (parameters filled in, query included), with
    /// the values of secret query parameters hidden (``Redactor``).
    public let path: String
    /// The absolute URL the final response came from: the call's URL, or after redirects the
    /// last hop's (requests' and httpx's `Response.url`), with secret query values and
    /// userinfo hidden as in ``path``.
    public let url: String
    /// The final response: what the server answered last (status, header fields, body).
    public let http: HTTPResponse
    /// The objects the response descriptors mapped, as a JSON object keyed by each
    /// descriptor's key path (`""` for the whole body); nil when no descriptor matched or
    /// the body was empty.
    public let mapped: JSONValue?
    /// Values of the path pattern's `:name` parameters of the matching descriptor.
    public let pathParameters: [String: String]
    /// Every attempt, oldest first.
    public let attempts: [Attempt]
    /// The body as JSON: the mapper's tree, or, when no descriptor needed the body, the
    /// bytes parsed on first read (see ``ResponseJSON``); nil when there is no JSON body.
    let json: ResponseJSON?
    /// The response metadata the mappings saw as `@metadata` (see `MappingContext`), nil
    /// when no descriptor matched.
    public let metadata: JSONValue?
    /// Whether the response came from the client's HTTP cache (config `cache`): a fresh
    /// stored one (no request was sent: ``attempts`` is empty) or one a 304 confirmed
    /// (``revalidated``). Mapped as when it first arrived.
    public var fromCache = false
    /// Whether the server confirmed the stored response with a 304 to the cache's
    /// conditional request (the last attempt's status is 304; ``http`` is the stored
    /// response with the 304's header fields).
    public var revalidated = false
    /// Whether a decision of the call's circuit breaker or rate limit shared through the
    /// config's `sharedState` (an attempt's admission, or the recording of its outcome) was
    /// made in process because the store was failing (an error, or no answer within its
    /// `timeout`; docs/fleet.md "When Redis fails"): the call was still limited and guarded,
    /// by this client's own counts only. Always false without `sharedState`.
    public var sharedStateLocal = false

    /// The status code.
    public var status: Int { http.status }

    /// The body parsed as JSON (Jansson), or nil when it is not JSON: HEAD, 204, 205, 304,
    /// a blank body, or a content type other than `application/json` and `+json` that no
    /// descriptor parsed (the rules of `ResponseMapper`). A body that descriptors mapped
    /// is the tree they walked. Any other is parsed on the first call, once, on the calling
    /// thread (any thread; copies of this response share the result): a call no descriptor
    /// maps does not pay for a parse its caller may never need. Called on the event loop's
    /// thread (in a completion handler or a plugin's `process`), that first parse runs on
    /// the loop and holds up every call in flight meanwhile (about 2 ms for 137 KB); bodies
    /// that descriptors map are parsed on the worker pool when large (16 KiB or more).
    /// - Throws: ``GatewireError`` of kind `mapping` with this response (status, attempts),
    ///   whose message gives Jansson's line and column, when the body is declared JSON but
    ///   is not valid JSON. (With a matching descriptor such a call fails instead.)
    public func jsonBody() throws(GatewireError) -> JSONValue? {
        do {
            return try json?.value()
        } catch {
            throw mappingError(MappingError(parse: error).description)
        }
    }

    /// ``jsonBody()``, or nil when the body is not valid JSON.
    public var body: JSONValue? { try? jsonBody() }

    /// The mapped objects as a ``MappingResult`` (empty when nothing was mapped), RestKit's
    /// `mappingResult`; its `decode` and `decodeAll` throw this response's ``GatewireError``
    /// of kind `mapping`, as ``decode(_:at:)`` does.
    public var mappingResult: MappingResult {
        MappingResult(dictionary: mapped, metadata: metadata) { mappingError($0.description) }
    }

    /// The mapped objects: renamed ``mappingResult``, so that "result" means Swift's `Result`.
    @available(*, deprecated, renamed: "mappingResult")
    public var result: MappingResult { mappingResult }

    /// Decodes the mapped object at `keyPath` (a descriptor's key path; `""` for the root)
    /// into `T`, straight from Jansson's tree: ``mappingResult``'s `decode`. When no response
    /// descriptor matched (``mapped`` is nil), it decodes the body itself instead, at
    /// `keyPath` read as a `JSONKeyPath` (`""`: the whole body), as Alamofire's
    /// `responseDecodable` decodes the body (``jsonBody()`` says which bodies are JSON).
    /// - Throws: ``GatewireError`` of kind `mapping`, with this response, when nothing was
    ///   mapped at `keyPath` (with no descriptor: the body is not JSON or has nothing at
    ///   `keyPath`), or the shape does not fit `T`.
    public func decode<T: Decodable>(_ type: T.Type, at keyPath: String = "") throws(GatewireError) -> T {
        guard mapped != nil else { return try decodeBody(type, at: keyPath) }
        do {
            return try mappingResult.decode(type, at: keyPath)
        } catch {
            throw error as? GatewireError ?? mappingError("\(error)")  // mappingResult throws GatewireErrors
        }
    }

    /// ``decode(_:at:)`` of a response no descriptor mapped: `T` from the body at `keyPath`.
    private func decodeBody<T: Decodable>(_ type: T.Type, at keyPath: String) throws(GatewireError) -> T {
        guard let body = try jsonBody() else {
            let contentType = http.headers["Content-Type"].map { "Content-Type \($0)" } ?? "no Content-Type"
            throw mappingError("nothing was mapped and the body is not JSON "
                + "(status \(status), \(contentType), \(http.body.count) bytes)")
        }
        let value: JSONValue?
        do {
            value = try JSONKeyPath(keyPath).value(in: body.node)
        } catch {
            throw mappingError(error.description)
        }
        guard let value else {
            throw mappingError("nothing was mapped and the body has nothing at key path \"\(keyPath)\"")
        }
        do {
            return try JSONNodeDecoder().decode(type, from: value)
        } catch {
            throw mappingError(MappingError("does not decode as \(T.self): \(error)", keyPath: keyPath).description)
        }
    }

    /// A `mapping` failure of this response, with its status, body and attempts.
    func mappingError(_ message: String) -> GatewireError {
        GatewireError(kind: .mapping, status: status, message: message, method: method, path: path,
                      response: http, attempts: attempts)
    }
}
