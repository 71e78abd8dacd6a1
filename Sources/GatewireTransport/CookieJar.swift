/// A client's opt-in cookie jar (config key `cookies`): libcurl's cookie engine, whose
/// cookies every transfer of the client's event loop shares.
///
/// libcurl applies its own rules (RFC 6265): a cookie goes back only to the host (or, with
/// `Domain=`, the domain) and path that set it, `Secure` ones only over https, expired ones
/// never; a `Set-Cookie` whose `Domain=` does not domain-match the responding host, or names
/// a public suffix, is refused.
public struct CookieJar: Sendable, Equatable {
    /// The file the jar is loaded from when the client is made and written to when it closes
    /// (Netscape cookie-file format, as curl's `-b FILE -c FILE`), or nil to keep the cookies
    /// in memory only. A file that does not exist yet is an empty jar (created empty, mode
    /// 0600, when the client is made). The path must not be a symbolic link: the client's
    /// creation fails on one, and the jar is written as a new mode-0600 file renamed onto
    /// the path, never written through a link.
    public var file: String?

    /// A jar in memory (`file` nil) or persisted to `file`.
    public init(file: String? = nil) { self.file = file }
}

/// One cookie of a jar, as libcurl's `CURLINFO_COOKIELIST` lists it (Netscape format:
/// domain, subdomains flag, path, secure flag, expiry, name, value; `#HttpOnly_` before the
/// domain of an HttpOnly cookie).
public struct Cookie: Sendable, Equatable {
    /// The host or domain it is sent to (a leading `.` for a `Domain=` cookie).
    public var domain: String
    /// Whether subdomains of `domain` get it too (it was set with `Domain=`).
    public var includesSubdomains: Bool
    /// The path prefix it is sent for.
    public var path: String
    /// Whether it is sent over https only.
    public var secure: Bool
    /// Whether the server marked it HttpOnly.
    public var httpOnly: Bool
    /// When it expires, in seconds since the Unix epoch; 0 for a session cookie.
    public var expires: Int64
    /// Its name.
    public var name: String
    /// Its value.
    public var value: String

    /// Parses one line of libcurl's cookie list; nil when it does not have the seven fields.
    package init?(netscapeLine line: String) {
        var text = Substring(line)
        httpOnly = text.hasPrefix("#HttpOnly_")
        if httpOnly { text = text.dropFirst("#HttpOnly_".count) }
        let fields = text.split(separator: "\t", maxSplits: 6, omittingEmptySubsequences: false)
        guard fields.count == 7, let expires = Int64(fields[4]) else { return nil }
        domain = String(fields[0])
        includesSubdomains = fields[1] == "TRUE"
        path = String(fields[2])
        secure = fields[3] == "TRUE"
        self.expires = expires
        name = String(fields[5])
        value = String(fields[6])
    }
}
