import Gatewire
import Testing

/// The config's `sharedState`: one Redis or one cluster, a key prefix and a timeout, every
/// mistake an error naming its field (and never showing a password).
@Suite struct SharedStateConfigTests {
    static let base = #""baseURL": "http://127.0.0.1:1""#

    func error(_ sharedState: String) -> ConfigError? {
        configError(#"{\#(Self.base), "sharedState": \#(sharedState)}"#)
    }

    @Test("the defaults: in process without the key; a server's URL, the prefix gatewire: and a 0.05 s timeout with it")
    func defaults() throws {
        #expect(try GatewayConfig(json: "{\(Self.base)}").sharedState == nil)
        let shared = try #require(try GatewayConfig(json: #"{\#(Self.base), "sharedState": {"redis": "redis://:pw@127.0.0.1:6380/2"}}"#)
            .sharedState)
        #expect(shared.keyPrefix == "gatewire:")
        #expect(shared.timeout == 0.05)
        let custom = try #require(try GatewayConfig(json: #"""
            {\#(Self.base), "sharedState": {"redisCluster": ["127.0.0.1:7000", "[::1]:7001"], "keyPrefix": "svc:", "timeout": 0.2}}
            """#).sharedState)
        #expect(custom.keyPrefix == "svc:" && custom.timeout == 0.2)
        #expect(try GatewayConfig(json: #"{\#(Self.base), "sharedState": {"redis": "unix:///run/redis.sock?db=1"}}"#)
            .sharedState != nil)
    }

    @Test("mistakes name the field: unknown key, neither or both stores, a bad URL or node, a bad prefix or timeout")
    func mistakes() {
        #expect(error(#"{"redis": "redis://h", "ttl": 1}"#)?.path == "sharedState.ttl")
        let neither = error(#"{"keyPrefix": "x:"}"#)
        #expect(neither?.path == "sharedState")
        #expect(neither?.message.hasPrefix("name the store") == true)
        #expect(error(#"{"redis": "redis://h", "redisCluster": ["h:1"]}"#)?.message.contains("exclude each other") == true)
        let url = error(#"{"redis": "http://user:secret@h:6379"}"#)
        #expect(url?.path == "sharedState.redis")
        #expect(url?.message.contains("is not a Redis URL") == true)
        #expect(url?.message.contains("secret") == false)
        #expect(error(#"{"redis": "redis://h:99999"}"#)?.path == "sharedState.redis")
        let node = error(#"{"redisCluster": ["127.0.0.1:7000", "h"]}"#)
        #expect(node?.path == "sharedState.redisCluster[1]")
        #expect(node?.message.contains("no port") == true)
        #expect(error(#"{"redisCluster": []}"#)?.path == "sharedState.redisCluster")
        #expect(error(#"{"redis": "redis://h", "keyPrefix": ""}"#)?.path == "sharedState.keyPrefix")
        #expect(error(#"{"redis": "redis://h", "timeout": 0}"#)?.path == "sharedState.timeout")
        #expect(error(#"{"redis": "redis://h", "timeout": "fast"}"#)?.path == "sharedState.timeout")
    }

    @Test("a cluster node may carry the login its cluster requires (redis://user:password@host:port); a database or a Unix socket is refused, the password never shown")
    func clusterLogin() throws {
        let shared = try #require(try GatewayConfig(json: #"""
            {\#(Self.base), "sharedState": {"redisCluster": ["redis://app:s3cret@127.0.0.1:7000", "127.0.0.1:7001"]}}
            """#).sharedState)
        guard case let .cluster(nodes) = shared.server else { Issue.record("not a cluster: \(shared.server)"); return }
        #expect(nodes.map(\.username) == ["app", nil])
        #expect(nodes.map(\.password) == ["s3cret", nil])
        #expect(nodes.map(\.database) == [0, 0])
        #expect(!shared.serverDescription.contains("s3cret"))
        let database = error(#"{"redisCluster": ["redis://:s3cret@127.0.0.1:7000/2"]}"#)
        #expect(database?.path == "sharedState.redisCluster[0]")
        #expect(database?.message.contains("database 0 only") == true)
        #expect(database?.message.contains("s3cret") == false)
        let socket = error(#"{"redisCluster": ["unix:///run/redis.sock"]}"#)
        #expect(socket?.message.contains("not a Unix socket") == true)
    }
}
