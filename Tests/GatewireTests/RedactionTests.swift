import Gatewire
import Testing

/// Secrets that plugins put on requests never reach log lines or error messages.
@Suite(.serialized) struct RedactionTests {
    @Test func logsAndErrorsHideEveryPluginsSecrets() async throws {
        let server = try TestServer()
        let lines = Lock<[String]>([])
        let plugins: [any Plugin] = [
            APIKeyPlugin(.header("X-Custom-Key"), value: "HEADER_SECRET_1"),
            APIKeyPlugin(.query("q_auth"), value: "QUERY_SECRET_2"),
            RefreshingCredential(token: "TOKEN_SECRET_3", header: "X-Token", prefix: "") { _, done in done(nil) },
            // No names configured: it learns them from the plugins above through the client.
            LoggingPlugin(logHeaders: true) { line in lines.withLock { $0.append(line) } },
        ]
        let client = Client(config: try GatewayConfig(baseURL: server.baseURL), plugins: plugins)
        let echo = try await client.send(.get("/echo"))
        let seen = try JSONValue.parse(echo.http.text).node
        #expect(seen["headers"]?["x-custom-key"]?.string == "HEADER_SECRET_1")  // sent...
        #expect(seen["query"]?["q_auth"]?.string == "QUERY_SECRET_2")
        let error = await #expect(throws: GatewireError.self) {
            try await client.send(.get("/status/404", parameters: ["api_key": "PARAM_SECRET_4"]))
        }
        let text = lines.withLock { $0.joined(separator: "\n") } + "\n\(error.map { "\($0)" } ?? "")"
            + (error?.json.serialized() ?? "")
        #expect(lines.withLock { $0.count } >= 4)
        for secret in ["HEADER_SECRET_1", "QUERY_SECRET_2", "TOKEN_SECRET_3", "PARAM_SECRET_4"] {
            #expect(!text.contains(secret), "\(secret) leaked")  // ...but never logged
        }
        #expect(error?.path == "/status/404?api_key=<redacted>")
        #expect(text.contains("X-Custom-Key: <redacted>"))
    }
}
