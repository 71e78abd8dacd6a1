/// Sends an API key on every attempt, in a header (`X-Api-Key: <key>`) or a query parameter
/// (`?api_key=<key>`, percent-encoded). Config: `{"name": "apiKey", "header": "X-Api-Key",
/// "value": "..."}` or `{"name": "apiKey", "query": "api_key", "value": "..."}`. The
/// header or parameter name is secret for the client: hidden in all it reports (``Redactor``).
public struct APIKeyPlugin: Plugin {
    /// Where the key goes.
    public enum Placement: Sendable, Equatable {
        case header(String)
        case query(String)
    }

    public let name = "apiKey"
    public let placement: Placement
    let value: String

    /// A plugin that sends `value` at `placement`.
    public init(_ placement: Placement, value: String) {
        self.placement = placement
        self.value = value
    }

    /// The header or query parameter that carries the key.
    public var secretNames: (headers: [String], queryParameters: [String]) {
        switch placement {
        case .header(let header): ([header], [])
        case .query(let parameter): ([], [parameter])
        }
    }

    public func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
        switch placement {
        case .header(let header):
            if !request.headers.contains(header) { request.headers.set(header, value) }
        case .query(let parameter):
            let fragmentStart = request.url.firstIndex(of: "#") ?? request.url.endIndex
            let separator = request.url[..<fragmentStart].contains("?") ? "&" : "?"
            request.url.insert(contentsOf: separator + Router.percentEncoded(parameter) + "=" + Router.percentEncoded(value),
                               at: fragmentStart)
        }
    }
}
