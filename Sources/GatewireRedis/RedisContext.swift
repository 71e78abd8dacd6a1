import CHiredis
import GatewireTransport

/// One hiredis async context (one connection attempt and, once up, one connection) and the
/// ``EventLoop`` watch of its socket: hiredis's event-library adapter, written for
/// Gatewire's loop as hiredis 0.14's `adapters/*.h` are for libuv or libevent. Loop thread
/// only.
///
/// hiredis calls `ev.addRead`/`delRead`/`addWrite`/`delWrite` as its buffers fill and
/// drain; each flips a wanted event of the loop's watch. When the socket is ready the watch
/// handler calls `redisAsyncHandleRead`/`Write`, as the adapters' event callbacks do.
/// `ev.cleanup` runs while hiredis frees the context (after a read or write error, or
/// `redisAsyncFree`): it ends the watch, and from then on the context pointer is dead.
///
/// `ac->data` and `ac->ev.data` point at this object, unretained: its owner (a
/// ``RedisConnection`` or a ``RedisSubscription``) holds it while the context lives (until
/// hiredis's cleanup at the earliest), and every path into hiredis (the watch handler, the
/// owner) holds it across the call.
final class RedisContext {
    let ac: UnsafeMutablePointer<redisAsyncContext>
    /// The client the context belongs to. Strong: a client with a live context (connected,
    /// or connecting) lives until it is closed or its loop closes, as a socket the loop polls
    /// must have an owner to hear its events.
    let owner: any RedisContextOwner
    private let loop: EventLoop
    private var watchID: Int?
    private var events: DescriptorEvents = []
    /// False once hiredis has started freeing the context (`ev.cleanup`, or the first
    /// command failed with a NULL reply): no hiredis call may use `ac` after that.
    private(set) var isAlive = true
    /// Set when the client itself drops the context (its completions then carry this error,
    /// and its disconnect callback is not a loss to report).
    private(set) var dropReason: RedisError?

    /// Takes over `ac` (connecting, no error) and watches its socket.
    init(_ ac: UnsafeMutablePointer<redisAsyncContext>, owner: any RedisContextOwner, loop: EventLoop) {
        self.ac = ac
        self.owner = owner
        self.loop = loop
        let me = Unmanaged.passUnretained(self).toOpaque()
        ac.pointee.data = me
        gw_redis_set_event_hooks(ac, me, { RedisContext.from($0).want(.readable, true) },
                                 { RedisContext.from($0).want(.readable, false) },
                                 { RedisContext.from($0).want(.writable, true) },
                                 { RedisContext.from($0).want(.writable, false) },
                                 { RedisContext.from($0).cleanup() })
        watchID = loop.watch(ac.pointee.c.fd, events: []) { [unowned self] ready in
            self.handle(ready)
        }
    }

    /// Sets hiredis's connect and disconnect callbacks, which report to ``owner``. Call it
    /// after the owner keeps the context: setting the connect callback asks for writability.
    func listen() {
        redisAsyncSetDisconnectCallback(ac, disconnectCallback)
        redisAsyncSetConnectCallback(ac, connectCallback)
    }

    /// Hands `command` to hiredis; its reply (or NULL, when hiredis frees the context) goes to
    /// ``RedisContextOwner/ended(_:reply:context:)`` with `request`, retained until then.
    /// False when hiredis refused it (it refuses only a context being torn down); `request`
    /// has not run then.
    func send(_ command: RedisCommand, _ request: RedisRequest) -> Bool {
        let argc = command.arguments.count
        let lengths = command.arguments.map { $0.count }
        let status: Int32 = withPointers(to: command.arguments) { pointers in
            redisAsyncCommandArgv(ac, replyCallback, Unmanaged.passRetained(request).toOpaque(), Int32(argc), pointers, lengths)
        }
        guard status == REDIS_OK else {
            Unmanaged.passUnretained(request).release()
            return false
        }
        return true
    }

    /// Sends `SUBSCRIBE channel`. hiredis 0.14 keeps the callback in its table of channels
    /// and calls it for every reply naming the channel (the `subscribe` confirmation, each
    /// `message`), then once with NULL when it frees the context; each goes to the owner, a
    /// ``RedisSubscription``. False when hiredis refused it (a context being torn down).
    func subscribe(_ channel: [UInt8]) -> Bool {
        let arguments = [Array("SUBSCRIBE".utf8), channel]
        let lengths = arguments.map { $0.count }
        let status: Int32 = withPointers(to: arguments) { pointers in
            redisAsyncCommandArgv(ac, subscriptionCallback, nil, 2, pointers, lengths)
        }
        return status == REDIS_OK
    }

    /// The context of a hiredis callback's `ac` (its `data`).
    static func of(_ ac: UnsafePointer<redisAsyncContext>) -> RedisContext {
        Unmanaged<RedisContext>.fromOpaque(ac.pointee.data!).takeUnretainedValue()
    }

    private static func from(_ privdata: UnsafeMutableRawPointer?) -> RedisContext {
        Unmanaged<RedisContext>.fromOpaque(privdata!).takeUnretainedValue()
    }

    /// hiredis's error text (`ac->errstr`), or `fallback` when it has none.
    func hiredisError(or fallback: String) -> String {
        guard ac.pointee.err != 0, let text = ac.pointee.errstr else { return fallback }
        return String(cString: text)
    }

    /// Notes that hiredis is failing this context's commands with NULL replies, which it
    /// does only while it frees the context.
    func noteFreeing() { isAlive = false }

    /// Drops the connection: hiredis fails every command in flight with a NULL reply (their
    /// completions get `reason`) and frees the context. Inside a reply callback hiredis
    /// defers the free until the callback returns (`REDIS_IN_CALLBACK`). Never called from
    /// the connect or disconnect callback, where hiredis 0.14 would go on using the freed
    /// context. Idempotent.
    func drop(_ reason: RedisError) {
        guard isAlive, dropReason == nil else { return }
        dropReason = reason
        withExtendedLifetime(self) { redisAsyncFree(ac) }
    }

    private func want(_ event: DescriptorEvents, _ on: Bool) {
        if on { events.insert(event) } else { events.remove(event) }
        if let watchID { loop.setEvents(watchID, events) }
    }

    private func cleanup() {
        isAlive = false
        if let watchID { loop.unwatch(watchID) }
        watchID = nil
    }

    private func handle(_ ready: DescriptorEvents) {
        withExtendedLifetime(self) {
            if ready.contains(.readable), isAlive { redisAsyncHandleRead(ac) }
            if ready.contains(.writable), isAlive { redisAsyncHandleWrite(ac) }
        }
    }
}

/// What a ``RedisContext`` reports to the client that owns it (``RedisConnection``,
/// ``RedisSubscription``). Loop thread only, called from inside hiredis.
protocol RedisContextOwner: AnyObject {
    /// hiredis's connect callback: the socket connected (`ok`) or failed (hiredis frees the
    /// context right after; it must not be touched).
    func connected(_ context: RedisContext, ok: Bool)
    /// hiredis's disconnect callback: the connection broke or was dropped (hiredis has
    /// already failed its commands and frees the context after this).
    func disconnected(_ context: RedisContext)
    /// A command sent by ``RedisContext/send(_:_:)`` ended: its reply (hiredis frees it after
    /// this returns), or NULL when hiredis frees the context with the command in flight.
    func ended(_ request: RedisRequest, reply: UnsafeMutableRawPointer?, context: RedisContext)
}

/// hiredis's reply callback for ``RedisContext/send(_:_:)``: privdata is the retained ``RedisRequest``.
private func replyCallback(_ ac: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?,
                           _ privdata: UnsafeMutableRawPointer?) {
    let request = Unmanaged<RedisRequest>.fromOpaque(privdata!).takeRetainedValue()
    let context = RedisContext.of(ac!)
    context.owner.ended(request, reply: reply, context: context)
}

/// hiredis's callback for a channel's replies (``RedisContext/subscribe(_:)``): called per
/// reply, no privdata.
private func subscriptionCallback(_ ac: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?,
                                  _: UnsafeMutableRawPointer?) {
    let context = RedisContext.of(ac!)
    (context.owner as? RedisSubscription)?.received(reply, context: context)
}

private func connectCallback(_ ac: UnsafePointer<redisAsyncContext>?, _ status: Int32) {
    let context = RedisContext.of(ac!)
    context.owner.connected(context, ok: status == REDIS_OK)
}

private func disconnectCallback(_ ac: UnsafePointer<redisAsyncContext>?, _: Int32) {
    let context = RedisContext.of(ac!)
    context.owner.disconnected(context)
}

/// Calls `body` with a C array of pointers to the bytes of each of `arguments`, all copied
/// into one buffer (valid only during the call; hiredis copies them into its output buffer).
private func withPointers<R>(to arguments: [[UInt8]], _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let total = arguments.reduce(0) { $0 + $1.count }
    let bytes = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, total))
    let pointers = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: arguments.count)
    defer {
        bytes.deallocate()
        pointers.deallocate()
    }
    var offset = 0
    for (index, argument) in arguments.enumerated() {
        argument.withUnsafeBytes { UnsafeMutableRawPointer(bytes + offset).copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(bytes), byteCount: $0.count) }
        pointers[index] = UnsafePointer(bytes + offset)
        offset += argument.count
    }
    return body(pointers)
}
