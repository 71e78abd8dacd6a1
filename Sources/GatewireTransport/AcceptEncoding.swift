import CCurl

/// The `Accept-Encoding` request field, sent by Gatewire itself instead of by libcurl.
///
/// With `CURLOPT_ACCEPT_ENCODING` set to "" libcurl decodes every encoding it was built with
/// and writes the field listing them, formatting it anew (`aprintf`) for every request:
/// about 10,000 instructions a request, measured, for a constant line. libcurl writes no
/// field of its own when the request already has one, and still decodes, so Gatewire keeps
/// the option (for the decoding) and sends the same line from a list built once.
package enum AcceptEncoding {
    /// `Accept-Encoding: deflate, gzip, br, zstd`: libcurl's own value (its decoders in its
    /// order, lib/content_encoding.c), from the features this libcurl was built with; nil when
    /// it decodes nothing (libcurl then writes the field itself, as before).
    static let field: String? = {
        guard let info = curl_version_info(CURLVERSION_ELEVENTH) else { return nil }
        let features = info.pointee.features
        var names: [String] = []
        if features & CURL_VERSION_LIBZ != 0 { names += ["deflate", "gzip"] }
        if features & CURL_VERSION_BROTLI != 0 { names.append("br") }
        if features & CURL_VERSION_ZSTD != 0 { names.append("zstd") }
        return names.isEmpty ? nil : "Accept-Encoding: " + names.joined(separator: ", ")
    }()

    /// A `curl_slist` holding only ``field``, shared by every transfer that sends no other
    /// header field (libcurl only reads it). Built once and never freed; nil without a field.
    static let onlyField = SharedList(field.map { curl_slist_append(nil, $0) })

    /// A list that lives as long as the process and is never changed.
    struct SharedList: @unchecked Sendable {
        let list: UnsafeMutablePointer<curl_slist>?
        init(_ list: UnsafeMutablePointer<curl_slist>?) { self.list = list }
    }
}
