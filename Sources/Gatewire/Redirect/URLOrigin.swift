import CCurl
import Glibc

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
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, url, 0) == CURLUE_OK,
              let scheme = Self.part(handle, CURLUPART_SCHEME, flags: 0),
              let host = Self.part(handle, CURLUPART_HOST, flags: 0),
              let port = Self.part(handle, CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)).flatMap({ Int($0) })
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
        guard let handle = curl_url() else { return url }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, url, 0) == CURLUE_OK,
              let query = part(handle, CURLUPART_QUERY, flags: 0) else { return url }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false)
        let kept = pairs.filter { pair in
            let name = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return !names.contains(PercentDecoding.decode(String(name)).lowercased())
        }
        guard kept.count != pairs.count else { return url }
        let setting = kept.isEmpty ? curl_url_set(handle, CURLUPART_QUERY, nil, 0)
            : curl_url_set(handle, CURLUPART_QUERY, kept.joined(separator: "&"), 0)
        guard setting == CURLUE_OK, let rebuilt = part(handle, CURLUPART_URL, flags: 0) else { return url }
        return rebuilt
    }

    private static func part(_ handle: OpaquePointer, _ which: CURLUPart, flags: UInt32) -> String? {
        var text: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &text, flags) == CURLUE_OK, let text else { return nil }
        defer { curl_free(text) }
        return String(cString: text)
    }
}
