extension HTTPCacheSettings {
    /// Reads the config's `cache`: `true` (memory, the defaults), `false` (none: nil), or
    /// `{"maxBytes": 10485760, "directory": "cache"}` (a relative directory is resolved
    /// against the config file's, as `caFile` is, see `ConfigPath`).
    /// - Throws: ``ConfigError`` at the node for another type, an unknown key, a `maxBytes`
    ///   outside ``maxBytesRange``.
    static func from(config node: ConfigNode, directory: String?) throws(ConfigError) -> HTTPCacheSettings? {
        if node.json.bool != nil { return try node.bool() ? HTTPCacheSettings() : nil }
        guard node.json.kind == .object else { throw node.error("expected true, false or an object, got \(node.json.kind.name)") }
        try node.rejectUnknownKeys(["maxBytes", "directory"])
        var settings = HTTPCacheSettings()
        if let bytes = try node.optional("maxBytes") { settings.maxBytes = Int(try bytes.integer(in: maxBytesRange)) }
        if let folder = try node.optional("directory") {
            settings.directory = ConfigPath.absolute(try folder.string(), relativeTo: directory)
        }
        return settings
    }
}
