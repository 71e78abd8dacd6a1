/// Hides secrets in what is logged: the values of credential headers and of query
/// parameters that carry keys are replaced by `<redacted>`.
///
/// Always redacted headers: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`;
/// always redacted query parameters: `api_key`, `apikey`, `access_token`, `token`, `key`,
/// `password`, `secret`. More names can be added (case-insensitive).
public struct Redactor: Sendable {
    /// Header names whose values are hidden (lower-case).
    public private(set) var headers: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]
    /// Query parameter names whose values are hidden (lower-case).
    public private(set) var queryParameters: Set<String> = ["api_key", "apikey", "access_token", "token", "key",
                                                            "password", "secret"]
    /// The text that replaces a secret.
    public static let mask = "<redacted>"

    /// The default names only, built once (building the two sets costs thousands of
    /// instructions: not something to do per call).
    static let standard = Redactor()

    /// The defaults plus `headers` and `queryParameters`.
    public init(headers: [String] = [], queryParameters: [String] = []) {
        self.headers.formUnion(headers.map { $0.lowercased() })
        self.queryParameters.formUnion(queryParameters.map { $0.lowercased() })
    }

    /// This redactor hiding `other`'s names too.
    public func merging(_ other: Redactor) -> Redactor {
        var merged = self
        merged.headers.formUnion(other.headers)
        merged.queryParameters.formUnion(other.queryParameters)
        return merged
    }

    /// `name: value` with the value hidden when `name` is a secret header.
    public func header(_ name: String, _ value: String) -> String {
        "\(name): \(headers.contains(name.lowercased()) ? Self.mask : value)"
    }

    /// `url` with the values of secret query parameters hidden (and any `user:password@`).
    public func url(_ url: String) -> String {
        var url = url
        if let scheme = url.firstRange(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@"),
           !url[scheme.upperBound..<at].contains("/") {
            url.replaceSubrange(scheme.upperBound..<at, with: Self.mask)
        }
        guard let question = url.firstIndex(of: "?") else { return url }
        let fragmentStart = url[question...].firstIndex(of: "#") ?? url.endIndex
        let query = url[url.index(after: question)..<fragmentStart]
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            let decoded = PathPattern.percentDecode(name).lowercased()
            return queryParameters.contains(decoded) ? "\(name)=\(Self.mask)" : String(pair)
        }
        return String(url[...question]) + pairs.joined(separator: "&") + String(url[fragmentStart...])
    }
}
