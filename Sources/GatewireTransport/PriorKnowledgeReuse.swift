import CCurl

/// Whether the libcurl in use can send a second request on an HTTP/2 connection it opened
/// with prior knowledge (h2c). libcurl before 8.0.0 (Debian 12 ships 7.88.1) cannot: on
/// such a connection every request after the first, reused or multiplexed, fails with
/// "Error in the HTTP2 framing layer" (curl issue #10634, fixed in 8.0.0 by curl PR #10643).
/// Until then a prior-knowledge transfer opens its own connection and closes it after
/// (`CURLOPT_FRESH_CONNECT`, `CURLOPT_FORBID_REUSE`): it still speaks HTTP/2, without sharing.
enum PriorKnowledgeReuse {
    /// True from libcurl 8.0.0 (read once from `curl_version_info`).
    static let works: Bool = {
        guard let info = curl_version_info(CURLVERSION_ELEVENTH) else { return false }
        return info.pointee.version_num >= 0x08_00_00
    }()
}
