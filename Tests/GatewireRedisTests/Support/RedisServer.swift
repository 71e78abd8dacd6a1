import Glibc

/// Debian's `redis-server` (7.0), started by the test that needs it on a free loopback port:
/// no persistence (`--save '' --appendonly no`), its files in a temporary folder of its own,
/// optionally with a password, ACL users, a Unix socket or cluster mode. A missing
/// `redis-server` fails the test (``TestServerError``), never skips it.
///
/// redis-server 7.0 cannot listen on `--port 0`, so the port is one the kernel handed out
/// to a socket bound and closed just before; a server that then fails to bind it (another
/// process took it) is started again on another (at most 5 tries). Stopped by PID (SIGTERM,
/// SIGKILL after 5 s: ``ServerProcess``) in ``stop()`` or `deinit`; ``signal(_:)`` sends
/// SIGSTOP, SIGCONT or SIGKILL, and ``restart()`` starts it again on the same port.
///
///     let redis = try RedisServer(password: "secret")
///     defer { redis.stop() }
///     let url = "redis://:secret@127.0.0.1:\(redis.port)"
final class RedisServer {
    /// The TCP port on 127.0.0.1.
    let port: Int
    /// The Unix socket's path, when asked for.
    let socketPath: String?
    /// The server's temporary folder (its working directory; the cluster's nodes.conf).
    let directory: String
    private let arguments: [String]
    private var process: ServerProcess?

    /// Starts a server.
    /// - Parameters:
    ///   - password: `requirepass` (the `default` user's password).
    ///   - users: ACL users, each a rule line as `ACL SETUSER` takes it after the name, e.g.
    ///     `["alice", "on", ">wonderland", "~*", "&*", "+@all"]`.
    ///   - unixSocket: also listen on `directory/redis.sock`.
    ///   - cluster: cluster mode (`--cluster-enabled yes`, its nodes.conf in `directory`).
    /// - Throws: ``TestServerError`` when redis-server is missing, exits, or is not ready
    ///   within 20 s, on each of 5 ports.
    init(password: String? = nil, users: [[String]] = [], unixSocket: Bool = false, cluster: Bool = false) throws {
        var template = Array("/tmp/gatewire-redis-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw TestServerError(description: "mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        directory = String(cString: made)
        socketPath = unixSocket ? directory + "/redis.sock" : nil
        var arguments = ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory,
                         "--logfile", "", "--daemonize", "no"]
        if let password { arguments += ["--requirepass", password] }
        for user in users { arguments += ["--user"] + user }
        if let socketPath { arguments += ["--unixsocket", socketPath, "--unixsocketperm", "700"] }
        if cluster {
            arguments += ["--cluster-enabled", "yes", "--cluster-config-file", directory + "/nodes.conf",
                          "--cluster-node-timeout", "5000"]
        }
        self.arguments = arguments
        var lastError: Error?
        for _ in 0..<5 {
            let candidate = try TestServer.closedPort()  // a port the kernel just handed out, then closed
            do {
                process = try Self.launch(port: candidate, arguments: arguments)
                port = candidate
                return
            } catch {
                lastError = error
            }
        }
        _ = try? Tool.run(["rm", "-rf", directory], timeout: 10)
        throw lastError!
    }

    deinit { stop() }

    /// `redis://[auth@]127.0.0.1:<port>[/db]`.
    func url(login: String? = nil, database: Int? = nil) -> String {
        "redis://" + (login.map { $0 + "@" } ?? "") + "127.0.0.1:\(port)" + (database.map { "/\($0)" } ?? "")
    }

    /// Sends `signal` to the server (SIGSTOP, SIGCONT; SIGKILL also reaps it).
    func signal(_ signal: Int32) {
        guard let pid = process?.pid, pid != 0 else { return }
        kill(pid, signal)
        if signal == SIGKILL {
            process?.stop()  // reaps the killed process
            process = nil
        }
    }

    /// Starts the server again on the same port (after ``signal(_:)`` with SIGKILL, or
    /// ``stop()``), with the same options. Its data is gone (no persistence).
    func restart() throws {
        process?.stop()
        process = try Self.launch(port: port, arguments: arguments)
    }

    /// Stops the server (SIGCONT first, in case a test left it stopped) and removes its folder.
    /// Idempotent.
    func stop() {
        if let pid = process?.pid, pid != 0 { kill(pid, SIGCONT) }
        process?.stop()
        process = nil
        _ = try? Tool.run(["rm", "-rf", directory], timeout: 10)
    }

    /// Runs `redis-cli -p <port>` with `arguments` (and `-a`/`--user` first when given) and
    /// returns its output, bounded by 20 s.
    func cli(_ arguments: [String], auth: [String] = []) throws -> String {
        try Tool.run(["redis-cli", "-h", "127.0.0.1", "-p", String(port)] + auth + arguments, timeout: 20)
    }

    // MARK: Plumbing

    private static func launch(port: Int, arguments: [String]) throws -> ServerProcess {
        let (process, _) = try ServerProcess.start(["redis-server", "--port", String(port)] + arguments,
                                                   name: "redis-server", timeout: 20) { line in
            line.contains("Ready to accept connections") ? port : nil
        }
        return process
    }
}

/// Three `redis-server`s in cluster mode made one cluster of 3 primaries (no replicas) by
/// `redis-cli --cluster create`, each slot served once the test starts (`cluster_state:ok`
/// on every node, waited for at most 30 s); with `password`, every node requires it
/// (`requirepass`), and the tools here log in with it.
final class RedisClusterServers {
    let nodes: [RedisServer]
    /// redis-cli's login arguments: none, or `-a <password> --no-auth-warning`.
    let auth: [String]

    init(password: String? = nil) throws {
        nodes = try (0..<3).map { _ in try RedisServer(password: password, cluster: true) }
        auth = password.map { ["-a", $0, "--no-auth-warning"] } ?? []
        let addresses = nodes.map { "127.0.0.1:\($0.port)" }
        let created = try Tool.run(["redis-cli"] + auth + ["--cluster", "create"] + addresses + ["--cluster-yes"], timeout: 60)
        guard created.contains("[OK] All 16384 slots covered") else {
            throw TestServerError(description: "redis-cli --cluster create failed:\n\(created)")
        }
        try waitUntilOK()
    }

    /// Waits (at most 30 s) until every node says `cluster_state:ok` and knows 3 nodes.
    func waitUntilOK() throws {
        let deadline = ServerProcess.monotonicNow() + 30
        while ServerProcess.monotonicNow() < deadline {
            let ready = try nodes.allSatisfy { node in
                let info = try node.cli(["cluster", "info"], auth: auth)
                return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:3")
            }
            if ready { return }
            usleep(100_000)
        }
        throw TestServerError(description: "the cluster did not reach cluster_state:ok within 30 s")
    }

    /// The node that serves `slot` now (from `CLUSTER SLOTS` as redis-cli prints it).
    func node(serving slot: Int) throws -> RedisServer {
        for node in nodes {
            let output = try node.cli(["cluster", "nodes"], auth: auth)
            for line in output.split(separator: "\n") where line.contains("myself") {
                for range in line.split(separator: " ").dropFirst(8) {
                    let bounds = range.split(separator: "-").compactMap { Int($0) }
                    if bounds.count == 1, bounds[0] == slot { return node }
                    if bounds.count == 2, (bounds[0]...bounds[1]).contains(slot) { return node }
                }
            }
        }
        throw TestServerError(description: "no node serves slot \(slot)")
    }

    /// The node id (`CLUSTER MYID`) of `node`.
    func id(of node: RedisServer) throws -> String {
        try node.cli(["cluster", "myid"], auth: auth).trimmingSpaces()
    }

    func stop() { nodes.forEach { $0.stop() } }
}

/// Short-lived commands a test runs (redis-cli, rm): output captured in a temporary file.
enum Tool {
    /// Runs `argv` (looked up in PATH) to its end and returns its stdout and stderr.
    /// - Throws: ``TestServerError`` when it cannot start, runs past `timeout` seconds (then
    ///   it is killed), or exits with a status other than 0.
    static func run(_ argv: [String], timeout: Double) throws -> String {
        var template = Array("/tmp/gatewire-tool-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw TestServerError(description: "mkstemp failed") }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer {
            close(fd)
            unlink(path)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fd, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, fd, STDERR_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, argv[0], &actions, nil, cArgs, environ)
        guard spawned == 0 else {
            throw TestServerError(description: "cannot start \(argv[0]): \(String(cString: strerror(spawned)))")
        }
        let deadline = ServerProcess.monotonicNow() + timeout
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ServerProcess.monotonicNow() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                throw TestServerError(description: "\(argv.joined(separator: " ")) ran past \(timeout) s")
            }
            usleep(10_000)
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        lseek(fd, 0, SEEK_SET)
        while true {
            let n = read(fd, &buffer, buffer.count)
            guard n > 0 else { break }
            output += buffer[0..<n]
        }
        let text = String(decoding: output, as: UTF8.self)
        guard status == 0 else {
            throw TestServerError(description: "\(argv.joined(separator: " ")) exited with status \(status):\n\(text)")
        }
        return text
    }
}

extension String {
    /// Without leading and trailing spaces and newlines (no Foundation here).
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
