import CHiredis
import GatewireBase
import GatewireTransport

/// One Redis pub/sub channel, heard on a connection of its own (`SUBSCRIBE` turns a
/// connection into a subscriber: it can send nothing else), driven by hiredis 0.14's async
/// API on an ``EventLoop`` as ``RedisConnection`` is. Loop thread only (`@unchecked Sendable`
/// as ``RedisConnection``).
///
/// - **Messages** go to the handler as ``Event/message(_:)``, in the order the server
///   published them (one connection, and Redis delivers a channel's messages in order).
///   hiredis 0.14 keeps a `SUBSCRIBE`'s callback in its table of channels and calls it for
///   every reply naming the channel: the confirmation, then each message.
/// - **Subscribed**: ``Event/subscribed`` each time the server confirms the subscription,
///   first and after every reconnection. Messages published while not subscribed are lost
///   (classic pub/sub keeps nothing), so a user must treat a message as news that may never
///   come, never as the only way to learn a state.
/// - **Reconnection**: a connection that fails (refused, broken, connecting, `AUTH` and the
///   confirmation together past ``RedisConnectionOptions/connectTimeout``, `AUTH` refused)
///   is tried again after ``RedisConnectionOptions/reconnectDelay(attempt:random:)`` (the
///   backoff ``RedisConnection`` uses), on the next of ``endpoints`` in turn: any node of a
///   Redis Cluster hears every classic `PUBLISH` (the cluster bus forwards each to every node),
///   so one node of the cluster suffices and another one stands in when it fails.
/// - **Login**: `AUTH` (when the endpoint has a password) before `SUBSCRIBE`. No `SELECT`:
///   channels have no database ("Pub/Sub has no relation to the key space", Redis's pub/sub
///   documentation), a publisher in database 5 reaches a subscriber in database 0.
/// - **Closing**: ``close()``, or the loop's closing, ends it; the handler then gets
///   ``Event/closed``, once, and nothing after.
package final class RedisSubscription: RedisContextOwner, @unchecked Sendable {
    /// What the handler hears, on the loop thread.
    package enum Event: Hashable, Sendable {
        /// The server confirmed the subscription: messages published from now on arrive.
        case subscribed
        /// A message published on the channel: its payload, binary-safe.
        case message([UInt8])
        /// The subscription ended (``close()`` or the loop's closing): the last event.
        case closed
    }

    /// The servers tried in turn (one server, or some nodes of a cluster).
    package let endpoints: [RedisEndpoint]
    package let channel: [UInt8]
    package let options: RedisConnectionOptions
    private let loop: EventLoop
    private let handler: (Event) -> Void

    private enum State {
        /// Resolving the host name on the worker pool.
        case resolving
        /// Connecting, logging in and subscribing.
        case connecting(RedisContext)
        /// The server confirmed the subscription.
        case subscribed(RedisContext)
        /// Waiting `timer` to connect again.
        case waiting(timer: Int)
        case closed
    }

    private var state = State.closed
    /// Failed attempts since the last confirmation (the backoff's exponent).
    private var failures = 0
    /// The index in ``endpoints`` of the server connected or tried now.
    private var current = 0
    /// The timer bounding connecting, login and confirmation together.
    private var connectTimer: Int?
    private var closeObserver: Int?

    /// Subscribes to `channel` on the first of `endpoints` at once. Loop thread only.
    /// - Parameters:
    ///   - endpoints: at least one; the next is tried after each failure, in turn.
    ///   - options: ``RedisConnectionOptions/connectTimeout`` and the reconnection delays
    ///     (commands and their bounds do not apply: a subscriber sends none).
    ///   - handler: runs on the loop thread for each ``Event``.
    package init(endpoints: [RedisEndpoint], channel: [UInt8], options: RedisConnectionOptions = RedisConnectionOptions(),
                 loop: EventLoop, _ handler: @escaping (Event) -> Void) {
        precondition(!endpoints.isEmpty, "a subscription needs at least one server")
        self.endpoints = endpoints
        self.channel = channel
        self.options = options
        self.loop = loop
        self.handler = handler
        closeObserver = loop.onClose { [weak self] in self?.close() }
        connect()
    }

    /// Why the last attempt failed or the last connection broke; nil until one did, and again
    /// once the server confirms the subscription.
    package private(set) var lastError: RedisError?

    /// Ends the subscription: the connection closes, no reconnection follows, and the handler
    /// gets ``Event/closed`` (once; later calls do nothing). Loop thread only.
    package func close() {
        let previous = state
        guard !Self.isClosed(previous) else { return }
        state = .closed
        if let closeObserver { loop.removeCloseObserver(closeObserver) }
        closeObserver = nil
        cancelConnectTimer()
        switch previous {
        case let .connecting(context), let .subscribed(context):
            context.drop(RedisError(.closed, "the subscription to \(endpoint) was closed"))
        case let .waiting(timer):
            loop.cancelTimer(timer)
        case .resolving, .closed:
            break
        }
        handler(.closed)
    }

    private var endpoint: RedisEndpoint { endpoints[current] }

    // MARK: Connecting

    private func connect() {
        state = .resolving
        endpoint.dial(loop: loop, stillWanted: { [weak self] in
            guard case .resolving = self?.state else { return false }  // closed meanwhile
            return true
        }) { [self] made in
            switch made {
            case let .success(ac): start(ac)
            case let .failure(error): retry(after: error)
            }
        }
    }

    private func start(_ ac: UnsafeMutablePointer<redisAsyncContext>) {
        let context = RedisContext(ac, owner: self, loop: loop)
        state = .connecting(context)
        connectTimer = loop.schedule(after: options.connectTimeout) { [weak self] fired in
            guard let self, fired, case let .connecting(current) = state, current === context else { return }
            connectTimer = nil
            let error = RedisError(.disconnected, "subscribing to \(endpoint) took over \(options.connectTimeout) s")
            retry(after: error)
            context.drop(error)
        }
        context.listen()
    }

    func connected(_ context: RedisContext, ok: Bool) {
        guard case let .connecting(current) = state, current === context else { return }
        guard ok else {
            return retry(after: RedisError(.disconnected, "cannot connect to \(endpoint): "
                + context.hiredisError(or: "connection failed")))
        }
        guard let password = endpoint.password else { return subscribe(on: context) }
        let auth = endpoint.username.map { RedisCommand("AUTH", $0, password) } ?? RedisCommand("AUTH", password)
        // The connect timer bounds the login; the request's own timeout is not watched here.
        let request = RedisRequest(name: auth.arguments[0], timeout: options.connectTimeout) { [weak self] result in
            guard let self, case let .connecting(current) = state, current === context else { return }
            var refusal: String?
            switch result {
            case let .success(.error(text)): refusal = "AUTH was refused: \(text)"
            case .success: break
            case let .failure(error): refusal = "AUTH failed: \(error.message)"
            }
            guard let refusal else { return subscribe(on: context) }
            let error = RedisError(.disconnected, "logging in to \(endpoint): \(refusal)")
            context.drop(error)
            retry(after: error)
        }
        // hiredis refuses a command only on a context it is tearing down (and frees itself).
        if !context.send(auth, request) { retry(after: closing) }
    }

    private func subscribe(on context: RedisContext) {
        if !context.subscribe(channel) { retry(after: closing) }
    }

    private var closing: RedisError { RedisError(.disconnected, "the connection to \(endpoint) is closing") }

    /// The login's reply (``RedisContext/send(_:_:)``).
    func ended(_ request: RedisRequest, reply: UnsafeMutableRawPointer?, context: RedisContext) {
        if let reply {
            request.finish(.success(RedisReply(reply.assumingMemoryBound(to: redisReply.self))))
        } else {
            context.noteFreeing()
            request.finish(.failure(context.dropReason ?? RedisError(.disconnected, "the connection to \(endpoint) broke")))
        }
    }

    /// A reply naming the channel (``RedisContext/subscribe(_:)``): `["subscribe", channel,
    /// count]`, `["message", channel, payload]`, or NULL while hiredis frees the context.
    func received(_ reply: UnsafeMutableRawPointer?, context: RedisContext) {
        guard let reply else { return context.noteFreeing() }  // the disconnect callback follows
        guard case let .array(fields) = RedisReply(reply.assumingMemoryBound(to: redisReply.self)), fields.count == 3,
              case let .bulk(kind) = fields[0], case .bulk(channel) = fields[1] else { return }
        switch (String(decoding: kind, as: UTF8.self), fields[2]) {
        case ("subscribe", _):
            guard case let .connecting(current) = state, current === context else { return }
            cancelConnectTimer()
            state = .subscribed(context)
            failures = 0
            lastError = nil
            handler(.subscribed)
        case let ("message", .bulk(payload)):
            guard case let .subscribed(current) = state, current === context else { return }
            handler(.message(payload))
        default:
            break
        }
    }

    func disconnected(_ context: RedisContext) {
        guard context.dropReason == nil else { return }  // dropped by us: already handled
        switch state {
        case let .subscribed(current) where current === context, let .connecting(current) where current === context:
            retry(after: RedisError(.disconnected, "the subscription's connection to \(endpoint) broke: "
                + context.hiredisError(or: "closed by the server")))
        default:
            break
        }
    }

    /// Waits a backoff, then connects to the next endpoint. The state changes first, so that
    /// a context freed after this finds the attempt over.
    private func retry(after error: RedisError) {
        cancelConnectTimer()
        lastError = error
        let delay = options.reconnectDelay(attempt: failures)
        failures += 1
        current = (current + 1) % endpoints.count
        let timer = loop.schedule(after: delay) { [weak self] fired in
            guard let self, fired, case .waiting = state else { return }
            connect()
        }
        state = .waiting(timer: timer)
    }

    private func cancelConnectTimer() {
        if let connectTimer { loop.cancelTimer(connectTimer) }
        connectTimer = nil
    }

    private static func isClosed(_ state: State) -> Bool {
        if case .closed = state { return true }
        return false
    }
}
