/// A private nginx speaking HTTP/2 over TLS on 127.0.0.1 (`Tests/support/nginx_h2.py`, with
/// Debian's nginx-light from `scripts/bootstrap.sh`), for the HTTP/2 tests. Its certificate
/// is fresh and self-signed for 127.0.0.1. A missing nginx or openssl fails the test, never
/// skips it. Stopped by PID (SIGTERM, then SIGKILL after 5 s) in ``stop()`` or `deinit`.
final class NginxH2Server {
    /// The port nginx listens on (127.0.0.1).
    let port: Int
    /// `https://127.0.0.1:<port>`, without a trailing slash.
    let baseURL: String
    /// The server's certificate (PEM); it is its own CA.
    let certificatePath: String
    private let process: ServerProcess

    /// Starts nginx and waits (at most `startTimeout` seconds) until it accepts connections.
    /// - Throws: ``TestServerError`` when it cannot start.
    init(startTimeout: Double = 60) throws {
        let python = ServerProcess.venvExecutable("python", fallback: "python3")!
        let script = ServerProcess.repoRoot + "/Tests/support/nginx_h2.py"
        var certificate = ""
        (process, port) = try ServerProcess.start([python, script], name: "nginx (HTTP/2)", timeout: startTimeout) { line in
            let words = line.split(separator: " ")
            guard words.count == 4, words[0] == "PORT", words[2] == "CERT" else { return nil }
            certificate = String(words[3])
            return Int(words[1])
        }
        certificatePath = certificate
        baseURL = "https://127.0.0.1:\(port)"
    }

    /// Stops nginx and reaps it. Idempotent.
    func stop() { process.stop() }
}
