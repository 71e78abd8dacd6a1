import GatewireRedis

/// The shared store: each breaker's state lives in Redis (``BreakerScript``), shared by every
/// client, in any process on any machine, that names the same server and key prefix, and
/// each client keeps what it knows of it (``SharedCircuitBreaker``) so that a call never
/// waits for Redis. Event-loop thread only (made on another: it connects on first use).
///
/// Its connection and ``health`` serve the client's shared rate limits too
/// (``RedisRateLimitStore``: one connection per client). Every operation runs with the settings' `timeout`; its failure turns the breakers to their
/// in-process state for the decisions that follow, and repeated failures stop the asking for
/// a while (``StoreHealth``).
///
/// A second connection subscribes to the fleet's channel (``BreakerNews``), on the server
/// or on one node of a cluster (each node hears every classic `PUBLISH`), and hands each
/// opening and close to the breaker it names, if this client has it. While that connection
/// is down nothing else changes: every reply still says the breaker's state.
final class RedisBreakerStore: BreakerStore {
    let settings: SharedStateSettings
    let loop: EventLoop
    let health: StoreHealth
    /// The fleet's channel (``BreakerNews/channel(_:)``).
    let channel: [UInt8]
    private var breakers: [BreakerKey: SharedCircuitBreaker] = [:]
    /// The same breakers by their state key, as the channel names them.
    private var byStateKey: [String: SharedCircuitBreaker] = [:]
    private var runner: (any RedisScriptRunner)?
    private var subscription: RedisSubscription?

    /// Told of each transition the fleet's script announces (once for the fleet, by the
    /// client whose reply made it).
    let onTransition: BreakerTransition

    /// A store of `settings` reached from `loop`; `announce` hears the store's degradation
    /// and recovery (``StoreHealth``: the client gives them to its event monitors),
    /// `onTransition` the breakers' openings and closings.
    init(settings: SharedStateSettings, loop: EventLoop,
         announce: @escaping @Sendable (_ degraded: Bool, _ message: String) -> Void = { _, _ in },
         onTransition: @escaping BreakerTransition = { _, _ in }) {
        self.settings = settings
        self.onTransition = onTransition
        self.loop = loop
        health = StoreHealth(server: settings.serverDescription, announce: announce)
        channel = BreakerNews.channel(settings)
    }

    func breaker(host: String, policy: CircuitBreakerPolicy) -> any HostCircuitBreaker {
        let key = BreakerKey(host: host, policy: policy)
        if let breaker = breakers[key] { return breaker }
        if runner == nil {  // the first breaker: connect now, before its first flush
            runner = connect()
            subscription = subscribe()
        }
        let breaker = SharedCircuitBreaker(host: host, policy: policy, store: self)
        breakers[key] = breaker
        byStateKey[breaker.stateKey] = breaker
        return breaker
    }

    /// Runs ``BreakerScript`` with `keys` and `arguments`, bounded by the settings' timeout,
    /// and calls `done` once with the reply, or nil when there is none (failed, timed out,
    /// not sent because the client has stopped asking; then perhaps before this returns).
    func run(keys: [[UInt8]], arguments: [[UInt8]], _ done: @escaping (BreakerScript.Reply?) -> Void) {
        evaluate(BreakerScript.script, keys: keys, arguments: arguments, parse: BreakerScript.Reply.init, done)
    }

    /// Runs `script` with `keys` and `arguments` on the store's connection (made now if it
    /// is not yet), bounded by the settings' timeout, and calls `done` once with the reply
    /// `parse` reads, or nil when there is none (failed, timed out, of another shape, not sent
    /// because the client has stopped asking; then perhaps before this returns). Each outcome
    /// feeds ``health``. The one way the shared stores (breakers, rate limits) reach Redis.
    func evaluate<Reply>(_ script: RedisScript, keys: [[UInt8]], arguments: [[UInt8]],
                         parse: @escaping (RedisReply) -> Reply?, _ done: @escaping (Reply?) -> Void) {
        if runner == nil { runner = connect() }
        guard health.allows(now: MonotonicClock.now()), let runner else { return done(nil) }
        runner.evalsha(script, keys: keys, arguments: arguments, timeout: settings.timeout) { [health] result in
            switch result {
            case let .success(reply):
                if let parsed = parse(reply) {
                    health.succeeded()
                    done(parsed)
                } else {
                    health.failed("the script answered \(reply)", now: MonotonicClock.now())
                    done(nil)
                }
            case let .failure(error):
                health.failed(error.description, now: MonotonicClock.now())
                done(nil)
            }
        }
    }

    /// Runs `script`, which names no key, on the server, or on every primary of a cluster
    /// (``RedisCluster/evalshaOnEveryPrimary(_:arguments:timeout:_:)``), each bounded by the
    /// settings' timeout, and calls `done` once with each server's reply as `parse` reads it,
    /// or nil when any has none (failed, timed out, of another shape, not sent because the
    /// client has stopped asking). The outcome feeds ``health`` as one operation.
    func evaluateOnEveryServer<Reply>(_ script: RedisScript, arguments: [[UInt8]],
                                      parse: @escaping (RedisReply) -> Reply?, _ done: @escaping ([Reply]?) -> Void) {
        if runner == nil { runner = connect() }
        guard let cluster = runner as? RedisCluster else {
            return evaluate(script, keys: [], arguments: arguments, parse: parse) { done($0.map { [$0] }) }
        }
        guard health.allows(now: MonotonicClock.now()) else { return done(nil) }
        cluster.evalshaOnEveryPrimary(script, arguments: arguments, timeout: settings.timeout) { [health] result in
            switch result {
            case let .success(replies):
                let parsed = replies.compactMap(parse)
                if parsed.count == replies.count {
                    health.succeeded()
                    done(parsed)
                } else {
                    health.failed("a primary's script answered \(replies)", now: MonotonicClock.now())
                    done(nil)
                }
            case let .failure(error):
                health.failed(error.description, now: MonotonicClock.now())
                done(nil)
            }
        }
    }

    private func subscribe() -> RedisSubscription {
        let endpoints: [RedisEndpoint]
        switch settings.server {
        case let .single(endpoint): endpoints = [endpoint]
        case let .cluster(seeds): endpoints = seeds
        }
        return RedisSubscription(endpoints: endpoints, channel: channel, loop: loop) { [weak self] event in
            guard let self, case let .message(payload) = event, let news = BreakerNews(payload) else { return }
            byStateKey[news.stateKey]?.heard(news, now: MonotonicClock.now())
        }
    }

    private func connect() -> any RedisScriptRunner {
        var options = RedisConnectionOptions()
        options.commandTimeout = settings.timeout
        // A client's breakers have a few operations in flight at most (one batch and one
        // claim each); a stalled server must not grow its queue.
        options.maxPending = 1_000
        switch settings.server {
        case let .single(endpoint): return RedisConnection(endpoint: endpoint, options: options, loop: loop)
        case let .cluster(seeds): return RedisCluster(seeds: seeds, options: options, loop: loop)
        }
    }
}
