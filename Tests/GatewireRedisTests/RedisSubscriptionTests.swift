import GatewireBase
import GatewireRedis
import GatewireTransport
import Glibc
import Testing

/// A pub/sub subscription on Gatewire's event loop against a real redis-server on loopback:
/// messages in the order published, the subscription back after Redis is killed and
/// restarted (logging in again), and its end when the loop closes.
@Suite(.timeLimit(.minutes(1))) struct RedisSubscriptionTests {
    @Test("200 messages published on one connection arrive in order, binary-safe; another channel's do not")
    func ordered() async throws {
        let server = try RedisServer()
        defer { server.stop() }
        let redis = try await LoopRedis(server.url())
        let heard = try await Heard(redis, channel: "news", endpoints: [server.url()])
        #expect(await heard.wait { $0.contains(.subscribed) })

        let connection = redis.connection
        let payloads = (0..<200).map { Array("m\($0)".utf8) } + [[0, 13, 10, 255]]
        let receivers: [Int64] = await onLoop(redis.loop) { done in
            var counts: [Int64] = []
            connection.send(RedisCommand("PUBLISH", "elsewhere", "not for us")) { _ in }
            for payload in payloads {
                connection.send(RedisCommand([Array("PUBLISH".utf8), Array("news".utf8), payload])) { result in
                    if case let .success(.integer(n)) = result { counts.append(n) } else { counts.append(-1) }
                    if counts.count == payloads.count { done(counts) }
                }
            }
        }
        #expect(receivers == Array(repeating: 1, count: payloads.count))  // one subscriber heard each
        #expect(await heard.wait { $0.count == 1 + payloads.count })
        #expect(heard.events == [.subscribed] + payloads.map { .message($0) })
        await heard.close()
        #expect(heard.events.last == .closed)
        await redis.close()
    }

    @Test("SIGKILL and a restart on the same port: the subscription comes back by itself (AUTH again) and hears what is published after")
    func resubscribes() async throws {
        let server = try RedisServer(password: "pw")
        defer { server.stop() }
        var options = RedisConnectionOptions()
        options.initialReconnectDelay = 0.02
        options.maxReconnectDelay = 0.2
        let url = server.url(login: ":pw", database: 3)
        let redis = try await LoopRedis(url, options: options)
        let heard = try await Heard(redis, channel: "news", endpoints: [url], options: options)
        #expect(await heard.wait { $0 == [.subscribed] })
        #expect(await redis.send("PUBLISH", "news", "before") == .success(.integer(1)))
        #expect(await heard.wait { $0.count == 2 })

        server.signal(SIGKILL)
        try server.restart()
        #expect(await redis.waitUntilAnswering())
        #expect(await heard.wait { $0.count == 3 })
        #expect(await redis.send("PUBLISH", "news", "after") == .success(.integer(1)))
        #expect(await heard.wait { $0.count == 4 })
        #expect(heard.events == [.subscribed, .message(Array("before".utf8)), .subscribed, .message(Array("after".utf8))])
        #expect(await heard.lastError == nil)
        await heard.close()
        await redis.close()
    }

    @Test("a cluster: subscribed on one node, it hears what is published on every node; that node killed, it subscribes on the next")
    func cluster() async throws {
        let cluster = try RedisClusterServers()
        defer { cluster.stop() }
        var options = RedisConnectionOptions()
        options.initialReconnectDelay = 0.02
        options.maxReconnectDelay = 0.2
        let urls = cluster.nodes.map { $0.url() }
        let redis = try await LoopRedis(urls[2])
        let heard = try await Heard(redis, channel: "news", endpoints: urls, options: options)
        #expect(await heard.wait { $0 == [.subscribed] })
        for (index, node) in cluster.nodes.enumerated() { _ = try node.cli(["PUBLISH", "news", "from \(index)"]) }
        #expect(await heard.wait { $0.count == 4 })

        cluster.nodes[0].signal(SIGKILL)  // the node it subscribed on (the first endpoint)
        #expect(await heard.wait { $0.count == 5 })
        _ = try cluster.nodes[2].cli(["PUBLISH", "news", "after"])
        #expect(await heard.wait { $0.count == 6 })
        #expect(heard.events == [.subscribed] + (0..<3).map { .message(Array("from \($0)".utf8)) }
            + [.subscribed, .message(Array("after".utf8))])
        await heard.close()
        await redis.close()
    }

    @Test("a wrong password: no subscription, the refusal is the last error, and the attempts go on")
    func refusedLogin() async throws {
        let server = try RedisServer(password: "pw")
        defer { server.stop() }
        var options = RedisConnectionOptions()
        options.initialReconnectDelay = 0.02
        options.maxReconnectDelay = 0.05
        let redis = try await LoopRedis(server.url(login: ":pw"))
        let heard = try await Heard(redis, channel: "news", endpoints: [server.url(login: ":wrong")], options: options)
        var lastError: RedisError?
        for _ in 0..<200 where lastError == nil {
            try await Task.sleep(for: .milliseconds(20))
            lastError = await heard.lastError
        }
        #expect(lastError?.message.contains("AUTH was refused") == true)
        #expect(heard.events.isEmpty)
        await heard.close()
        await redis.close()
    }

    @Test("the loop closes: the handler hears .closed once and nothing after")
    func loopCloses() async throws {
        let server = try RedisServer()
        defer { server.stop() }
        let redis = try await LoopRedis(server.url())
        let heard = try await Heard(redis, channel: "news", endpoints: [server.url()])
        #expect(await heard.wait { $0 == [.subscribed] })
        redis.loop.shutdown()
        #expect(heard.events == [.subscribed, .closed])
        // The server sees the connection closed (it may take a moment to notice).
        var subscribers = ""
        for _ in 0..<500 where subscribers != "news\n0" {
            subscribers = try server.cli(["PUBSUB", "NUMSUB", "news"]).trimmingSpaces()
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(subscribers == "news\n0")
        #expect(heard.events == [.subscribed, .closed])
    }
}

/// A subscription on a ``LoopRedis``'s loop and every event its handler heard, in order.
private final class Heard: Sendable {
    let loop: EventLoop
    let subscription: RedisSubscription
    private let heard: Lock<[RedisSubscription.Event]>

    init(_ redis: LoopRedis, channel: String, endpoints urls: [String],
         options: RedisConnectionOptions = RedisConnectionOptions()) async throws {
        let endpoints = try urls.map { try RedisEndpoint(parsing: $0, field: "redis") }
        let heard = Lock<[RedisSubscription.Event]>([])
        self.heard = heard
        let loop = redis.loop
        self.loop = loop
        subscription = await onLoop(loop) { done in
            done(RedisSubscription(endpoints: endpoints, channel: Array(channel.utf8), options: options, loop: loop) { event in
                heard.withLock { $0.append(event) }
            })
        }
    }

    var events: [RedisSubscription.Event] { heard.withLock { $0 } }

    var lastError: RedisError? {
        get async {
            let subscription = subscription
            return await onLoop(loop) { done in done(subscription.lastError) }
        }
    }

    /// Waits (polling every 10 ms, at most 20 s) until `condition` holds for the events.
    func wait(_ condition: ([RedisSubscription.Event]) -> Bool) async -> Bool {
        let deadline = ServerProcess.monotonicNow() + 20
        while ServerProcess.monotonicNow() < deadline {
            if condition(events) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    func close() async {
        let subscription = subscription
        await onLoop(loop) { done in
            subscription.close()
            done(())
        }
    }
}
