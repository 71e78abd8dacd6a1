import Glibc

/// A private nginx speaking HTTP/2 over TLS on 127.0.0.1 (`Tests/support/nginx_h2.py`, with
/// Debian's nginx-light from `scripts/bootstrap.sh`), for the HTTP/2 tests. Its certificate
/// is fresh and self-signed for 127.0.0.1. A missing nginx or openssl fails the test, never
/// skips it. Stopped by PID (SIGTERM, then SIGKILL after 5 s) in ``stop()`` or `deinit`.
///
/// Counted (`counted: true`), it also serves cleartext h2c (prior knowledge only) and
/// HTTP/1.1 ports, and logs each request's connection, so ``connections(port:)`` says how
/// many connections a test's client opened to a port.
final class NginxH2Server {
    /// The port nginx listens on (127.0.0.1).
    let port: Int
    /// `https://127.0.0.1:<port>`, without a trailing slash.
    let baseURL: String
    /// The server's certificate (PEM); it is its own CA.
    let certificatePath: String
    /// Counted only: the h2c port's and the HTTP/1.1 port's base URLs (`http://127.0.0.1:<n>`),
    /// and the access log (`<server port> <connection serial>` per request); else "".
    let h2cBaseURL: String
    let http1BaseURL: String
    private let logPath: String
    private let process: ServerProcess

    /// Starts nginx and waits (at most `startTimeout` seconds) until it accepts connections.
    /// `maxStreams`: nginx's `http2_max_concurrent_streams` (its default is 128).
    /// - Throws: ``TestServerError`` when it cannot start.
    init(counted: Bool = false, maxStreams: Int = 128, startTimeout: Double = 60) throws {
        let python = ServerProcess.venvExecutable("python", fallback: "python3")!
        let script = ServerProcess.repoRoot + "/Tests/support/nginx_h2.py"
        var words: [String] = []
        let argv = [python, script, "--max-streams", String(maxStreams)] + (counted ? ["--counted"] : [])
        (process, port) = try ServerProcess.start(argv, name: "nginx (HTTP/2)", timeout: startTimeout) { line in
            words = line.split(separator: " ").map(String.init)
            guard words.count == (counted ? 10 : 4), words[0] == "PORT", words[2] == "CERT" else { return nil }
            return Int(words[1])
        }
        certificatePath = words[3]
        baseURL = "https://127.0.0.1:\(port)"
        h2cBaseURL = counted ? "http://127.0.0.1:\(words[5])" : ""
        http1BaseURL = counted ? "http://127.0.0.1:\(words[7])" : ""
        logPath = counted ? words[9] : ""
    }

    /// How many connections to `port` served a request so far, by the access log (counted only).
    func connections(port: Int) throws -> Int {
        guard let file = fopen(logPath, "r") else { throw TestServerError(description: "cannot read \(logPath)") }
        defer { fclose(file) }
        var serials = Set<Substring>()
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let words = String(cString: line).split(separator: " ")
            if words.count == 2, words[0] == "\(port)" { serials.insert(words[1].dropLast(words[1].hasSuffix("\n") ? 1 : 0)) }
        }
        return serials.count
    }

    /// Stops nginx and reaps it. Idempotent.
    func stop() { process.stop() }
}
