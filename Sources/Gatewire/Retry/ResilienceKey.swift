/// The key under which a client keeps its resilience state per host: retry budgets, circuit
/// breakers, and the fleet's shared state in Redis.
enum ResilienceKey {
    /// The `host[:port]` part of an absolute URL, lower-cased (userinfo dropped).
    static func host(of url: String) -> String {
        var rest = Substring(url)
        for scheme in ["http://", "https://"] where url.hasPrefix(scheme) { rest = rest.dropFirst(scheme.count) }
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<end]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return authority.lowercased()
    }
}
