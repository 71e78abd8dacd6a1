extension ConnectionLimits {
    /// Reads the config's `maxConnectionsPerHost`, `maxConnections` (integers in
    /// ``connectionRange``) and `http2.maxConcurrentStreams` (in ``streamRange``) from the
    /// root object `root` and its `http2` object `http2`; an absent key keeps its default.
    /// - Throws: ``ConfigError`` at the node with a value out of range or of another type.
    init(root: ConfigNode, http2: ConfigNode?) throws(ConfigError) {
        self.init()
        let connections = Int64(Self.connectionRange.lowerBound)...Int64(Self.connectionRange.upperBound)
        if let node = try root.optional("maxConnectionsPerHost") { maxConnectionsPerHost = Int(try node.integer(in: connections)) }
        if let node = try root.optional("maxConnections") { maxConnections = Int(try node.integer(in: connections)) }
        if let node = try http2?.optional("maxConcurrentStreams") {
            maxConcurrentStreams = Int(try node.integer(in: Int64(Self.streamRange.lowerBound)...Int64(Self.streamRange.upperBound)))
        }
    }
}
