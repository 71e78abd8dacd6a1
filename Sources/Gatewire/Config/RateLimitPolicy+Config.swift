extension RateLimitPolicy {
    /// Reads `false` (no limit) or `{"requests": 100, "per": 1, "burst": 10, "scope": "host",
    /// "wait": true, "pauseOnRetryAfter": true, "maxPause": 60}`; every field is optional.
    /// Ranges: `requests` 1...1000000, `per` seconds in 0.001...86400 (``CallLimits/duration``),
    /// `burst` 0...1000000, `scope` `"host"` or `"route"`, `maxPause` seconds in 0...86400
    /// (``CallLimits/delay``).
    /// - Throws: ``ConfigError`` naming the field.
    package init(config: ConfigNode) throws(ConfigError) {
        if config.json.kind == .bool {
            guard try !config.bool() else {
                throw config.error("expected false or an object {\"requests\", \"per\", \"burst\", ...}")
            }
            self = .off
            return
        }
        self.init(requests: nil)
        try config.rejectUnknownKeys(["requests", "per", "burst", "scope", "wait", "pauseOnRetryAfter", "maxPause"])
        if let node = try config.optional("requests") { requests = Int(try node.integer(in: 1...Self.countRange.upperBound)) }
        if let node = try config.optional("per") { per = try node.number(in: CallLimits.duration) }
        if let node = try config.optional("burst") { burst = Int(try node.integer(in: Self.countRange)) }
        if let node = try config.optional("scope") {
            let name = try node.string()
            guard let scope = Scope(rawValue: name) else {
                throw node.error("unknown scope \"\(name)\" (expected \"host\" or \"route\")")
            }
            self.scope = scope
        }
        if let node = try config.optional("wait") { wait = try node.bool() }
        if let node = try config.optional("pauseOnRetryAfter") { pauseOnRetryAfter = try node.bool() }
        if let node = try config.optional("maxPause") { maxPause = try node.number(in: CallLimits.delay) }
    }
}
