extension Cookie {
    /// `{"domain", "include_subdomains", "path", "secure", "http_only", "expires", "name",
    /// "value"}`: `expires` in seconds since the Unix epoch, 0 for a session cookie.
    /// What `gw_client_cookies_json` and the Python binding's `Client.cookies` read.
    public var json: JSONValue {
        let object = JSONValue.object()
        object.set("domain", .string(domain))
        object.set("include_subdomains", .bool(includesSubdomains))
        object.set("path", .string(path))
        object.set("secure", .bool(secure))
        object.set("http_only", .bool(httpOnly))
        object.set("expires", .integer(expires))
        object.set("name", .string(name))
        object.set("value", .string(value))
        return object
    }
}
