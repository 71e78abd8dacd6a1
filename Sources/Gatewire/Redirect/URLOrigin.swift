/// The origin of an absolute URL (RFC 6454 section 4): scheme, host and port, as libcurl's URL
/// parser (`curl_url`) reads them, the port filled in from the scheme when the URL has none
/// (`http://a` and `http://a:80` are one origin). Hosts compare case-insensitively.
struct URLOrigin: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https` (lower-case).
    let scheme: String
    /// The host name or address literal (lower-case).
    let host: String
    /// The port, explicit or the scheme's default.
    let port: Int

    /// The origin of `url`, or nil when libcurl cannot parse it as an absolute URL.
    init?(_ url: String) {
        guard let parsed = CurlURL(url), let scheme = parsed.scheme, let host = parsed.host, let port = parsed.port
        else { return nil }
        self.scheme = scheme.lowercased()
        self.host = host.lowercased()
        self.port = port
    }

    var description: String { "\(scheme)://\(host):\(port)" }

    /// `url` without the query parameters whose percent-decoded, lower-cased name is in
    /// `names` (the rest keep their order and bytes); `url` itself when it has none of them
    /// or libcurl cannot parse it.
    static func removingQueryParameters(_ names: Set<String>, from url: String) -> String {
        guard let parsed = CurlURL(url), let query = parsed.query else { return url }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false)
        let kept = pairs.filter { pair in
            let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return !names.contains(PercentDecoding.decode(String(name)).lowercased())
        }
        guard kept.count != pairs.count else { return url }
        guard parsed.setQuery(kept.isEmpty ? nil : kept.joined(separator: "&")), let rebuilt = parsed.text else { return url }
        return rebuilt
    }
}
