/// A call resolved against the client's config: route and parameters filled in, body
/// encoded, default headers merged. The template every attempt's ``HTTPRequest`` is built from.
struct PreparedRequest: Sendable {
    var method: HTTPMethod
    /// Relative to the base URL, with its query.
    var path: String
    var url: String
    var headers: HTTPHeaders
    var body: [UInt8]?
    /// The `multipart/form-data` parts (``HTTPRequest/parts``), or nil.
    var parts: [MultipartPart]?
    var route: String?
    /// The configured route of `route` (its policies), nil for a call by path.
    var resolved: ResolvedRoute?
    /// ``Request/readsJSONBody``.
    var readsJSONBody = false
}
