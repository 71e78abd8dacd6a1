extension RetryBudget {
    /// Reads `false` (no budget) or `{"maxTokens": 10, "tokenRatio": 0.1}` (every field
    /// optional; `maxTokens` in 1...1000, `tokenRatio` in 0.001...1000, as gRPC's limits).
    /// - Throws: ``ConfigError`` naming the field.
    package init(config: ConfigNode) throws(ConfigError) {
        if config.json.kind == .bool {
            guard try !config.bool() else {
                throw config.error("expected false or an object {\"maxTokens\", \"tokenRatio\"}")
            }
            self = .off
            return
        }
        self.init()
        try config.rejectUnknownKeys(["maxTokens", "tokenRatio"])
        if let node = try config.optional("maxTokens") { maxTokens = try node.number(in: 1...1000) }
        if let node = try config.optional("tokenRatio") { tokenRatio = try node.number(in: 0.001...1000) }
    }
}
