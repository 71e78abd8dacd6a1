import GatewireRedis
import GatewireTransport
import Testing

/// The cluster client against a real cluster of 3 primaries (``RedisClusterServers``):
/// routing by hash slot, hash tags, MOVED after a slot migration, ASK during one.
@Suite(.timeLimit(.minutes(2)), .serialized) struct RedisClusterTests {
    /// A loop and a cluster client seeded with the first node only.
    final class Client: Sendable {
        let loop = EventLoop()
        let cluster: RedisCluster

        init(_ servers: RedisClusterServers, login: String? = nil) async throws {
            let seed = try RedisEndpoint(parsing: servers.nodes[0].url(login: login), field: "redisCluster[0]")
            let loop = loop
            cluster = await onLoop(loop) { done in done(RedisCluster(seeds: [seed], loop: loop)) }
        }

        func send(_ arguments: String...) async -> Result<RedisReply, RedisError> {
            let cluster = cluster
            return await onLoop(loop) { done in
                cluster.send(RedisCommand(arguments.map { Array($0.utf8) }), timeout: 5) { done($0) }
            }
        }

        func node(serving slot: Int) async -> String? {
            let cluster = cluster
            return await onLoop(loop) { done in done(cluster.node(serving: slot)) }
        }

        func close() async {
            let cluster = cluster
            await onLoop(loop) { done in
                cluster.close()
                done(())
            }
            loop.shutdown()
        }
    }

    @Test("the hash slot is Redis's own (CLUSTER KEYSLOT), hash tags included: {user1}.a and {user1}.b share one")
    func slots() throws {
        #expect(RedisHashSlot.crc16(Array("123456789".utf8)[...]) == 0x31C3)  // the specification's check value
        let server = try RedisServer(cluster: true)
        defer { server.stop() }
        for key in ["a", "user:1000", "{user1}.a", "{user1}.b", "foo{}{bar}", "foo{{bar}}zap", "{}", "x{y"] {
            let redis = try server.cli(["cluster", "keyslot", key]).trimmingSpaces()
            #expect(String(RedisHashSlot.of(Array(key.utf8))) == redis, "slot of \(key)")
        }
        #expect(RedisHashSlot.of(Array("{user1}.a".utf8)) == RedisHashSlot.of(Array("{user1}.b".utf8)))
        #expect(RedisHashSlot.of(Array("{user1}.a".utf8)) == RedisHashSlot.of(Array("user1".utf8)))
    }

    @Test("keys are routed to the primary of their slot: 60 keys land on all 3 primaries, each on its slot's owner; a hash-tagged MSET stays on one slot")
    func routing() async throws {
        let servers = try RedisClusterServers()
        defer { servers.stop() }
        let client = try await Client(servers)
        for index in 0..<60 {
            #expect(await client.send("SET", "key:\(index)", "\(index)") == .success(.status("OK")))
        }
        var total = 0
        for node in servers.nodes {
            let keys = Int(try node.cli(["dbsize"]).trimmingSpaces()) ?? -1
            #expect(keys > 0, "a primary holds none of the keys")
            total += keys
        }
        #expect(total == 60)
        for index in [0, 17, 59] {
            let key = "key:\(index)"
            let owner = try servers.node(serving: RedisHashSlot.of(Array(key.utf8)))
            #expect(try owner.cli(["get", key]).trimmingSpaces() == "\(index)")
            #expect(await client.send("GET", key) == .success(.bulk(Array("\(index)".utf8))))
        }
        #expect(await client.send("MSET", "{user1}.a", "1", "{user1}.b", "2") == .success(.status("OK")))
        #expect(await client.send("MGET", "{user1}.a", "{user1}.b") == .success(.array([.bulk([49]), .bulk([50])])))

        // A script runs on its keys' primary (loaded there on NOSCRIPT); keys of two slots are refused.
        let cluster = client.cluster
        let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1]) + redis.call('INCRBY', KEYS[2], ARGV[1])")
        let tagged = [Array("{user2}.x".utf8), Array("{user2}.y".utf8)]
        let sum = await onLoop(client.loop) { done in
            cluster.evalsha(script, keys: tagged, arguments: [Array("3".utf8)], timeout: 5) { done($0) }
        }
        #expect(sum == .success(.integer(6)))
        let split = await onLoop(client.loop) { done in
            cluster.evalsha(script, keys: [Array("x".utf8), Array("y".utf8)], arguments: [[49]]) { done($0) }
        }
        guard case let .failure(error) = split else { Issue.record("a script on two slots: \(split)"); return }
        #expect(error.kind == .invalidArgument)
        await client.close()
    }

    @Test("a cluster whose nodes require a password: the seed's login is used on every node the client finds (keys land on all 3 primaries); a wrong one fails the command with the server's error")
    func login() async throws {
        let servers = try RedisClusterServers(password: "cluster-secret")
        defer { servers.stop() }
        let client = try await Client(servers, login: ":cluster-secret")
        for index in 0..<30 {
            #expect(await client.send("SET", "key:\(index)", "\(index)") == .success(.status("OK")))
        }
        for node in servers.nodes {
            let keys = Int(try node.cli(["dbsize"], auth: servers.auth).trimmingSpaces()) ?? -1
            #expect(keys > 0, "a primary holds none of the keys: its connection did not log in")
        }
        await client.close()

        let wrong = try await Client(servers, login: ":not-the-password")
        let refused = await wrong.send("SET", "key:0", "x")
        guard case let .failure(error) = refused else { Issue.record("a wrong password: \(refused)"); return }
        #expect(error.message.contains("WRONGPASS") || error.message.lowercased().contains("invalid password"),
                "\(error)")
        await wrong.close()
    }

    @Test("MOVED after a slot migrated to another primary: the command follows it and the map is updated")
    func moved() async throws {
        let servers = try RedisClusterServers()
        defer { servers.stop() }
        let client = try await Client(servers)
        let key = "moving"
        let slot = RedisHashSlot.of(Array(key.utf8))
        #expect(await client.send("SET", key, "v1") == .success(.status("OK")))
        let source = try servers.node(serving: slot)
        let target = try #require(servers.nodes.first { $0 !== source })
        #expect(await client.node(serving: slot) == "127.0.0.1:\(source.port)")

        // The specification's migration: IMPORTING, MIGRATING, MIGRATE the keys, SETSLOT NODE.
        let (sourceID, targetID) = (try servers.id(of: source), try servers.id(of: target))
        _ = try target.cli(["cluster", "setslot", String(slot), "importing", sourceID])
        _ = try source.cli(["cluster", "setslot", String(slot), "migrating", targetID])
        _ = try source.cli(["migrate", "127.0.0.1", String(target.port), "", "0", "5000", "keys", key])
        for node in servers.nodes { _ = try node.cli(["cluster", "setslot", String(slot), "node", targetID]) }

        #expect(await client.send("GET", key) == .success(.bulk(Array("v1".utf8))))
        #expect(await client.node(serving: slot) == "127.0.0.1:\(target.port)")
        #expect(await client.send("SET", key, "v2") == .success(.status("OK")))
        #expect(try target.cli(["get", key]).trimmingSpaces() == "v2")
        await client.close()
    }

    @Test("ASK while a slot migrates: a key the source no longer has goes to the target after ASKING; the map is not changed")
    func ask() async throws {
        let servers = try RedisClusterServers()
        defer { servers.stop() }
        let client = try await Client(servers)
        let key = "arriving"
        let slot = RedisHashSlot.of(Array(key.utf8))
        #expect(await client.send("PING") == .success(.status("PONG")))  // the map is in
        let source = try servers.node(serving: slot)
        let target = try #require(servers.nodes.first { $0 !== source })
        _ = try target.cli(["cluster", "setslot", String(slot), "importing", try servers.id(of: source)])
        _ = try source.cli(["cluster", "setslot", String(slot), "migrating", try servers.id(of: target)])

        // The source is MIGRATING and lacks the key: it answers -ASK, the target takes it.
        #expect(await client.send("SET", key, "here") == .success(.status("OK")))
        #expect(try target.cli(["cluster", "countkeysinslot", String(slot)]).trimmingSpaces() == "1")
        #expect(try source.cli(["cluster", "countkeysinslot", String(slot)]).trimmingSpaces() == "0")
        #expect(await client.node(serving: slot) == "127.0.0.1:\(source.port)")
        await client.close()
    }
}
