/// Gatewire's scripted HTTP test server (`Tests/support/testserver.py`), started by the test
/// that needs it: a missing or broken server fails the test, it never skips it.
///
/// The Python is `.venv/bin/python` in the repo root when present, else `python3` from PATH.
/// The server binds 127.0.0.1 on a free port and reports it on its first stdout line
/// (`PORT <n>`). The child is stopped with SIGTERM and reaped in ``stop()`` or `deinit`
/// (``ServerProcess``).
///
///     let server = try TestServer()
///     defer { server.stop() }
///     let url = server.baseURL + "/sequence/k/503,200"
final class TestServer {
    /// The port the server listens on (127.0.0.1).
    let port: Int
    /// `http://127.0.0.1:<port>`, without a trailing slash.
    let baseURL: String
    private let process: ServerProcess

    /// The repository root.
    static var repoRoot: String { ServerProcess.repoRoot }

    /// Starts the server and waits for its port.
    /// - Parameters:
    ///   - arguments: extra command-line arguments for testserver.py (e.g. `--verbose`).
    ///   - startTimeout: seconds to wait for the `PORT` line (default 30).
    /// - Throws: ``TestServerError`` when the process cannot be spawned, exits early, prints
    ///   something else, or stays silent past `startTimeout`. The child is killed and reaped.
    init(arguments: [String] = [], startTimeout: Double = 30) throws {
        let python = ServerProcess.venvExecutable("python", fallback: "python3")!
        let script = Self.repoRoot + "/Tests/support/testserver.py"
        (process, port) = try ServerProcess.start([python, script] + arguments, name: "test server",
                                                  timeout: startTimeout) { line in
            guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
                throw TestServerError(description: "test server's first line is not \"PORT <n>\": \(line)")
            }
            return port
        }
        baseURL = "http://127.0.0.1:\(port)"
    }

    /// Stops the server and reaps it. Idempotent.
    func stop() { process.stop() }
}
