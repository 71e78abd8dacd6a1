import Glibc

/// Why a test server could not be started.
struct TestServerError: Error, CustomStringConvertible {
    let description: String
}

/// A server process started by a test (``TestServer``, ``HTTPBinServer``): spawned with its
/// output on a pipe, watched until it prints the line that carries its port (bounded wait),
/// then stopped with SIGTERM (SIGKILL after 5 s) and reaped in ``stop()`` or `deinit`.
///
/// The pipe stays open until stop (closing it early could turn a late log line into SIGPIPE);
/// the servers used here write only a few lines after start-up, far below a pipe's capacity.
final class ServerProcess {
    /// The process id; 0 once stopped.
    private(set) var pid: pid_t
    /// Our end of the pipe on the server's output.
    private var outputFD: Int32
    /// What was read before the port line (for error messages).
    private(set) var output = ""

    /// The repository root, from this file's path (Tests/GatewireTests/Support/ServerProcess.swift).
    static let repoRoot: String = {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/")
    }()

    /// An executable of the repo's venv (`.venv/bin/<name>`) when present, else `fallback`
    /// (looked up in PATH), else nil.
    static func venvExecutable(_ name: String, fallback: String? = nil) -> String? {
        let path = repoRoot + "/.venv/bin/" + name
        return access(path, X_OK) == 0 ? path : fallback
    }

    /// Starts `argv` and waits at most `timeout` seconds for an output line from which
    /// `port` extracts the port.
    /// - Parameters:
    ///   - name: the server's name in error messages.
    ///   - stderr: also read the child's stderr (gunicorn logs there); else it is inherited.
    ///   - port: the port in one output line, or nil for a line that does not carry it;
    ///     throwing ends the wait (e.g. the first line must be the port line).
    /// - Returns: the process and the port.
    /// - Throws: ``TestServerError`` when the process cannot be spawned, exits first, or says
    ///   nothing usable within `timeout`. The child is killed and reaped.
    static func start(_ argv: [String], name: String, stderr: Bool = false, timeout: Double,
                      port: (String) throws -> Int?) throws -> (ServerProcess, Int) {
        let (pid, fd) = try spawn(argv, stderr: stderr)
        let process = ServerProcess(pid: pid, outputFD: fd)
        do {
            return (process, try process.waitForPort(name: name, timeout: timeout, port: port))
        } catch {
            process.stop()
            throw error
        }
    }

    private init(pid: pid_t, outputFD: Int32) {
        self.pid = pid
        self.outputFD = outputFD
    }

    deinit { stop() }

    /// Stops the process (SIGTERM, then SIGKILL after 5 s) and reaps it. Idempotent.
    func stop() {
        if pid != 0 {
            Self.terminate(pid)
            pid = 0
        }
        if outputFD >= 0 {
            close(outputFD)
            outputFD = -1
        }
    }

    // MARK: Plumbing

    private static func spawn(_ argv: [String], stderr: Bool) throws -> (pid_t, Int32) {
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
        if stderr { posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO) }
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

    /// Reads whole lines until `port` finds the port in one, the child closes its output, or
    /// `timeout` passes.
    private func waitForPort(name: String, timeout: Double, port: (String) throws -> Int?) throws -> Int {
        let deadline = Self.monotonicNow() + timeout
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                output += line + "\n"
                if let found = try port(line) {
                    guard found > 0, found < 65536 else {
                        throw TestServerError(description: "\(name) reported port \(found): \(line)")
                    }
                    return found
                }
            }
            let left = deadline - Self.monotonicNow()
            guard left > 0 else {
                throw TestServerError(description: "\(name) did not report its port within \(timeout) s; its output:\n\(output)")
            }
            var pfd = pollfd(fd: outputFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(min(left * 1000, 1000).rounded(.up)))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            let n = read(outputFD, &buffer, buffer.count)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                var status: Int32 = 0
                waitpid(pid, &status, 0)
                pid = 0
                throw TestServerError(
                    description: "\(name) exited before reporting its port (wait status \(status)); its output:\n\(output)")
            }
            pending += buffer[0..<n]
        }
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

    static func monotonicNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
