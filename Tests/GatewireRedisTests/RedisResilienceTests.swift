import GatewireBase
import GatewireRedis
import GatewireTransport
import Glibc
import Testing

/// What the client does when Redis stalls, dies or comes back: a command's timeout fires
/// once while the loop keeps serving HTTP, commands fail at once while disconnected, the
/// client reconnects (logging in again), and its queue stays bounded.
@Suite(.timeLimit(.minutes(1))) struct RedisResilienceTests {
    @Test("a stopped Redis: the command's completion gets the timeout error once, the loop serves an HTTP call meanwhile, the late reply is dropped")
    func timeoutWhileStopped() async throws {
        let server = try RedisServer()
        defer { server.stop() }
        let http = try TestServer()
        defer { http.stop() }
        let redis = try await LoopRedis(server.url())
        #expect(await redis.waitUntilAnswering())
        server.signal(SIGSTOP)

        let connection = redis.connection
        let loop = redis.loop
        let calls = Lock<[Result<RedisReply, RedisError>]>([])
        let url = http.baseURL + "/echo/during-stall"
        // The GET's timeout and an HTTP transfer, started together on the loop.
        let (elapsed, status): (Double, Int) = await onLoop(loop) { (done: @escaping @Sendable ((Double, Int)) -> Void) in
            let started = MonotonicClock.now()
            var timedOutAfter: Double?
            var httpStatus: Int?
            func finishIfBoth() {
                if let timedOutAfter, let httpStatus { done((timedOutAfter, httpStatus)) }
            }
            connection.send(RedisCommand("GET", "k"), timeout: 0.3) { result in
                calls.withLock { $0.append(result) }
                timedOutAfter = MonotonicClock.now() - started
                finishIfBoth()
            }
            loop.start(Transfer(request: HTTPRequest(method: .get, url: url), options: TransferOptions()) { result in
                httpStatus = result.response?.status ?? -1
                finishIfBoth()
            })
        }
        #expect(status == 200)
        #expect(elapsed >= 0.3 && elapsed < 5)
        let first = calls.withLock { $0 }
        #expect(first.count == 1)
        guard case let .failure(error)? = first.first else { Issue.record("GET while stopped: \(first)"); return }
        #expect(error.kind == .timeout)
        #expect(error.message.contains("within 0.3 s (GET)"))

        // Redis resumes: the GET's late reply arrives before the PING's and is dropped.
        server.signal(SIGCONT)
        #expect(await redis.send("PING") == .success(.status("PONG")))
        #expect(calls.withLock { $0.count } == 1)
        await redis.close()
    }

    @Test("past maxPending (a stalled server), a command fails at once as overloaded; the queue does not grow")
    func boundedPending() async throws {
        let server = try RedisServer()
        defer { server.stop() }
        var options = RedisConnectionOptions()
        options.maxPending = 10
        let redis = try await LoopRedis(server.url(), options: options)
        #expect(await redis.waitUntilAnswering())
        server.signal(SIGSTOP)
        let connection = redis.connection
        let refused: Result<RedisReply, RedisError>? = await onLoop(redis.loop) { done in
            for _ in 0..<10 { connection.send(RedisCommand("PING"), timeout: 0.2) { _ in } }
            var immediate: Result<RedisReply, RedisError>?
            connection.send(RedisCommand("PING")) { immediate = $0 }
            done(immediate)
        }
        guard case let .failure(error)? = refused else { Issue.record("the 11th command: \(String(describing: refused))"); return }
        #expect(error.kind == .overloaded)
        server.signal(SIGCONT)
        await redis.close()
    }

    @Test("SIGKILL: commands fail as disconnected, at once; after a restart on the same port the client reconnects, logs in and selects again")
    func reconnects() async throws {
        let server = try RedisServer(password: "pw")
        defer { server.stop() }
        var options = RedisConnectionOptions()
        options.initialReconnectDelay = 0.02
        options.maxReconnectDelay = 0.2
        let redis = try await LoopRedis(server.url(login: ":pw", database: 5), options: options)
        #expect(await redis.send("SET", "before", "1") == .success(.status("OK")))

        server.signal(SIGKILL)
        // The first command after the kill either meets the broken socket or the backoff.
        var sawDisconnected = false
        for _ in 0..<50 where !sawDisconnected {
            if case let .failure(error) = await redis.send("PING", timeout: 5) {
                #expect(error.kind == .disconnected)
                sawDisconnected = true
            }
        }
        #expect(sawDisconnected)
        // While Redis is down, a command fails without waiting for its timeout.
        let down = await redis.send("PING", timeout: 30)
        guard case let .failure(error) = down else { Issue.record("PING while down: \(down)"); return }
        #expect(error.kind == .disconnected)
        #expect(error.message.contains("not connected to redis://:***@127.0.0.1:\(server.port)/5"))

        try server.restart()
        #expect(await redis.waitUntilAnswering())
        #expect(await redis.send("SET", "after", "2") == .success(.status("OK")))
        #expect(try server.cli(["-n", "5", "GET", "after"], auth: ["-a", "pw", "--no-auth-warning"]).trimmingSpaces() == "2")
        await redis.close()
    }

    @Test("the loop closes with a command in flight (Redis stopped): its completion runs once, with the closed error")
    func loopCloses() async throws {
        let server = try RedisServer()
        defer { server.stop() }
        let redis = try await LoopRedis(server.url())
        #expect(await redis.waitUntilAnswering())
        server.signal(SIGSTOP)
        let connection = redis.connection
        let results = Lock<[Result<RedisReply, RedisError>]>([])
        await onLoop(redis.loop) { done in
            connection.send(RedisCommand("GET", "k"), timeout: 30) { result in results.withLock { $0.append(result) } }
            done(())
        }
        redis.loop.shutdown()
        let seen = results.withLock { $0 }
        #expect(seen.count == 1)
        guard case let .failure(error)? = seen.first else { Issue.record("GET when the loop closed: \(seen)"); return }
        #expect(error.kind == .closed)
        server.signal(SIGCONT)
    }

    @Test("EVALSHA: the script runs by its SHA-1 (the one SCRIPT LOAD answers); after SCRIPT FLUSH the NOSCRIPT is answered by loading it again")
    func evalsha() async throws {
        let server = try RedisServer()
        defer { server.stop() }
        let redis = try await LoopRedis(server.url())
        let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])")
        let connection = redis.connection
        func run() async -> Result<RedisReply, RedisError> {
            await onLoop(redis.loop) { done in
                connection.evalsha(script, keys: [Array("hits".utf8)], arguments: [Array("5".utf8)]) { done($0) }
            }
        }
        #expect(await run() == .success(.integer(5)))  // NOSCRIPT first: never loaded
        #expect(await redis.send("SCRIPT", "LOAD", "return redis.call('INCRBY', KEYS[1], ARGV[1])")
            == .success(.bulk(Array(script.sha1.utf8))))
        #expect(await run() == .success(.integer(10)))
        #expect(await redis.send("SCRIPT", "FLUSH") == .success(.status("OK")))
        #expect(await redis.send("SCRIPT", "EXISTS", script.sha1) == .success(.array([.integer(0)])))
        #expect(await run() == .success(.integer(15)))
        #expect(await redis.send("SCRIPT", "EXISTS", script.sha1) == .success(.array([.integer(1)])))

        // A script Redis cannot compile: the load's error is the answer, not a second NOSCRIPT.
        let broken = RedisScript("return (")
        let failed = await onLoop(redis.loop) { done in connection.evalsha(broken, keys: [], arguments: []) { done($0) } }
        #expect(try failed.get().errorCode == "ERR")
        await redis.close()
    }
}
