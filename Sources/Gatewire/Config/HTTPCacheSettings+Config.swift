import Glibc

extension HTTPCacheSettings {
    /// Reads the config's `cache`: `true` (memory, the defaults), `false` (none: nil), or
    /// `{"maxBytes": 10485760, "directory": "cache"}` (a relative directory is resolved
    /// against the config file's, as `caFile` is, see `ConfigPath`).
    /// - Throws: ``ConfigError`` at the node for another type, an unknown key, a `maxBytes`
    ///   outside ``maxBytesRange``, a `directory` with a NUL byte (``ConfigPath/read(_:relativeTo:)``),
    ///   that cannot be written (nor, when it does not exist yet, created: its parent cannot be
    ///   written), or that exists and is not a private folder of this user
    ///   (``DiskCacheStore/folderProblem(_:)``: a symbolic link, another user's, writable by
    ///   group or others).
    static func from(config node: ConfigNode, directory: String?) throws(ConfigError) -> HTTPCacheSettings? {
        if node.json.bool != nil { return try node.bool() ? HTTPCacheSettings() : nil }
        guard node.json.kind == .object else { throw node.error("expected true, false or an object, got \(node.json.kind.name)") }
        try node.rejectUnknownKeys(["maxBytes", "directory"])
        var settings = HTTPCacheSettings()
        if let bytes = try node.optional("maxBytes") { settings.maxBytes = Int(try bytes.integer(in: maxBytesRange)) }
        if let folder = try node.optional("directory") {
            let path = try ConfigPath.read(folder, relativeTo: directory)
            if let problem = DiskCacheStore.folderProblem(path) { throw folder.error("the cache folder \(problem)") }
            let writable = access(path, F_OK) == 0 ? path : ConfigPath.directory(of: path)
            guard access(writable, W_OK) == 0 else {
                throw folder.error("cannot write to \"\(writable)\": \(String(cString: strerror(errno)))")
            }
            settings.directory = path
        }
        return settings
    }
}
