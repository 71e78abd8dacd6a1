import GatewireRedis
import Testing

/// Redis URLs as the fleet's config gives them: what each form means, and the error (with
/// the field's name, never the password) for anything else.
@Suite struct RedisEndpointTests {
    @Test("redis:// with a password, an ACL user, a port and a database; the port defaults to 6379")
    func tcp() throws {
        let full = try RedisEndpoint(parsing: "redis://alice:p%40ss@127.0.0.1:7000/3", field: "redis")
        #expect(full.address == .tcp(host: "127.0.0.1", port: 7000))
        #expect(full.username == "alice")
        #expect(full.password == "p@ss")
        #expect(full.database == 3)
        #expect(full.description == "redis://alice:***@127.0.0.1:7000/3")

        let passwordOnly = try RedisEndpoint(parsing: "redis://:secret@cache.internal", field: "redis")
        #expect(passwordOnly.address == .tcp(host: "cache.internal", port: 6379))
        #expect(passwordOnly.username == nil)
        #expect(passwordOnly.password == "secret")
        #expect(passwordOnly.database == 0)

        let v6 = try RedisEndpoint(parsing: "redis://[::1]:6380", field: "redis")
        #expect(v6.address == .tcp(host: "::1", port: 6380))
        #expect(v6.description == "redis://[::1]:6380")
    }

    @Test("unix:// with an absolute path and ?db=N")
    func unix() throws {
        let endpoint = try RedisEndpoint(parsing: "unix:///run/redis/redis.sock?db=4", field: "redis")
        #expect(endpoint.address == .unix(path: "/run/redis/redis.sock"))
        #expect(endpoint.database == 4)
        #expect(try RedisEndpoint(parsing: "unix:///tmp/r.sock", field: "redis").database == 0)
    }

    @Test("a cluster node's host:port")
    func hostPort() throws {
        let login = try RedisEndpoint(parsing: "redis://:pw@127.0.0.1:7000", field: "redisCluster[0]")
        let node = try RedisEndpoint(hostPort: "127.0.0.1:7001", login: login, field: "redisCluster[1]")
        #expect(node.address == .tcp(host: "127.0.0.1", port: 7001))
        #expect(node.password == "pw")
        #expect(throws: RedisEndpointError(field: "redisCluster[1]", message: "\"127.0.0.1\": no port (write host:port)")) {
            try RedisEndpoint(hostPort: "127.0.0.1", field: "redisCluster[1]")
        }
    }

    @Test("anything else is refused with the field's name and what is wrong (the password hidden)", arguments: [
        ("http://127.0.0.1:6379", "is not a Redis URL"),
        ("rediss://:pw@127.0.0.1:6379", "\"rediss://***@127.0.0.1:6379\" is not a Redis URL"),
        ("redis://127.0.0.1:0", "the port \"0\" is not a number from 1 to 65535"),
        ("redis://127.0.0.1:http", "the port \"http\" is not a number"),
        ("redis://127.0.0.1:6379/x", "the database \"x\" is not a number from 0 up"),
        ("redis://:6379", "no host"),
        ("redis://127.0.0.1:6379?db=1", "takes no query"),
        ("redis://user:@127.0.0.1", "the password after \":\" is empty"),
        ("unix://relative/redis.sock", "needs an absolute socket path"),
        ("unix:///tmp/r.sock?database=1", "unknown parameter \"database\""),
        ("redis://[::1:6379", "closing \"]\""),
    ])
    func refused(text: String, message: String) {
        do {
            _ = try RedisEndpoint(parsing: text, field: "fleet.redis")
            Issue.record("\(text) was accepted")
        } catch let error as RedisEndpointError {
            #expect(error.field == "fleet.redis")
            #expect(error.description.hasPrefix("fleet.redis: "))
            #expect(error.message.contains(message), "\(error)")
            #expect(!error.message.contains("pw@"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("the backoff doubles from the first delay up to the cap, jittered between half and all of it")
    func backoff() {
        var options = RedisConnectionOptions()
        options.initialReconnectDelay = 0.1
        options.maxReconnectDelay = 1
        #expect(options.reconnectDelay(attempt: 0, random: 0) == 0.05)
        #expect(options.reconnectDelay(attempt: 0, random: 0.999_999) < 0.1)
        #expect(options.reconnectDelay(attempt: 2, random: 0) == 0.2)
        #expect(options.reconnectDelay(attempt: 10, random: 0) == 0.5)
        #expect(options.reconnectDelay(attempt: 10_000, random: 1) == 1)
    }
}
