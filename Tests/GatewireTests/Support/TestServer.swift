import Glibc

/// Why the test server could not be started.
struct TestServerError: Error, CustomStringConvertible {
    let description: String
}

/// Gatewire's scripted HTTP test server (`Tests/support/testserver.py`), started by the test
/// that needs it: a missing or broken server fails the test, it never skips it.
///
/// The Python is `.venv/bin/python` in the repo root when present, else `python3` from PATH.
/// The server binds 127.0.0.1 on a free port and reports it on its first stdout line
/// (`PORT <n>`). The child is stopped with SIGTERM and reaped in ``stop()`` or `deinit`.
///
///     let server = try TestServer()
///     defer { server.stop() }
///     let url = server.baseURL + "/sequence/k/503,200"
final class TestServer {
    /// The port the server listens on (127.0.0.1).
    let port: Int
    /// `http://127.0.0.1:<port>`, without a trailing slash.
    let baseURL: String
    /// The server's process id; 0 once stopped.
    private(set) var pid: pid_t
    /// Our end of the pipe on the server's stdout, kept open until stop (the server never
    /// writes to it again, but closing it early could turn a stray write into SIGPIPE).
    private var stdoutFD: Int32

    /// The repository root, from this file's path (Tests/GatewireTests/Support/TestServer.swift).
    static let repoRoot: String = {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/")
    }()

    /// Starts the server and waits for its port.
    /// - Parameters:
    ///   - arguments: extra command-line arguments for testserver.py (e.g. `--verbose`).
    ///   - startTimeout: seconds to wait for the `PORT` line (default 30).
    /// - Throws: ``TestServerError`` when the process cannot be spawned, exits early, prints
    ///   something else, or stays silent past `startTimeout`. The child is killed and reaped.
    init(arguments: [String] = [], startTimeout: Double = 30) throws {
        let venvPython = Self.repoRoot + "/.venv/bin/python"
        let python = access(venvPython, X_OK) == 0 ? venvPython : "python3"
        let script = Self.repoRoot + "/Tests/support/testserver.py"
        let (pid, fd) = try Self.spawn([python, script] + arguments)
        self.pid = pid
        self.stdoutFD = fd
        do {
            port = try Self.readPort(fd: fd, pid: pid, timeout: startTimeout)
        } catch {
            Self.terminate(pid)
            close(fd)
            throw error
        }
        baseURL = "http://127.0.0.1:\(port)"
    }

    deinit { stop() }

    /// Stops the server (SIGTERM, then SIGKILL after 5 s) and reaps it. Idempotent.
    func stop() {
        guard pid != 0 else { return }
        Self.terminate(pid)
        pid = 0
        close(stdoutFD)
        stdoutFD = -1
    }

    // MARK: Process plumbing

    private static func spawn(_ argv: [String]) throws -> (pid_t, Int32) {
        var fds: [Int32] = [-1, -1]
        // Close-on-exec, so children spawned by other tests do not keep our pipe open
        // (pipe2 is not visible from Swift's Glibc module; the short window is harmless here).
        guard pipe(&fds) == 0 else {
            throw TestServerError(description: "pipe failed: \(String(cString: strerror(errno)))")
        }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO)  // dup2 clears CLOEXEC
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)

        // The test runner may block or ignore signals, and a spawned child inherits both:
        // give the server default SIGTERM/SIGINT handling and an empty mask so stop() works.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, argv[0], &actions, &attributes, cArgs, environ)
        close(fds[1])
        guard result == 0 else {
            close(fds[0])
            throw TestServerError(description: "cannot start \(argv[0]): \(String(cString: strerror(result)))")
        }
        return (pid, fds[0])
    }

    private static func readPort(fd: Int32, pid: pid_t, timeout: Double) throws -> Int {
        let deadline = monotonicNow() + timeout
        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while !line.contains(UInt8(ascii: "\n")) {
            let left = deadline - monotonicNow()
            guard left > 0 else {
                throw TestServerError(description: "test server printed no PORT line within \(timeout) s")
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(min(left * 1000, 1000).rounded(.up)))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let n = read(fd, &buffer, buffer.count)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                var status: Int32 = 0
                waitpid(pid, &status, 0)
                throw TestServerError(
                    description: "test server exited before printing its port (wait status \(status)); see its stderr")
            }
            line += buffer[0..<n]
        }
        let first = String(decoding: line.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        guard first.hasPrefix("PORT "), let port = Int(first.dropFirst(5)), port > 0, port < 65536 else {
            throw TestServerError(description: "test server's first line is not \"PORT <n>\": \(first)")
        }
        return port
    }

    /// SIGTERM, bounded wait, SIGKILL, reap. Safe on an already-exited (unreaped) child.
    private static func terminate(_ pid: pid_t) {
        kill(pid, SIGTERM)
        let deadline = monotonicNow() + 5
        var status: Int32 = 0
        while monotonicNow() < deadline {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    private static func monotonicNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
