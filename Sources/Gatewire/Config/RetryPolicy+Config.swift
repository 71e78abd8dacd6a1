extension RetryPolicy {
    /// The config keys of the `retry` object.
    package static let configKeys: Set<String> = [
        "maxRetries", "initialDelay", "multiplier", "maxDelay", "jitter", "statusCodes", "methods", "maxRetryAfter",
        "idempotencyKey", "retryNonIdempotent",
    ]

    /// Reads the gateway config's `retry` object, e.g.
    /// `{"maxRetries": 3, "initialDelay": 0.5, "multiplier": 2, "maxDelay": 30, "jitter": "full",
    ///   "statusCodes": [408, 429, 500, 502, 503, 504], "methods": ["GET", "PUT"], "maxRetryAfter": 60}`.
    ///
    /// Every field is optional and defaults as in ``init(maxRetries:initialDelay:multiplier:maxDelay:jitter:retryableStatusCodes:retryableMethods:maxRetryAfter:idempotencyKey:retryNonIdempotent:)``.
    /// Ranges: `maxRetries` an integer in 0...100; `initialDelay`, `maxDelay` and
    /// `maxRetryAfter` seconds in 0...86400; `multiplier` in 1...1000; `jitter` one of
    /// "none", "full", "equal", "decorrelated"; `statusCodes` integers in 100...599; `methods` HTTP method
    /// names (case-insensitive).
    /// - Throws: ``ConfigError`` naming the field, e.g. `retry.statusCodes[2]`, for a wrong
    ///   type, a value out of range, an unknown name or an unknown key.
    package init(config: ConfigNode) throws(ConfigError) {
        try self.init(config: config, inheriting: RetryPolicy())
    }

    /// Reads a `retry` object whose absent fields keep the values of `base` (a route's
    /// `retry` inherits the gateway's, a call's inherits its route's).
    /// - Throws: ``ConfigError`` as ``init(config:)``.
    package init(config: ConfigNode, inheriting base: RetryPolicy) throws(ConfigError) {
        self = base
        try config.rejectUnknownKeys(Self.configKeys)
        if let node = try config.optional("maxRetries") {
            maxRetries = Int(try node.integer(in: CallLimits.maxRetries))
        }
        if let node = try config.optional("initialDelay") {
            initialDelay = try node.number(in: CallLimits.delay)
        }
        if let node = try config.optional("multiplier") {
            multiplier = try node.number(in: CallLimits.delayMultiplier)
        }
        if let node = try config.optional("maxDelay") {
            maxDelay = try node.number(in: CallLimits.delay)
        }
        if let node = try config.optional("jitter") {
            let name = try node.string()
            guard let value = Jitter(rawValue: name) else {
                throw node.error("unknown jitter \"\(name)\" (expected one of: none, full, equal, decorrelated)")
            }
            jitter = value
        }
        if let node = try config.optional("statusCodes") {
            var codes: Set<Int> = []
            for element in try node.elements() {
                codes.insert(Int(try element.integer(in: 100...599)))
            }
            retryableStatusCodes = codes
        }
        if let node = try config.optional("methods") {
            var methods: Set<HTTPMethod> = []
            for element in try node.elements() {
                let name = try element.string()
                guard let method = HTTPMethod(name: name) else {
                    let known = HTTPMethod.allCases.map(\.rawValue).joined(separator: ", ")
                    throw element.error("unknown method \"\(name)\" (expected one of: \(known))")
                }
                methods.insert(method)
            }
            retryableMethods = methods
        }
        if let node = try config.optional("maxRetryAfter") {
            maxRetryAfter = try node.number(in: CallLimits.delay)
        }
        if let node = try config.optional("idempotencyKey") { idempotencyKey = try node.bool() }
        if let node = try config.optional("retryNonIdempotent") { retryNonIdempotent = try node.bool() }
    }
}
