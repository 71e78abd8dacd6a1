import GatewireRedis

extension SharedStateSettings {
    /// The keys `sharedState` accepts.
    static let configKeys: Set<String> = ["redis", "redisCluster", "keyPrefix", "timeout"]
    /// The longest ``keyPrefix``, in bytes (a key's name is the prefix, a host and a policy's id).
    static let maxKeyPrefixBytes = 256

    /// Reads the config's `sharedState`: `{"redis": "redis://[user:password@]host:port[/db]"}`
    /// (or `"unix:///path/redis.sock[?db=N]"`) or `{"redisCluster": ["host:port", ...]}` (one
    /// of the two; a node may be written `redis://[user:password@]host:port` to log in, see
    /// ``clusterNode(_:field:)``), with the optional `keyPrefix` (a string of 1...256 bytes without NUL,
    /// default `gatewire:`) and `timeout` (seconds, in ``CallLimits/duration``, default 0.05).
    /// - Throws: ``ConfigError`` naming the field: an unknown key, both or neither of `redis`
    ///   and `redisCluster`, a URL or node that is not one (``RedisEndpoint``'s rules; a
    ///   password never appears in the message), an empty cluster list, a value out of range.
    init(config node: ConfigNode) throws(ConfigError) {
        try node.rejectUnknownKeys(Self.configKeys)
        let single = try node.optional("redis")
        let cluster = try node.optional("redisCluster")
        switch (single, cluster) {
        case let (single?, nil):
            let text = try single.string(checkedBy: { CStringRule.problem($0) })
            do {
                self.init(server: .single(try RedisEndpoint(parsing: text, field: single.path)))
            } catch let error as RedisEndpointError {
                throw single.error(error.message)
            } catch {
                throw single.error("\(error)")
            }
        case let (nil, cluster?):
            let elements = try cluster.elements()
            guard !elements.isEmpty else { throw cluster.error("name at least one node, as [\"host:port\", ...]") }
            var nodes: [RedisEndpoint] = []
            for element in elements {
                let text = try element.string(checkedBy: { CStringRule.problem($0) })
                do {
                    nodes.append(try Self.clusterNode(text, field: element.path))
                } catch let error as RedisEndpointError {
                    throw element.error(error.message)
                } catch {
                    throw element.error("\(error)")
                }
            }
            self.init(server: .cluster(nodes))
        case (nil, nil):
            throw node.error("name the store: \"redis\": \"redis://host:port\" or \"redisCluster\": [\"host:port\", ...]")
        case (_?, _?):
            throw node.error("\"redis\" and \"redisCluster\" exclude each other: name one server or one cluster")
        }
        if let prefix = try node.optional("keyPrefix") {
            keyPrefix = try prefix.string(checkedBy: { text in
                if let problem = CStringRule.problem(text) { return problem }
                if text.isEmpty { return "must not be empty (it keeps this fleet's keys apart)" }
                if text.utf8.count > Self.maxKeyPrefixBytes { return "is longer than \(Self.maxKeyPrefixBytes) bytes" }
                return nil
            })
        }
        if let seconds = try node.optional("timeout") { timeout = try seconds.number(in: CallLimits.duration) }
    }

    /// One node of `redisCluster`: `host:port`, or `redis://[user:password@]host:port` for a
    /// cluster whose nodes require a login (`requirepass` or an ACL user). The first node's
    /// login is the one used on every node, also on those the client finds through `CLUSTER
    /// SLOTS`, `MOVED` and `ASK` (a cluster's nodes share their users: Redis Cluster
    /// specification, "ACL" and `masterauth`).
    /// - Throws: ``RedisEndpointError`` naming `field`: not a node, a Unix socket (a cluster
    ///   node is TCP), or a database other than 0 (a cluster has database 0 only).
    static func clusterNode(_ text: String, field: String) throws -> RedisEndpoint {
        guard text.hasPrefix("redis://") || text.hasPrefix("unix://") else { return try RedisEndpoint(hostPort: text, field: field) }
        let endpoint = try RedisEndpoint(parsing: text, field: field)
        guard case .tcp = endpoint.address else {
            throw RedisEndpointError(field: field, message: "a cluster node is host:port or redis://[user:password@]host:port, not a Unix socket")
        }
        guard endpoint.database == 0 else {
            throw RedisEndpointError(field: field, message: "a cluster has database 0 only (\(endpoint) names database \(endpoint.database))")
        }
        return endpoint
    }
}
