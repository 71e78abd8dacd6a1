import GatewireRedis
import GatewireTransport

/// A test's event loop and the Redis connection it drives, used from async tests: each call
/// hops onto the loop thread (``EventLoop/execute(_:)``), where the client lives, and awaits
/// the completion the client runs there.
final class LoopRedis: Sendable {
    let loop: EventLoop
    let connection: RedisConnection

    /// A new loop and a connection to `url` on it.
    init(_ url: String, options: RedisConnectionOptions = RedisConnectionOptions()) async throws {
        let endpoint = try RedisEndpoint(parsing: url, field: "redis")
        let loop = EventLoop()
        self.loop = loop
        connection = await onLoop(loop) { done in done(RedisConnection(endpoint: endpoint, options: options, loop: loop)) }
    }

    /// Sends one command (text arguments) and awaits its result.
    func send(_ arguments: String..., timeout: Double? = nil) async -> Result<RedisReply, RedisError> {
        await send(RedisCommand(arguments.map { Array($0.utf8) }), timeout: timeout)
    }

    func send(_ command: RedisCommand, timeout: Double? = nil) async -> Result<RedisReply, RedisError> {
        let connection = connection
        return await onLoop(loop) { done in connection.send(command, timeout: timeout) { done($0) } }
    }

    /// Waits (polling every 20 ms, at most `limit` seconds) until `PING` answers `PONG`.
    func waitUntilAnswering(limit: Double = 10) async -> Bool {
        let deadline = ServerProcess.monotonicNow() + limit
        while ServerProcess.monotonicNow() < deadline {
            if case .success(.status("PONG")) = await send("PING") { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    /// Closes the connection, then the loop.
    func close() async {
        let connection = connection
        await onLoop(loop) { done in
            connection.close()
            done(())
        }
        loop.shutdown()
    }
}

/// Runs `body` on `loop`'s thread and awaits the value it hands to `done` (exactly once).
func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable (_ done: @escaping @Sendable (T) -> Void) -> Void) async -> T {
    await withCheckedContinuation { continuation in
        let accepted = loop.execute { body { continuation.resume(returning: $0) } }
        precondition(accepted, "the test's event loop was already closed")
    }
}
