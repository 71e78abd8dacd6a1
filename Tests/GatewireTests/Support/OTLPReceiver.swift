import Gatewire

/// The loopback OTLP/HTTP receiver of traces and metrics (`Tests/support/otlpreceiver.py`), started by the
/// test that needs it: it decodes every export with `opentelemetry-proto`'s messages and
/// reports what it got (``received()``). `mode`: `ok`, `refuse` (503) or `hang` (no answer).
final class OTLPReceiver {
    /// `http://127.0.0.1:<port>`: the `otlpEndpoint` to configure.
    let endpoint: String
    private let process: ServerProcess

    init(mode: String = "ok") throws {
        let python = ServerProcess.venvExecutable("python", fallback: "python3")!
        let script = ServerProcess.repoRoot + "/Tests/support/otlpreceiver.py"
        let port: Int
        (process, port) = try ServerProcess.start([python, script, "--mode", mode], name: "OTLP receiver", timeout: 30) { line in
            guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
                throw TestServerError(description: "OTLP receiver's first line is not \"PORT <n>\": \(line)")
            }
            return port
        }
        endpoint = "http://127.0.0.1:\(port)"
    }

    /// The exports received so far: `{"requests": [{"path", "content_type", "body", "spans", "metrics", "error"}]}`.
    func received() async throws -> JSONValue {
        let client = try Client(baseURL: endpoint)
        defer { client.close() }
        return try JSONValue.parse(try await client.send(.get("/received")).http.text)
    }

    /// Stops the receiver and reaps it. Idempotent.
    func stop() { process.stop() }
}
