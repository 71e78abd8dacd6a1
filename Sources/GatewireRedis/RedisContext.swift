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
/// `ac->data` and `ac->ev.data` point at this object, unretained: the ``RedisConnection``
/// holds it while the context lives (until hiredis's cleanup at the earliest), and every
/// path into hiredis (the watch handler, the connection) holds it across the call.
final class RedisContext {
    let ac: UnsafeMutablePointer<redisAsyncContext>
    /// The connection the context belongs to. Strong: a connection with a live context
    /// (connected, or connecting) lives until it is closed or its loop closes, as a socket
    /// the loop polls must have an owner to hear its events.
    let connection: RedisConnection
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
    init(_ ac: UnsafeMutablePointer<redisAsyncContext>, connection: RedisConnection, loop: EventLoop) {
        self.ac = ac
        self.connection = connection
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
