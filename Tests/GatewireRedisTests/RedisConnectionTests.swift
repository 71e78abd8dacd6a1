import GatewireRedis
import GatewireTransport
import Glibc
import Testing

/// The Redis client on Gatewire's event loop against a real redis-server on loopback:
/// commands, pipelining, binary data, login (AUTH, ACL users, SELECT), Unix sockets.
@Suite(.timeLimit(.minutes(1))) struct RedisConnectionTests {
    @Test("a command's reply comes back as the Swift enum: status, integer, bulk, nil, array, error")
    func replies() async throws {
        let server = try RedisServer()
        defer { server.stop() }
        let redis = try await LoopRedis(server.url())
        #expect(await redis.send("SET", "greeting", "hello") == .success(.status("OK")))
        #expect(await redis.send("GET", "greeting") == .success(.bulk(Array("hello".utf8))))
        #expect(await redis.send("GET", "missing") == .success(.null))
        #expect(await redis.send("INCRBY", "n", "41") == .success(.integer(41)))
        #expect(await redis.send("RPUSH", "list", "a", "b") == .success(.integer(2)))
        #expect(await redis.send("LRANGE", "list", "0", "-1") == .success(.array([.bulk([97]), .bulk([98])])))
        let wrongType = try await redis.send("INCR", "list").get()
        #expect(wrongType.errorCode == "WRONGTYPE")
        await redis.close()
    }

    @Test("1,000 INCRs in flight at once on one connection complete in order, 1 to 1,000")
    func pipelining() async throws {
        let server = try RedisServer()
        defer { server.stop() }
        let redis = try await LoopRedis(server.url())
        #expect(await redis.waitUntilAnswering())
        let connection = redis.connection
        let (values, mostInFlight) = await onLoop(redis.loop) { done in
            var values: [Int64] = []
            var mostInFlight = 0
            for _ in 0..<1000 {
                connection.send(RedisCommand("INCR", "counter")) { result in
                    if case let .success(.integer(value)) = result { values.append(value) } else { values.append(-1) }
                    if values.count == 1000 { done((values, mostInFlight)) }
                }
                mostInFlight = max(mostInFlight, connection.pendingCount)
            }
        }
        #expect(values == Array(1...1000))
        #expect(mostInFlight == 1000)  // all sent before the first reply was read
        #expect(await redis.send("GET", "counter") == .success(.bulk(Array("1000".utf8))))
        await redis.close()
    }

    @Test("bulk strings are binary-safe: NUL, CR LF and bytes that are not UTF-8 go and come back as they were")
    func binary() async throws {
        let server = try RedisServer()
        defer { server.stop() }
        let redis = try await LoopRedis(server.url())
        let key: [UInt8] = [0x6B, 0x00, 0x0D, 0x0A, 0xFF]
        let value: [UInt8] = (0...255).map { UInt8($0) } + [0x0D, 0x0A, 0x00]
        #expect(await redis.send(RedisCommand([Array("SET".utf8), key, value])) == .success(.status("OK")))
        #expect(await redis.send(RedisCommand([Array("GET".utf8), key])) == .success(.bulk(value)))
        #expect(await redis.send(RedisCommand([Array("SET".utf8), Array("empty".utf8), []])) == .success(.status("OK")))
        #expect(await redis.send("STRLEN", "empty") == .success(.integer(0)))
        #expect(await redis.send("GET", "empty") == .success(.bulk([])))
        await redis.close()
    }

    @Test("AUTH with the password of requirepass runs before the first command; a wrong one fails every command")
    func password() async throws {
        let server = try RedisServer(password: "s3cret")
        defer { server.stop() }
        let redis = try await LoopRedis(server.url(login: ":s3cret"))
        #expect(await redis.send("SET", "k", "v") == .success(.status("OK")))
        await redis.close()

        let wrong = try await LoopRedis(server.url(login: ":nope"))
        let failure = await wrong.send("GET", "k")
        guard case let .failure(error) = failure else { Issue.record("GET with a wrong password: \(failure)"); return }
        #expect(error.kind == .disconnected)
        #expect(error.message.contains("AUTH was refused: WRONGPASS"))
        #expect(!error.message.contains("nope"))  // the password never appears
        await wrong.close()
    }

    @Test("AUTH as an ACL user (user and password); the user's rules apply to its commands")
    func aclUser() async throws {
        let server = try RedisServer(users: [["alice", "on", ">wonderland", "~cache:*", "+@all"]])
        defer { server.stop() }
        let redis = try await LoopRedis(server.url(login: "alice:wonderland"))
        #expect(await redis.send("SET", "cache:1", "x") == .success(.status("OK")))
        #expect(await redis.send("ACL", "WHOAMI") == .success(.bulk(Array("alice".utf8))))
        let outside = try await redis.send("SET", "other", "x").get()
        #expect(outside.errorCode == "NOPERM")
        await redis.close()
    }

    @Test("SELECT on connect: keys written through /3 are in database 3, not in database 0")
    func select() async throws {
        let server = try RedisServer()
        defer { server.stop() }
        let redis = try await LoopRedis(server.url(database: 3))
        #expect(await redis.send("SET", "in-three", "yes") == .success(.status("OK")))
        await redis.close()
        #expect(try server.cli(["-n", "3", "GET", "in-three"]).trimmingSpaces() == "yes")
        #expect(try server.cli(["-n", "0", "EXISTS", "in-three"]).trimmingSpaces() == "0")
    }

    @Test("a Unix domain socket, with its database: unix:///path?db=2")
    func unixSocket() async throws {
        let server = try RedisServer(unixSocket: true)
        defer { server.stop() }
        let path = try #require(server.socketPath)
        let redis = try await LoopRedis("unix://\(path)?db=2")
        #expect(await redis.send("SET", "via-socket", "1") == .success(.status("OK")))
        #expect(await redis.send("CLIENT", "INFO").map { $0.string?.contains("db=2") == true } == .success(true))
        await redis.close()
        #expect(try server.cli(["-n", "2", "GET", "via-socket"]).trimmingSpaces() == "1")
    }
}
