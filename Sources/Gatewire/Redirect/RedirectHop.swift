/// One redirect an attempt followed: the redirect's status and the URL it led to (redacted:
/// no userinfo, secret query values masked), as kept in ``Attempt/redirects``.
public struct RedirectHop: Sendable, Equatable {
    /// The redirect's status (301, 302, 303, 307 or 308).
    public var status: Int
    /// The URL the next request went to, redacted.
    public var url: String

    /// A hop.
    public init(status: Int, url: String) {
        self.status = status
        self.url = url
    }

    /// `{"status", "url"}`.
    public var json: JSONValue {
        let object = JSONValue.object()
        object.set("status", .integer(Int64(status)))
        object.set("url", .string(url))
        return object
    }
}
