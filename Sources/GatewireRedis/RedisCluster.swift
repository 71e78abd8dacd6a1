import GatewireBase
import GatewireTransport

/// A Redis Cluster client on an ``EventLoop``: one ``RedisConnection`` per primary, each
/// command sent to the primary that serves its key's hash slot (``RedisHashSlot``), as the
/// Redis Cluster specification describes a client. Loop thread only (`@unchecked Sendable`
/// as ``RedisConnection``).
///
/// - **Slot map**: `CLUSTER SLOTS`, asked of the seed nodes (then of the nodes it knows) in
///   turn at start, after a `MOVED`, and after a node's connection failed. Commands sent
///   before the first map wait for it (bounded by ``RedisConnectionOptions/maxPending`` and
///   their timeouts).
/// - **Routing**: by the slot of the command's key (its first argument after the name unless
///   given; a key's hash tag `{...}` counts alone, so `{user1}.a` and `{user1}.b` share a slot).
/// - **Redirections**: `-MOVED slot host:port` updates the map for that slot at once (and asks
///   for a new map) and sends the command to the new node; `-ASK slot host:port` sends
///   `ASKING` and the command to that node, pipelined on its connection, without touching the
///   map. At most ``maxRedirections`` per command; then ``RedisError/Kind/redirections``.
/// - **Timeouts** cover the whole command, its redirections included.
///
/// Replicas are not used (every command goes to a primary); `SELECT` does not exist in a
/// cluster, so every node is asked in database 0.
package final class RedisCluster: @unchecked Sendable {
    package let seeds: [RedisEndpoint]
    package let options: RedisConnectionOptions
    /// The most redirections (MOVED or ASK) one command follows (default 5).
    package let maxRedirections: Int
    private let loop: EventLoop

    /// For each slot, the index in `nodes` of the primary serving it, or -1.
    private var slots = [Int](repeating: -1, count: RedisHashSlot.count)
    /// The primaries' `host:port`, as `CLUSTER SLOTS` names them.
    private var nodes: [String] = []
    private var connections: [String: RedisConnection] = [:]
    /// Whether a `CLUSTER SLOTS` is in flight, and whether another should follow it.
    private var refreshing = false
    private var refreshAgain = false
    private var hasMap = false
    private var closed = false
    /// Commands waiting for the first map.
    private var held: [() -> Void] = []
    /// The error of the last failed map request, for commands that cannot be routed.
    private var lastMapError: RedisError?
    private var closeObserver: Int?
    /// The commands' timeouts, redirections included (one loop timer for all).
    private let timeouts: RedisTimeouts

    /// Starts asking `seeds` for the slot map. Loop thread only.
    /// - Parameters:
    ///   - seeds: some of the cluster's nodes (at least one); the first one's user and
    ///     password log in to every node.
    ///   - maxRedirections: per command (default 5).
    package init(seeds: [RedisEndpoint], options: RedisConnectionOptions = RedisConnectionOptions(),
                 maxRedirections: Int = 5, loop: EventLoop) {
        precondition(!seeds.isEmpty, "a cluster needs at least one seed node")
        self.seeds = seeds
        self.options = options
        self.maxRedirections = maxRedirections
        self.loop = loop
        timeouts = RedisTimeouts(loop: loop) { request in
            RedisError(.timeout, "no reply from the cluster within \(request.timeout) s ("
                + String(decoding: request.name, as: UTF8.self).uppercased() + ")")
        }
        closeObserver = loop.onClose { [weak self] in self?.close() }
        refresh()
    }

    /// Sends `command` to the primary that serves `key`'s slot, following redirections, and
    /// runs `completion` once, on the loop thread. Loop thread only.
    /// - Parameters:
    ///   - key: the key that routes the command (nil: the command's second argument, the
    ///     first key of most commands). A command without a key goes to any node.
    ///   - timeout: seconds for the whole command, redirections included (nil:
    ///     ``RedisConnectionOptions/commandTimeout``).
    package func send(_ command: RedisCommand, key: [UInt8]? = nil, timeout: Double? = nil,
                      _ completion: @escaping RedisCompletion) {
        let routingKey = key ?? (command.arguments.count > 1 ? command.arguments[1] : nil)
        dispatch(name: command.arguments.first ?? [], slot: routingKey.map(RedisHashSlot.of), timeout: timeout,
                 completion) { connection, left, done in
            connection.send(command, timeout: left, done)
        }
    }

    /// Runs `script` on the primary of its keys' slot (``RedisConnection/evalsha(_:keys:arguments:timeout:_:)``:
    /// `SCRIPT LOAD` on that node when it answers `NOSCRIPT`). Every key must be in one slot
    /// (use a hash tag), as Redis requires of a script; else ``RedisError/Kind/invalidArgument``
    /// at once. Loop thread only.
    package func evalsha(_ script: RedisScript, keys: [[UInt8]], arguments: [[UInt8]], timeout: Double? = nil,
                         _ completion: @escaping RedisCompletion) {
        let slots = Set(keys.map(RedisHashSlot.of))
        guard slots.count <= 1 else {
            return completion(.failure(RedisError(.invalidArgument,
                "the script's keys are in \(slots.count) hash slots; a script's keys must share one (use a hash tag {...})")))
        }
        dispatch(name: Array("EVALSHA".utf8), slot: slots.first, timeout: timeout, completion) { connection, left, done in
            connection.evalsha(script, keys: keys, arguments: arguments, timeout: left, done)
        }
    }

    /// Runs `script`, which names no key, once on every primary of the slot map (after the
    /// first map, as every command), each bounded by `timeout` (nil:
    /// ``RedisConnectionOptions/commandTimeout``), and runs `completion` once, on the loop
    /// thread, with the replies in the map's order of primaries, or the first failure. For what
    /// one node cannot answer alone: a `SCAN` of the whole cluster's keys (each primary holds
    /// its own slots' keys). Loop thread only.
    package func evalshaOnEveryPrimary(_ script: RedisScript, arguments: [[UInt8]], timeout: Double? = nil,
                                       _ completion: @escaping (Result<[RedisReply], RedisError>) -> Void) {
        guard !closed else { return completion(.failure(RedisError(.closed, "the Redis cluster client was closed"))) }
        let start = { [weak self] in
            guard let self else { return }
            // One slot each primary serves routes the keyless script to it.
            var slotOf: [Int: Int] = [:]
            for (slot, node) in slots.enumerated() where node >= 0 && slotOf[node] == nil { slotOf[node] = slot }
            let targets = slotOf.keys.sorted().compactMap { slotOf[$0] }
            guard !targets.isEmpty else {
                return completion(.failure(RedisError(.disconnected, "the cluster's slot map is empty"
                    + (lastMapError.map { " (\($0.message))" } ?? ""))))
            }
            let gathered = GatheredReplies(count: targets.count, completion)
            for (index, slot) in targets.enumerated() {
                dispatch(name: Array("EVALSHA".utf8), slot: slot, timeout: timeout, { gathered.put($0, at: index) }) {
                    connection, left, done in
                    connection.evalsha(script, keys: [], arguments: arguments, timeout: left, done)
                }
            }
        }
        if hasMap { return start() }
        guard held.count < options.maxPending else {
            return completion(.failure(RedisError(.overloaded, "\(held.count) commands already wait for the cluster's slot map")))
        }
        held.append(start)
    }

    /// The `host:port` of the primary serving `slot` in the current map, or nil.
    package func node(serving slot: Int) -> String? {
        slots[slot] >= 0 ? nodes[slots[slot]] : nil
    }

    /// Closes every node's connection; commands waiting end with ``RedisError/Kind/closed``.
    /// Loop thread only; idempotent.
    package func close() {
        guard !closed else { return }
        closed = true
        if let closeObserver { loop.removeCloseObserver(closeObserver) }
        let waiting = held
        held.removeAll()
        for run in waiting { run() }  // each finds the cluster closed
        for connection in connections.values { connection.close() }
        connections.removeAll()
        timeouts.removeAll()
    }

    // MARK: Routing

    /// How a command goes out on one node's connection, with the time it has left.
    private typealias Sender = (_ connection: RedisConnection, _ timeout: Double, _ done: @escaping RedisCompletion) -> Void

    private func dispatch(name: [UInt8], slot: Int?, timeout: Double?, _ completion: @escaping RedisCompletion,
                          _ sender: @escaping Sender) {
        guard !closed else { return completion(.failure(RedisError(.closed, "the Redis cluster client was closed"))) }
        let seconds = timeout ?? options.commandTimeout
        let request = RedisRequest(name: name, timeout: seconds, completion)
        timeouts.add(request, after: seconds)
        let deadline = MonotonicClock.now() + seconds
        let go = { [weak self] in
            guard let self else { return }
            route(request, slot: slot, deadline: deadline, redirections: 0, askAt: nil, sender)
        }
        if hasMap { return go() }
        guard held.count < options.maxPending else {
            return request.finish(.failure(RedisError(.overloaded, "\(held.count) commands already wait for the cluster's slot map")))
        }
        held.append(go)
    }

    private func route(_ request: RedisRequest, slot: Int?, deadline: Double, redirections: Int, askAt: String?,
                       _ sender: @escaping Sender) {
        guard request.isPending else { return }
        guard !closed else { return request.finish(.failure(RedisError(.closed, "the Redis cluster client was closed"))) }
        let target: String
        if let askAt {
            target = askAt
        } else if let slot {
            guard slots[slot] >= 0 else {
                return request.finish(.failure(RedisError(.disconnected, "no node serves hash slot \(slot)"
                    + (lastMapError.map { " (the slot map could not be read: \($0.message))" } ?? ""))))
            }
            target = nodes[slots[slot]]
        } else {
            guard let any = nodes.first else {
                return request.finish(.failure(RedisError(.disconnected, "the cluster's slot map is empty")))
            }
            target = any
        }
        let connection: RedisConnection
        do {
            connection = try self.connection(to: target)
        } catch {
            return request.finish(.failure(RedisError(.unexpectedReply, "the cluster named the node \(error)")))
        }
        let left = deadline - MonotonicClock.now()
        guard left > 0 else { return request.finish(.failure(RedisError(.timeout, "no reply from the cluster in time"))) }
        if askAt != nil { connection.send(RedisCommand("ASKING"), timeout: left) { _ in } }
        sender(connection, left) { [weak self] result in
            guard let self else { return request.finish(result) }
            switch result {
            case let .success(reply):
                guard var redirection = RedisRedirection(reply) else { return request.finish(result) }
                guard redirections < maxRedirections else {
                    return request.finish(.failure(RedisError(.redirections,
                        "the cluster redirected the command \(redirections + 1) times (maxRedirections \(maxRedirections)); last: \(reply)")))
                }
                if redirection.node.hasPrefix(":") {
                    // A node that does not know its own address names only the port.
                    redirection = RedisRedirection(kind: redirection.kind, slot: redirection.slot,
                                                   node: Self.host(of: target) + redirection.node)
                }
                if redirection.kind == .moved {
                    slots[redirection.slot] = index(of: redirection.node)
                    refresh()
                    route(request, slot: slot, deadline: deadline, redirections: redirections + 1, askAt: nil, sender)
                } else {
                    route(request, slot: slot, deadline: deadline, redirections: redirections + 1,
                          askAt: redirection.node, sender)
                }
            case let .failure(error):
                if error.kind == .disconnected { refresh() }  // the node may have left the cluster
                request.finish(result)
            }
        }
    }

    /// The connection to `node` (`host:port`), made on first use.
    private func connection(to node: String) throws -> RedisConnection {
        if let connection = connections[node] { return connection }
        let endpoint = try RedisEndpoint(hostPort: node, login: seeds[0], field: "node")
        let connection = RedisConnection(endpoint: endpoint, options: options, loop: loop)
        connections[node] = connection
        return connection
    }

    private func index(of node: String) -> Int {
        if let index = nodes.firstIndex(of: node) { return index }
        nodes.append(node)
        return nodes.count - 1
    }

    private static func host(of node: String) -> String {
        guard let colon = node.lastIndex(of: ":") else { return node }
        return String(node[..<colon])
    }

    // MARK: The slot map

    /// Asks for `CLUSTER SLOTS` (one request at a time; one more follows when asked meanwhile),
    /// of the known primaries then the seeds, until one answers.
    private func refresh() {
        guard !closed else { return }
        guard !refreshing else { return refreshAgain = true }
        refreshing = true
        var candidates = nodes
        for seed in seeds {
            if case let .tcp(host, port) = seed.address {
                let name = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
                if !candidates.contains(name) { candidates.append(name) }
            }
        }
        ask(candidates, at: 0)
    }

    private func ask(_ candidates: [String], at index: Int) {
        guard !closed else { return }
        guard index < candidates.count else {
            return mapFailed(lastMapError ?? RedisError(.disconnected, "no cluster node answered CLUSTER SLOTS"))
        }
        let node = candidates[index]
        guard let connection = try? connection(to: node) else { return ask(candidates, at: index + 1) }
        connection.send(RedisCommand("CLUSTER", "SLOTS")) { [weak self] result in
            guard let self else { return }
            switch result.flatMap({ Self.parseSlots($0, askedHost: Self.host(of: node)) }) {
            case let .success(ranges):
                install(ranges)
            case let .failure(error):
                lastMapError = RedisError(error.kind, "\(node): \(error.message)")
                ask(candidates, at: index + 1)
            }
        }
    }

    private func install(_ ranges: [(first: Int, last: Int, node: String)]) {
        var map = [Int](repeating: -1, count: RedisHashSlot.count)
        var names: [String] = []
        for range in ranges {
            let index = names.firstIndex(of: range.node) ?? { names.append(range.node); return names.count - 1 }()
            for slot in range.first...range.last { map[slot] = index }
        }
        slots = map
        nodes = names
        lastMapError = nil
        for (name, connection) in connections where !names.contains(name) {
            connection.close()  // no longer a primary
            connections[name] = nil
        }
        refreshDone()
        if !hasMap {
            hasMap = true
            let waiting = held
            held.removeAll()
            for run in waiting { run() }
        }
    }

    private func mapFailed(_ error: RedisError) {
        lastMapError = error
        refreshDone()
        if !hasMap {
            // Nothing to route by: the waiting commands fail now; the map is asked for again
            // after a backoff.
            let waiting = held
            held.removeAll()
            for run in waiting { run() }  // each finds its slot unserved, and this error
            _ = loop.schedule(after: options.reconnectDelay(attempt: 2)) { [weak self] fired in
                if fired, let self, !hasMap { refresh() }
            }
        }
    }

    private func refreshDone() {
        refreshing = false
        if refreshAgain {
            refreshAgain = false
            refresh()
        }
    }

    /// The slot ranges of a `CLUSTER SLOTS` reply: `[[first, last, [host, port, id, ...],
    /// replicas...], ...]`; an empty host (a node that does not know its address) is the
    /// asked node's.
    static func parseSlots(_ reply: RedisReply, askedHost: String) -> Result<[(first: Int, last: Int, node: String)], RedisError> {
        guard case let .array(entries) = reply else {
            return .failure(RedisError(.unexpectedReply, "CLUSTER SLOTS answered \(reply)"))
        }
        var ranges: [(first: Int, last: Int, node: String)] = []
        for entry in entries {
            guard case let .array(fields) = entry, fields.count >= 3,
                  case let .integer(first) = fields[0], case let .integer(last) = fields[1],
                  case let .array(primary) = fields[2], primary.count >= 2,
                  let host = primary[0].string, case let .integer(port) = primary[1],
                  0 <= first, first <= last, last < RedisHashSlot.count else {
                return .failure(RedisError(.unexpectedReply, "a CLUSTER SLOTS entry is not [first, last, [host, port, ...]]: \(entry)"))
            }
            let name = host.isEmpty || host == "?" ? askedHost : host
            ranges.append((Int(first), Int(last), name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)"))
        }
        return .success(ranges)
    }
}

/// The replies of one command sent to several nodes (``RedisCluster/evalshaOnEveryPrimary(_:arguments:timeout:_:)``),
/// gathered until the last arrives; the first failure ends it. Loop thread only.
private final class GatheredReplies {
    private var replies: [RedisReply?]
    private var left: Int
    private var completion: ((Result<[RedisReply], RedisError>) -> Void)?

    init(count: Int, _ completion: @escaping (Result<[RedisReply], RedisError>) -> Void) {
        replies = Array(repeating: nil, count: count)
        left = count
        self.completion = completion
    }

    func put(_ result: Result<RedisReply, RedisError>, at index: Int) {
        guard let completion else { return }
        switch result {
        case let .success(reply):
            replies[index] = reply
            left -= 1
            if left == 0 {
                self.completion = nil
                completion(.success(replies.compactMap { $0 }))
            }
        case let .failure(error):
            self.completion = nil
            completion(.failure(error))
        }
    }
}
