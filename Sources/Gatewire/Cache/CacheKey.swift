import CCrypto

/// Which stored response a GET may be served: its URL and the credentials it carries.
///
/// A response is only ever served to a request with the same credentials as the one it
/// answered (the partition): the values of every secret header field (the client's
/// ``Redactor``: `Authorization`, `Cookie`, `X-Api-Key`, ..., the auth plugins' headers and
/// configured names) and the cookies the jar sends to the URL. The URL itself is part of the
/// key, so its userinfo and secret query parameters partition too. A request without any of
/// them is in the anonymous partition. Both parts are kept only as SHA-256 digests: nothing
/// in a cache's memory or folder holds a credential in clear.
struct CacheKey: Equatable {
    /// The request URL (the stored response's effective URL when it is served).
    let url: String
    /// Hex SHA-256 of the URL: every partition's entry for the URL shares it (an unsafe
    /// method's success drops them all, RFC 9111 section 4.4).
    let urlDigest: String
    /// Hex SHA-256 of the URL and the partition: names the one entry.
    let digest: String
    /// Whether the request carries any credential (it is not in the anonymous partition).
    let hasCredentials: Bool

    /// The key of `request` for a client whose secret names are `redactor`'s, where the
    /// cookie jar (nil: none) sends `jarCookies` to the request's URL.
    init(_ request: HTTPRequest, redactor: Redactor, jarCookies: [Cookie]) {
        url = request.url
        urlDigest = Self.urlDigest(of: request.url)
        var partition: [UInt8] = Array("gatewire-cache-entry\u{0}".utf8) + Array(request.url.utf8) + [0]
        // Field names lower-cased and sorted, their values in order: the same credentials
        // in another field order are the same partition.
        let secret = request.headers.filter { redactor.isSecretHeader($0.name) }
            .map { (name: $0.name.lowercased(), value: $0.value) }
        for field in secret.enumerated().sorted(by: { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }) {
            partition += Array("h\u{0}\(field.element.name)\u{0}\(field.element.value)\u{0}".utf8)
        }
        for cookie in jarCookies.map({ "\($0.name)=\($0.value)" }).sorted() {
            partition += Array("c\u{0}\(cookie)\u{0}".utf8)
        }
        hasCredentials = !secret.isEmpty || !jarCookies.isEmpty
        digest = Self.sha256Hex(partition)
    }

    /// ``urlDigest`` of `url`, the part of a key an unsafe method's success drops.
    static func urlDigest(of url: String) -> String {
        sha256Hex(Array("gatewire-cache-url\u{0}".utf8) + Array(url.utf8))
    }

    /// The hex SHA-256 of `bytes` (OpenSSL's `EVP_Digest`).
    static func sha256Hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let done = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        precondition(done == 1 && length == 32, "OpenSSL's SHA-256 failed")
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        return String(decoding: digest[..<32].flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0x0F)]] }, as: UTF8.self)
    }
}

extension Cookie {
    /// Whether the jar may send this cookie with a request to `host` (lower-case, as
    /// ``URLOrigin`` reads it): its domain is the host or a domain the host is in (RFC 6265
    /// section 5.1.3's domain-match, for host-only cookies too). Path and `Secure` are not
    /// looked at: a cookie counted that libcurl then leaves out only splits the partition
    /// finer (a miss), while one left out that libcurl sends would let two users share a
    /// partition. Expired cookies are not listed at all.
    func mayBeSent(toHost host: String) -> Bool {
        let domain = (domain.hasPrefix(".") ? String(domain.dropFirst()) : domain).lowercased()
        return host == domain || host.hasSuffix("." + domain)
    }
}
