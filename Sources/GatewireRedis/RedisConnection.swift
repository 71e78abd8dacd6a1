import CHiredis
import GatewireBase
import GatewireTransport
import Glibc

/// One connection to one Redis server, driven by hiredis 0.14's async API on an
/// ``EventLoop`` (its socket in the loop's poll, its timeouts the loop's timers): no thread
/// of its own, and nothing it does blocks the loop. Loop thread only (made, used and closed
/// there; `@unchecked Sendable` only so that work it hands to another thread can find it
/// again through ``EventLoop/execute(_:)``).
///
/// - **Commands** (``send(_:timeout:_:)``) go out as argv (`redisAsyncCommandArgv`,
///   binary-safe) and pipeline on their own: many can be in flight, and replies come back in
///   the order the commands were sent (RESP).
/// - **Timeouts**: each command has one (``RedisConnectionOptions/commandTimeout`` unless it
///   names its own), kept with the others on one loop timer (``RedisTimeouts``); at expiry its completion gets ``RedisError/Kind/timeout``
///   and a reply that comes later is dropped. The connection stays up: a server that is slow
///   (a long script, a fork) answers later, one that is gone is found by the socket's error.
/// - **Login**: on every (re)connect, `AUTH` (when the endpoint has a password) and `SELECT`
///   (when its database is not 0) run before any command. Commands sent meanwhile wait,
///   bounded by ``RedisConnectionOptions/maxPending`` and by their own timeouts, and go out
///   once the login succeeded: none reaches the server unauthenticated or in database 0.
/// - **Reconnection**: after a failure (refused, connect or login timeout, `AUTH` or `SELECT`
///   refused, the connection broken) the connection waits a backoff
///   (``RedisConnectionOptions/reconnectDelay(attempt:random:)``: exponential, jittered) and
///   connects again. Commands sent while it waits fail at once with
///   ``RedisError/Kind/disconnected``: a client whose Redis is down answers from what it
///   knows instead of waiting.
/// - **Completions** run exactly once each, on the loop thread; a failure known at once
///   (disconnected, overloaded, closed) runs before ``send(_:timeout:_:)`` returns.
///
/// Host names are resolved on the loop's ``WorkerPool`` (``RedisEndpoint/dial(loop:stillWanted:_:)``).
package final class RedisConnection: RedisContextOwner, @unchecked Sendable {
    package let endpoint: RedisEndpoint
    package let options: RedisConnectionOptions
    private let loop: EventLoop

    private enum State {
        /// Resolving the host name on the worker pool.
        case resolving
        /// Connecting, then logging in; commands are held.
        case connecting(RedisContext)
        /// Commands go straight to hiredis.
        case ready(RedisContext)
        /// Waiting `timer` to reconnect after `error`.
        case waiting(timer: Int, error: RedisError)
        case closed
    }

    private var state: State = .closed
    /// Commands sent while connecting, in order (their completions still pending or already
    /// timed out), sent once the login succeeded.
    private var held: [(command: RedisCommand, request: RedisRequest)] = []
    /// Commands accepted and not yet ended: held, or handed to hiredis without its callback yet.
    private var pending = 0
    /// Failed connection attempts since the last success (the backoff's exponent).
    private var failures = 0
    /// The connect-and-login timer of the attempt in progress.
    private var connectTimer: Int?
    private var closeObserver: Int?
    /// The commands' timeouts (one loop timer for all).
    private let timeouts: RedisTimeouts

    /// Connects to `endpoint` at once (the first commands wait for the login). Loop thread only.
    package init(endpoint: RedisEndpoint, options: RedisConnectionOptions = RedisConnectionOptions(), loop: EventLoop) {
        self.endpoint = endpoint
        self.options = options
        self.loop = loop
        timeouts = RedisTimeouts(loop: loop) { [endpoint] request in
            RedisError(.timeout, "no reply from \(endpoint) within \(request.timeout) s ("
                + String(decoding: request.name, as: UTF8.self).uppercased() + ")")
        }
        closeObserver = loop.onClose { [weak self] in self?.close() }
        connect()
    }

    /// Commands accepted and not yet ended (held, or sent without a reply yet, timed-out
    /// ones included): what ``RedisConnectionOptions/maxPending`` bounds.
    package var pendingCount: Int { pending }

    /// Sends `command` and runs `completion` once with its reply or why there is none.
    /// Loop thread only.
    /// - Parameters:
    ///   - timeout: seconds until the completion gets ``RedisError/Kind/timeout`` (nil:
    ///     ``RedisConnectionOptions/commandTimeout``); counts from now, login wait included.
    ///   - completion: runs on the loop thread, exactly once; at once (before this returns)
    ///     when the connection is waiting to reconnect (``RedisError/Kind/disconnected``),
    ///     full (``RedisError/Kind/overloaded``) or closed (``RedisError/Kind/closed``), or
    ///     the command has no arguments (``RedisError/Kind/invalidArgument``).
    package func send(_ command: RedisCommand, timeout: Double? = nil, _ completion: @escaping RedisCompletion) {
        guard !command.arguments.isEmpty else {
            return completion(.failure(RedisError(.invalidArgument, "a command needs at least its name")))
        }
        switch state {
        case .closed:
            return completion(.failure(RedisError(.closed, "the Redis client for \(endpoint) was closed")))
        case let .waiting(_, error):
            return completion(.failure(RedisError(.disconnected, "not connected to \(endpoint): \(error.message)")))
        case .resolving, .connecting, .ready:
            break
        }
        guard pending < options.maxPending else {
            return completion(.failure(RedisError(
                .overloaded, "\(pending) commands already wait for \(endpoint) (maxPending \(options.maxPending))")))
        }
        let seconds = timeout ?? options.commandTimeout
        let request = RedisRequest(name: command.arguments[0], timeout: seconds, completion)
        pending += 1
        timeouts.add(request, after: seconds)
        if case let .ready(context) = state {
            write(command, request, on: context)
        } else {
            held.append((command, request))
        }
    }

    /// Closes the connection: commands held or in flight end with ``RedisError/Kind/closed``,
    /// and no reconnection follows. Loop thread only; idempotent.
    package func close() {
        let previous = state
        state = .closed
        if let closeObserver { loop.removeCloseObserver(closeObserver) }
        closeObserver = nil
        cancelConnectTimer()
        let closed = RedisError(.closed, "the Redis client for \(endpoint) was closed")
        switch previous {
        case let .connecting(context), let .ready(context): context.drop(closed)
        case let .waiting(timer, _): loop.cancelTimer(timer)
        case .resolving, .closed: break
        }
        failHeld(closed)
        timeouts.removeAll()
    }

    // MARK: Sending

    /// Hands `command` to hiredis; its reply (or NULL, when hiredis frees the context) comes
    /// to ``replyCallback`` with the retained `request` as privdata.
    private func write(_ command: RedisCommand, _ request: RedisRequest, on context: RedisContext) {
        guard request.isPending else {
            pending -= 1  // timed out while held: nothing waits for a reply
            return
        }
        guard context.isAlive, context.send(command, request) else {
            pending -= 1
            return request.finish(.failure(RedisError(.disconnected, "the connection to \(endpoint) is closing")))
        }
    }

    /// A reply (or a NULL one) ended a command hiredis had (``RedisContext/send(_:_:)``).
    func ended(_ request: RedisRequest, reply: UnsafeMutableRawPointer?, context: RedisContext) {
        pending -= 1
        if let reply {
            request.finish(.success(RedisReply(reply.assumingMemoryBound(to: redisReply.self))))
        } else {
            context.noteFreeing()
            request.finish(.failure(context.dropReason ?? RedisError(
                .disconnected, "the connection to \(endpoint) broke before the reply: "
                    + context.hiredisError(or: "closed"))))
        }
    }

    private func failHeld(_ error: RedisError) {
        let commands = held
        held.removeAll()
        pending -= commands.count
        for (_, request) in commands { request.finish(.failure(error)) }
    }



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

    /// Takes over a context hiredis just made (connecting).
    private func start(_ ac: UnsafeMutablePointer<redisAsyncContext>) {
        let context = RedisContext(ac, owner: self, loop: loop)
        state = .connecting(context)
        connectTimer = loop.schedule(after: options.connectTimeout) { [weak self] fired in
            guard let self, fired, case let .connecting(current) = state, current === context else { return }
            connectTimer = nil
            let error = RedisError(.disconnected, "connecting to \(endpoint) and logging in took over \(options.connectTimeout) s")
            retry(after: error)  // first: the login's commands, failed by the drop, then find the attempt over
            context.drop(error)
        }
        context.listen()
    }

    /// hiredis's connect callback: the socket connected (log in) or failed (hiredis frees
    /// the context right after; it must not be touched).
    func connected(_ context: RedisContext, ok: Bool) {
        guard case let .connecting(current) = state, current === context else { return }
        guard ok else {
            return retry(after: RedisError(.disconnected, "cannot connect to \(endpoint): "
                + context.hiredisError(or: "connection failed")))
        }
        var steps: [(RedisCommand, String)] = []
        if let password = endpoint.password {
            let auth = endpoint.username.map { RedisCommand("AUTH", $0, password) } ?? RedisCommand("AUTH", password)
            steps.append((auth, "AUTH"))
        }
        if endpoint.database != 0 { steps.append((RedisCommand("SELECT", String(endpoint.database)), "SELECT \(endpoint.database)")) }
        guard !steps.isEmpty else { return loggedIn(context) }
        var left = steps.count
        for (command, label) in steps {
            let request = RedisRequest(name: command.arguments[0], timeout: options.connectTimeout) { [weak self] result in
                guard let self, case let .connecting(current) = state, current === context else { return }
                var refusal: String?
                switch result {
                case let .success(.error(text)): refusal = "\(label) was refused: \(text)"
                case .success: break
                case let .failure(error): refusal = "\(label) failed: \(error.message)"
                }
                if let refusal {
                    let error = RedisError(.disconnected, "logging in to \(endpoint): \(refusal)")
                    context.drop(error)
                    return retry(after: error)
                }
                left -= 1
                if left == 0 { loggedIn(context) }
            }
            pending += 1
            write(command, request, on: context)
        }
    }

    private func loggedIn(_ context: RedisContext) {
        cancelConnectTimer()
        state = .ready(context)
        failures = 0
        let commands = held
        held.removeAll()
        for (command, request) in commands { write(command, request, on: context) }
    }

    /// hiredis's disconnect callback: the connection broke (hiredis has already failed its
    /// commands and frees the context after this).
    func disconnected(_ context: RedisContext) {
        guard context.dropReason == nil else { return }  // dropped by us: already handled
        switch state {
        case let .ready(current) where current === context, let .connecting(current) where current === context:
            retry(after: RedisError(.disconnected, "the connection to \(endpoint) broke: "
                + context.hiredisError(or: "closed by the server")))
        default:
            break
        }
    }

    /// Fails the held commands with `error` and waits a backoff before connecting again.
    /// The state changes first: a completion that sends again then fails at once, and one
    /// that closes the connection finds no context to free (this may run inside hiredis's
    /// connect callback, where freeing the context is not allowed).
    private func retry(after error: RedisError) {
        cancelConnectTimer()
        let delay = options.reconnectDelay(attempt: failures)
        failures += 1
        let timer = loop.schedule(after: delay) { [weak self] fired in
            guard let self, fired, case .waiting = state else { return }
            connect()
        }
        state = .waiting(timer: timer, error: error)
        failHeld(error)
    }

    private func cancelConnectTimer() {
        if let connectTimer { loop.cancelTimer(connectTimer) }
        connectTimer = nil
    }
}

/// One command's completion, and whether it has run: the completion runs once, for the
/// reply, the timeout or the failure that comes first. Loop thread only.
final class RedisRequest {
    private var completion: RedisCompletion?
    /// The command's name (its first argument) and timeout in seconds, for the timeout's message.
    let name: [UInt8]
    let timeout: Double

    init(name: [UInt8], timeout: Double, _ completion: @escaping RedisCompletion) {
        self.name = name
        self.timeout = timeout
        self.completion = completion
    }

    var isPending: Bool { completion != nil }

    /// Runs the completion with `result` unless it ran already (a late reply is dropped here).
    func finish(_ result: Result<RedisReply, RedisError>) {
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }
}
