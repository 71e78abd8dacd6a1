import CCurl

/// A URL as libcurl's URL API (`curl_url`, RFC 3986 with libcurl's own leniencies) parses
/// it: the pipeline reads a URL's origin and query with the same parser as the transfer that
/// sends it, so the two cannot disagree about where a URL points.
///
/// Owns its `CURLU` handle (freed with the value). Not shared: one thread at a time.
package final class CurlURL {
    private let handle: OpaquePointer

    /// `url` parsed, or nil when libcurl cannot parse it as an absolute URL (or has no memory).
    package init?(_ url: String) {
        guard let handle = curl_url() else { return nil }
        guard curl_url_set(handle, CURLUPART_URL, url, 0) == CURLUE_OK else {
            curl_url_cleanup(handle)
            return nil
        }
        self.handle = handle
    }

    deinit { curl_url_cleanup(handle) }

    /// The scheme as written (e.g. `HTTPS`; callers compare it case-insensitively).
    package var scheme: String? { part(CURLUPART_SCHEME) }
    /// The host name or address literal as written (IPv6 in brackets).
    package var host: String? { part(CURLUPART_HOST) }
    /// The port: the URL's own, else the scheme's default (`CURLU_DEFAULT_PORT`: 80 for
    /// `http`, 443 for `https`); nil when the scheme has none libcurl knows.
    package var port: Int? { part(CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)).flatMap { Int($0) } }
    /// The query without its `?`, bytes as written; nil when the URL has none.
    package var query: String? { part(CURLUPART_QUERY) }
    /// The whole URL as libcurl writes it back.
    package var text: String? { part(CURLUPART_URL) }

    /// Replaces the query (given without `?`, bytes kept as given) or, with nil, removes it.
    /// Returns false when libcurl refuses it (the URL is then unchanged).
    package func setQuery(_ query: String?) -> Bool {
        curl_url_set(handle, CURLUPART_QUERY, query, 0) == CURLUE_OK
    }

    private func part(_ which: CURLUPart, flags: UInt32 = 0) -> String? {
        var text: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, which, &text, flags) == CURLUE_OK, let text else { return nil }
        defer { curl_free(text) }
        return String(cString: text)
    }
}
