@testable import Gatewire
import GatewireRedis
import GatewireTransport
import Glibc

/// Debian's `redis-server` on a free loopback port (no persistence, its files in a temporary
/// folder), with an event loop and a connection to it, for tests that run the shared state's
/// script itself. A missing `redis-server` fails the test (``TestServerError``), never skips
/// it. Stopped by PID in ``stop()`` (after closing the connection and the loop).
final class ScriptRedis: @unchecked Sendable {
    let loop = EventLoop()
    let connection: RedisConnection
    /// The server's address (127.0.0.1 and its port).
    let endpoint: RedisEndpoint
    private let server: ServerProcess
    private let directory: String

    init() async throws {
        var template = Array("/tmp/gatewire-redis-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestServerError(description: "mkdtemp failed") }
        directory = String(cString: made)
        let port = try TestServer.closedPort()
        // redis-server 7.0 cannot listen on port 0: the port was just freed by closedPort().
        (server, _) = try ServerProcess.start(
            ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", directory, "--logfile", "", "--daemonize", "no"],
            name: "redis-server", timeout: 20) { line in line.contains("Ready to accept connections") ? port : nil }
        let endpoint = RedisEndpoint(address: .tcp(host: "127.0.0.1", port: port))
        self.endpoint = endpoint
        let loop = loop
        connection = await Self.onLoop(loop) { done in done(RedisConnection(endpoint: endpoint, loop: loop)) }
    }

    /// One step of ``run(_:)``: the breaker script with its keys and text arguments, or a command.
    enum Step: Sendable {
        case script(keys: [String], [String])
        case command([String])
    }

    /// Sends `steps` at once, pipelined on the connection (Redis runs them back to back, so
    /// no wait of the test's can fall between them), and returns their replies in order.
    func run(_ steps: [Step]) async -> [Result<RedisReply, RedisError>] {
        let connection = connection
        return await Self.onLoop(loop) { done in
            var replies: [Result<RedisReply, RedisError>?] = Array(repeating: nil, count: steps.count)
            var left = steps.count
            for (index, step) in steps.enumerated() {
                let completion: RedisCompletion = { result in
                    replies[index] = result
                    left -= 1
                    if left == 0 { done(replies.map { $0! }) }
                }
                switch step {
                case let .script(keys, arguments):
                    connection.evalsha(BreakerScript.script, keys: keys.map { Array($0.utf8) },
                                       arguments: arguments.map { Array($0.utf8) }, completion)
                case let .command(arguments):
                    connection.send(RedisCommand(arguments.map { Array($0.utf8) }), completion)
                }
            }
        }
    }

    /// Sends one command with text arguments and returns its reply.
    func send(_ arguments: String...) async -> Result<RedisReply, RedisError> {
        let connection = connection
        let command = RedisCommand(arguments.map { Array($0.utf8) })
        return await Self.onLoop(loop) { done in connection.send(command) { done($0) } }
    }

    /// Every key (`SCAN`, never `KEYS`) with its `PTTL` (-1: no expiry).
    func keysAndExpiries() async -> [String: Int64] {
        var cursor = "0"
        var found: [String: Int64] = [:]
        repeat {
            guard case let .success(.array(reply)) = await send("SCAN", cursor), reply.count == 2,
                  let next = reply[0].string, case let .array(keys) = reply[1] else { return found }
            for key in keys.compactMap(\.string) {
                if case let .success(.integer(ttl)) = await send("PTTL", key) { found[key] = ttl }
            }
            cursor = next
        } while cursor != "0"
        return found
    }

    func stop() async {
        let connection = connection
        await Self.onLoop(loop) { done in
            connection.close()
            done(())
        }
        loop.shutdown()
        server.stop()
        _ = rmdir(directory)  // empty: nothing persisted
    }

    static func onLoop<T: Sendable>(_ loop: EventLoop,
                                            _ body: @escaping @Sendable (_ done: @escaping @Sendable (T) -> Void) -> Void) async -> T {
        await withCheckedContinuation { continuation in
            let accepted = loop.execute { body { continuation.resume(returning: $0) } }
            precondition(accepted, "the test's event loop was already closed")
        }
    }
}
