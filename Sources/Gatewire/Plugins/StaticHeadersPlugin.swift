/// Sets fixed header fields on every attempt (config: `{"name": "headers", "headers": {...}}`).
/// A header the call sets itself is kept.
public struct StaticHeadersPlugin: Plugin {
    public let name = "headers"
    /// The fields to set.
    public let headers: HTTPHeaders

    /// A plugin that sets `headers`.
    public init(headers: HTTPHeaders) { self.headers = headers }

    public func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
        for field in headers where !request.headers.contains(field.name) { request.headers.set(field.name, field.value) }
    }
}
