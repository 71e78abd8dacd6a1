import GatewireJSON

/// `application/x-www-form-urlencoded` bodies and query parameters from a mapped request
/// object (RestKit's `RKURLEncodedSerialization` / AFNetworking's query-string pairs).
///
/// Flattening: nested objects become `outer[inner]` keys, arrays `key[]` repeated, in member
/// order; `null` is an empty value (`key=`); `true`/`false` are `true`/`false`; numbers
/// their JSON text (integers exact). A top-level scalar or array has no keys and gives nothing.
/// Encoding: every byte outside RFC 3986's unreserved set is `%XX`, except that a space is `+`
/// (the form serializer of the WHATWG URL standard) and `[` `]` in keys stay literal.
package enum FormEncoding {
    /// The flattened `(name, value)` pairs of `value`, unencoded; `includeNulls: false`
    /// leaves `null` members out (query parameters of GET/DELETE).
    package static func pairs(_ value: JSONNode, includeNulls: Bool = true) -> [(String, String)] {
        var result: [(String, String)] = []
        func walk(_ node: JSONNode, _ key: String) {
            switch node.kind {
            case .object:
                for (name, child) in node.members { walk(child, key.isEmpty ? name : "\(key)[\(name)]") }
            case .array:
                guard !key.isEmpty else { return }
                for child in node.elements { walk(child, "\(key)[]") }
            case .null:
                if !key.isEmpty, includeNulls { result.append((key, "")) }
            case .string:
                if !key.isEmpty { result.append((key, node.string ?? "")) }
            default:
                if !key.isEmpty { result.append((key, node.serialized())) }
            }
        }
        walk(value, "")
        return result
    }

    /// The form body for `value`: `user[name]=Ann+Lee&user[tags][]=a`.
    package static func body(_ value: JSONNode) -> String {
        pairs(value).map { "\(encode($0.0, key: true))=\(encode($0.1, key: false))" }.joined(separator: "&")
    }

    /// The form body of `fields` in their order: `name=Ann+Lee&ids=1&ids=2` (a name given
    /// twice is sent twice, as requests' `data=` and HTML forms send a list).
    package static func body(fields: [(name: String, value: String)]) -> String {
        fields.map { "\(encode($0.name, key: false))=\(encode($0.value, key: false))" }.joined(separator: "&")
    }

    private static func encode(_ text: String, key: Bool) -> String {
        Router.percentEncoded(text, spaceAsPlus: true, keeping: key ? [UInt8(ascii: "["), UInt8(ascii: "]")] : [])
    }
}
