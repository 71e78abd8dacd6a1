extension RedirectPolicy {
    /// Reads `false` (follow none) or `{"follow": "none" | "sameOrigin" | "any", "max": 10,
    /// "allowDowngrade": false, "allowCrossOriginBody": false}`; absent fields keep
    /// `inheriting`'s (a route's or a call's `redirects` over the gateway's).
    /// - Throws: ``ConfigError`` naming the field: an unknown `follow` word, `max` outside
    ///   0...50 or not an integer, a flag that is not a boolean, an unknown key.
    package init(config: ConfigNode, inheriting defaults: RedirectPolicy = RedirectPolicy()) throws(ConfigError) {
        self = defaults
        if config.json.kind == .bool {
            guard try !config.bool() else {
                throw config.error("expected false (follow none) or an object {\"follow\", \"max\", \"allowDowngrade\", \"allowCrossOriginBody\"}")
            }
            follow = .none
            return
        }
        try config.rejectUnknownKeys(["follow", "max", "allowDowngrade", "allowCrossOriginBody"])
        if let node = try config.optional("follow") {
            let word = try node.string()
            guard let value = Follow(rawValue: word) else {
                let known = Follow.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw node.error("unknown value \"\(word)\" (expected one of: \(known))")
            }
            follow = value
        }
        if let node = try config.optional("max") { maxRedirects = Int(try node.integer(in: CallLimits.maxRedirects)) }
        if let node = try config.optional("allowDowngrade") { allowDowngrade = try node.bool() }
        if let node = try config.optional("allowCrossOriginBody") { allowCrossOriginBody = try node.bool() }
    }
}
