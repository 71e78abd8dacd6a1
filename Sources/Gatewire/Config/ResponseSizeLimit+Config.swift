extension ResponseSizeLimit {
    /// Reads a `maxResponseBytes` value.
    /// - Throws: ``ConfigError`` at the node unless it is an integer in ``range``.
    package static func bytes(config node: ConfigNode) throws(ConfigError) -> Int {
        Int(try node.integer(in: CallLimits.maxResponseBytes))
    }
}
