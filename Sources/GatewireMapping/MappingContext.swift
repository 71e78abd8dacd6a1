import GatewireJSON

/// What a mapping can read besides the representation being mapped: the special source
/// roots of attribute and relationship key paths (RestKit's `@metadata`, `@root`, `@parent`).
///
/// - `@root.<path>`: the whole parsed body.
/// - `@parent.<path>`: the representation of the object that holds the one being mapped
///   (the parent of a relationship's object; for an element of an array, the object that
///   holds the array). Absent at the top level: the attribute is left out.
/// - `@metadata.<path>`: the response's metadata, a JSON object built by the
///   ``ResponseMapper``:
///   `{"method", "url", "path", "status", "headers": {lower-case name: value},
///     "pathParameters": {name: value}, "query": {name: value}}`
///   (repeated header fields joined by `", "`, query values percent-decoded). So
///   `@metadata.headers.etag`, `@metadata.pathParameters.id`, `@metadata.query.page`.
///
/// Decided differently from RestKit, whose metadata dictionary is `HTTP.request.URL`,
/// `network.arguments...`, `query.parameters...`: one flat, documented shape for all
/// languages.
package struct MappingContext: Sendable {
    /// The whole parsed body, for `@root`; nil when mapping outside a response.
    package var root: JSONValue?
    /// The response metadata object, for `@metadata`; nil when mapping outside a response.
    package var metadata: JSONValue?

    /// A context; both roots are optional.
    package init(root: JSONValue? = nil, metadata: JSONValue? = nil) {
        self.root = root
        self.metadata = metadata
    }

    /// No roots: `@root` and `@metadata` paths find nothing.
    package static let none = MappingContext()
}

/// One of the special first components of a source key path.
enum SourceRoot: String {
    case metadata = "@metadata"
    case root = "@root"
    case parent = "@parent"

    /// The special root of `keyPath` and the rest of the path, or nil for an ordinary path.
    static func split(_ keyPath: JSONKeyPath) -> (SourceRoot, JSONKeyPath)? {
        guard let first = keyPath.components.first, first.hasPrefix("@"), let root = SourceRoot(rawValue: first) else {
            return nil
        }
        return (root, JSONKeyPath(components: Array(keyPath.components.dropFirst())))
    }
}
