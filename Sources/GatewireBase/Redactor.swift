/// The one rule that hides secrets in everything that leaves the library: errors, results
/// (`Response.path`, `@metadata`), attempts, event-monitor JSON, logs, the C ABI's strings, the
/// Python binding's `repr` and exceptions, the CLI. A client's redactor (``PluginContext/redactor``)
/// is also the set of credential-bearing names a cross-origin redirect drops.
///
/// - The userinfo of a URL (`http://user:password@host`) is removed (RFC 3986 section 3.2.1:
///   passing it in the URI is deprecated; RFC 9110 section 4.2.4 says not to show it).
/// - The values of secret header fields are replaced by `<redacted>`: `Authorization`,
///   `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`, `Api-Key`, `X-Auth-Token`,
///   `X-Access-Token`, plus the headers the auth plugins fill (the `apiKey` plugin's
///   configured header, a credential's header) and configured names.
/// - The values of secret query parameters are replaced the same way: `api_key`, `apikey`,
///   `access_token`, `token`, `key`, `signature`, `client_secret`, `password`, `secret`,
///   plus the `apiKey` plugin's parameter and configured names.
///
/// Names compare case-insensitively (a query name after percent-decoding).
public struct Redactor: Sendable {
    /// Header names whose values are hidden (lower-case).
    public private(set) var headers: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie",
                                                    "x-api-key", "api-key", "x-auth-token", "x-access-token"]
    /// Query parameter names whose values are hidden (lower-case).
    public private(set) var queryParameters: Set<String> = ["api_key", "apikey", "access_token", "token", "key",
                                                            "signature", "client_secret", "password", "secret"]
    /// The text that replaces a secret.
    public static let mask = "<redacted>"

    /// The default names only, built once (building the two sets costs thousands of
    /// instructions: not something to do per call).
    package static let standard = Redactor()

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

    /// Whether `name`'s value is hidden (case-insensitive).
    public func isSecretHeader(_ name: String) -> Bool { headers.contains(name.lowercased()) }

    /// Whether the query parameter `name` (percent-decoded) is hidden (case-insensitive);
    /// `name[]`, a list in the brackets style (`ArrayParameterStyle`), is hidden when `name` is.
    public func isSecretQueryParameter(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return queryParameters.contains(lowered) || (lowered.hasSuffix("[]") && queryParameters.contains(String(lowered.dropLast(2))))
    }

    /// `name: value` with the value hidden when `name` is a secret header.
    public func header(_ name: String, _ value: String) -> String {
        "\(name): \(isSecretHeader(name) ? Self.mask : value)"
    }

    /// `url` (absolute, or a path with a query) without its userinfo and with the values of
    /// secret query parameters hidden; any other text comes back as it was. Pure; any thread.
    public func url(_ url: String) -> String {
        // Most paths have neither a query nor userinfo: nothing to copy.
        guard Self.hasQueryOrUserinfo(url) else { return url }
        var url = url
        if let scheme = url.firstRange(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@"),
           !url[scheme.upperBound..<at].contains(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            url.removeSubrange(scheme.upperBound...at)
        }
        guard let question = url.firstIndex(of: "?") else { return url }
        let fragmentStart = url[question...].firstIndex(of: "#") ?? url.endIndex
        let query = url[url.index(after: question)..<fragmentStart]
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            return isSecretQueryParameter(PercentDecoding.decode(name)) ? "\(name)=\(Self.mask)" : String(pair)
        }
        return String(url[...question]) + pairs.joined(separator: "&") + String(url[fragmentStart...])
    }

    /// Whether `url` has a `?` or an `@`. Read over its UTF-8 bytes in place: every call
    /// redacts its path and its final URL, and iterating the `String.UTF8View` as a sequence
    /// costs several times as much per byte.
    private static func hasQueryOrUserinfo(_ url: String) -> Bool {
        let marks = { (byte: UInt8) in byte == UInt8(ascii: "?") || byte == UInt8(ascii: "@") }
        return url.utf8.withContiguousStorageIfAvailable { $0.contains(where: marks) } ?? url.utf8.contains(where: marks)
    }

    /// `value` of the query parameter `name`, or the mask when `name` is secret.
    package func queryValue(_ name: String, _ value: String) -> String {
        isSecretQueryParameter(name) ? Self.mask : value
    }
}
