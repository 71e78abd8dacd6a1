extension GatewayConfig {
    /// Why a client cannot be made from this config because a setting libcurl or `open(2)`
    /// takes as a C string holds a NUL byte (``CStringRule``: the rest would be lost, so a
    /// jar at `"jar\0.txt"` would be written to `jar`), or nil. The config readers refuse such
    /// text as they read it; this covers the settings a Swift program sets itself
    /// (`config.cookies = CookieJar(file: ...)`). The error names the config field, as the
    /// reader's would.
    package var cStringProblem: ConfigError? {
        let texts: [(field: String, what: String, text: String?)] = [
            ("cookies.file", "the path", cookies?.file), ("cache.directory", "the path", cache?.directory),
            ("caFile", "the path", caFile), ("proxy", "the URL", proxy), ("noProxy", "the text", noProxy),
        ]
        for entry in texts {
            if let text = entry.text, let problem = CStringRule.problem(text, what: entry.what) {
                return ConfigError(path: entry.field, message: problem)
            }
        }
        return nil
    }
}
