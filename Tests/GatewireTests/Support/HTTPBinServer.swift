/// httpbin (the PyPI package, as in `scripts/demo.sh`) under the venv's gunicorn on
/// 127.0.0.1, on a free port, for the tests of the authentication endpoints (`/bearer`,
/// `/basic-auth/<user>/<password>`). Missing gunicorn or httpbin fails the test, never skips it.
///
/// gunicorn binds port 0 and logs `Listening at: http://127.0.0.1:<port>` on stderr; the
/// wait for that line is bounded. Stopped by PID (SIGTERM, SIGKILL after 5 s) and reaped in
/// ``stop()`` or `deinit` (``ServerProcess``); `--graceful-timeout` keeps the shutdown short.
/// `--keep-alive 60`: gunicorn's default closes a connection idle for 2 s, and on a loaded
/// machine a pooled connection then dies as the next request goes out, a transport failure
/// that a retry policy rightly retries; the tests count attempts, so the server keeps it open.
final class HTTPBinServer {
    /// The port gunicorn listens on (127.0.0.1).
    let port: Int
    /// `http://127.0.0.1:<port>`, without a trailing slash.
    let baseURL: String
    private let process: ServerProcess

    init(startTimeout: Double = 60) throws {
        guard let gunicorn = ServerProcess.venvExecutable("gunicorn") else {
            throw TestServerError(description: "\(ServerProcess.repoRoot)/.venv/bin/gunicorn is missing: run scripts/bootstrap.sh")
        }
        let argv = [gunicorn, "--bind", "127.0.0.1:0", "--workers", "1", "--threads", "8",
                    "--graceful-timeout", "2", "--keep-alive", "60", "--error-logfile", "-", "httpbin:app"]
        let marker = "Listening at: http://127.0.0.1:"
        (process, port) = try ServerProcess.start(argv, name: "httpbin (gunicorn)", stderr: true,
                                                  timeout: startTimeout) { line in
            guard let range = line.firstRange(of: marker) else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        baseURL = "http://127.0.0.1:\(port)"
    }

    /// Stops gunicorn and reaps it. Idempotent.
    func stop() { process.stop() }
}
