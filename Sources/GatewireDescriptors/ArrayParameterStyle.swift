/// How a query parameter (or form field) with several values is written: config key
/// `arrayParameters`. Each value is percent-encoded on its own, so a comma inside a value
/// stays `%2C` and the `comma` style can be split again by the server.
public enum ArrayParameterStyle: String, Sendable, CaseIterable {
    /// `ids=1&ids=2`: the key repeated, as requests, urllib3 and OkHttp write a list (the
    /// default: it is what HTML forms send, and what most servers read as a list).
    case `repeat`
    /// `ids%5B%5D=1&ids%5B%5D=2` (`ids[]=1&ids[]=2` decoded): AFNetworking's and RestKit's
    /// way, read as a list by PHP and Rails.
    case brackets
    /// `ids=1,2`: one pair whose value joins the encoded values with a literal comma, as
    /// OpenAPI's `style: form, explode: false`.
    case comma

    /// The encoded `name=value` pairs of `name` with `values` (none for an empty list),
    /// encoded by `encode` (the query's RFC 3986 encoding or the form's).
    public func pairs(_ name: String, _ values: [String], encode: (String) -> String) -> [String] {
        guard !values.isEmpty else { return [] }
        switch self {
        case .repeat:
            let key = encode(name)
            return values.map { "\(key)=\(encode($0))" }
        case .brackets:
            let key = encode(name + "[]")
            return values.map { "\(key)=\(encode($0))" }
        case .comma:
            return ["\(encode(name))=\(values.map(encode).joined(separator: ","))"]
        }
    }
}
