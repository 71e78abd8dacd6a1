import GatewireRedis

/// Where a client's circuit breakers keep the state they share with every other client, in
/// any process on any machine, that names the same Redis and ``keyPrefix`` (config key
/// `sharedState`; docs/fleet.md gives the model). Without it (the default) each client keeps
/// its breakers in process, as one process alone needs no server. Pure value.
public struct SharedStateSettings: Sendable, Equatable {
    /// The Redis server or cluster that holds the state.
    package enum Server: Sendable, Equatable {
        /// One server (`redis`: `redis://[user:password@]host:port[/db]` or `unix:///path[?db=N]`).
        case single(RedisEndpoint)
        /// A Redis Cluster, through some of its nodes (`redisCluster`: `["host:port", ...]`, or
        /// `redis://[user:password@]host:port` nodes for a cluster that requires a login: the
        /// first node's login is used on every node; database 0, the only one a cluster has).
        case cluster([RedisEndpoint])
    }

    package var server: Server
    /// The start of every key the client writes (default `gatewire:`): clients that share it
    /// (and the server) share their breakers; another prefix keeps a separate fleet.
    public var keyPrefix = "gatewire:"
    /// How long one operation on the store may take, in seconds (default 0.05): past it the
    /// decision it served is made in process (`CallLimits.duration`'s range).
    public var timeout = 0.05

    package init(server: Server) { self.server = server }

    /// The server as messages show it (the password hidden): `redis://:***@host:6379` or
    /// `the cluster of host:7000, host:7001`.
    package var serverDescription: String {
        switch server {
        case let .single(endpoint): endpoint.description
        case let .cluster(nodes): "the cluster of " + nodes.map(\.description).joined(separator: ", ")
        }
    }
}
