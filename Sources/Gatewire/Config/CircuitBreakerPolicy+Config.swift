extension CircuitBreakerPolicy {
    /// Reads `false` (no breaker) or `{"failureRatio": 0.5, "minimumThroughput": 10,
    /// "samplingDuration": 30, "breakDuration": 5, "statusCodes": [500, 503]}`. Every field
    /// is optional. Ranges: `failureRatio` 0...1, `minimumThroughput` 1...100000,
    /// `samplingDuration` and `breakDuration` seconds in 0.001...86400, `statusCodes`
    /// integers in 100...599.
    /// - Throws: ``ConfigError`` naming the field.
    package init(config: ConfigNode) throws(ConfigError) {
        if config.json.kind == .bool {
            guard try !config.bool() else {
                throw config.error("expected false or an object {\"failureRatio\", \"minimumThroughput\", ...}")
            }
            self = .off
            return
        }
        self.init()
        try config.rejectUnknownKeys(["failureRatio", "minimumThroughput", "samplingDuration", "breakDuration",
                                      "statusCodes"])
        if let node = try config.optional("failureRatio") { failureRatio = try node.number(in: 0...1) }
        if let node = try config.optional("minimumThroughput") {
            minimumThroughput = Int(try node.integer(in: 1...100_000))
        }
        if let node = try config.optional("samplingDuration") { samplingDuration = try node.number(in: CallLimits.duration) }
        if let node = try config.optional("breakDuration") { breakDuration = try node.number(in: CallLimits.duration) }
        if let node = try config.optional("statusCodes") {
            var codes: Set<Int> = []
            for element in try node.elements() { codes.insert(Int(try element.integer(in: 100...599))) }
            failureStatusCodes = codes
        }
    }
}
