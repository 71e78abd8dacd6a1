import Glibc

extension CookieJar {
    /// Reads the config's `cookies`: `true` (a jar in memory), `false` (none: nil), or
    /// `{"file": "cookies.txt"}` (persisted; a relative path is resolved against the config
    /// file's directory, as `caFile` is, see `ConfigPath`).
    /// - Throws: ``ConfigError`` at the node for another type, an unknown key, or a file
    ///   whose directory cannot be written (the jar is written there when the client closes).
    static func from(config node: ConfigNode, directory: String?) throws(ConfigError) -> CookieJar? {
        if node.json.bool != nil { return try node.bool() ? CookieJar() : nil }
        guard node.json.kind == .object else { throw node.error("expected true, false or an object, got \(node.json.kind.name)") }
        try node.rejectUnknownKeys(["file"])
        guard let fileNode = try node.optional("file") else { return CookieJar() }
        let file = ConfigPath.absolute(try fileNode.string(), relativeTo: directory)
        guard access(ConfigPath.directory(of: file), W_OK) == 0 else {
            throw fileNode.error("cannot write to the directory of \"\(file)\": \(String(cString: strerror(errno)))")
        }
        return CookieJar(file: file)
    }
}
