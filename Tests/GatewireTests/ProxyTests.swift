@testable import Gatewire
import Glibc
import Testing

/// The config's `proxy` and `noProxy` (libcurl's CURLOPT_PROXY and CURLOPT_NOPROXY), end to
/// end on loopback: the test server plays the proxy, so a proxied request reaches it in
/// absolute-form (RFC 9112 section 3.2.2), which /echo reports as its `target`.
@Suite(.serialized) struct ProxyTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    func client(_ settings: String, baseURL: String) throws -> Client {
        try Client(config: try GatewayConfig(json: #"{"baseURL": "\#(baseURL)", \#(settings)}"#))
    }

    @Test func aCallGoesThroughTheProxyWithItsCredentialsHidden() async throws {
        // Nothing listens on 127.0.0.2:1: only the proxy can answer for it.
        let proxy = "http://puser:PPASS_K1@127.0.0.1:\(server.port)"
        let client = try client(#""proxy": "\#(proxy)", "noProxy": """#, baseURL: "http://127.0.0.2:1")
        defer { client.close() }
        let events = Lock<[String]>([])
        _ = client.addEventMonitor { event in events.withLock { $0.append(event.serializedJSON()) } }
        let response = try await client.send(.get("/echo", parameters: ["q": "1"]))
        let echo = try JSONValue.parse(response.http.text).node
        #expect(echo["target"]?.string == "http://127.0.0.2:1/echo?q=1")
        #expect(echo["path"]?.string == "/echo")
        // "puser:PPASS_K1" in Basic (RFC 7617), to the proxy only.
        #expect(echo["headers"]?["proxy-authorization"]?.string == "Basic cHVzZXI6UFBBU1NfSzE=")
        let shown = [response.path, response.attempts.serializedJSON()] + events.withLock { $0 }
        #expect(!shown.joined().contains("PPASS_K1"))
    }

    @Test func noProxyHostsAreReachedDirectly() async throws {
        // The proxy is a closed port: a call through it fails, one to a noProxy host does not.
        let closed = "http://127.0.0.1:\(try TestServer.closedPort())"
        let direct = try client(#""proxy": "\#(closed)", "noProxy": "127.0.0.1""#, baseURL: server.baseURL)
        defer { direct.close() }
        let echo = try JSONValue.parse(try await direct.send(.get("/echo")).http.text).node
        #expect(echo["target"]?.string == "/echo")  // origin-form: no proxy in between
        let proxied = try client(#""proxy": "\#(closed)", "noProxy": """#, baseURL: server.baseURL)
        defer { proxied.close() }
        let error = await #expect(throws: GatewireError.self) { try await proxied.send(.get("/echo")) }
        #expect(error?.kind == .connect, "\(String(describing: error))")
        // An empty proxy ignores the environment's proxy variables: a direct call.
        let none = try client(#""proxy": """#, baseURL: server.baseURL)
        defer { none.close() }
        #expect(try JSONValue.parse(try await none.send(.get("/echo")).http.text).node["target"]?.string == "/echo")
    }

    @Test func aProxyThatCannotBeUsedIsAConfigErrorWithoutItsPassword() {
        let base = #""baseURL": "http://127.0.0.1:1""#
        let bad = configError(#"{\#(base), "proxy": "ftp://user:PPASS_K2@host:21"}"#)
        #expect(bad?.path == "proxy")
        #expect(bad?.message.hasPrefix("must be \"\" or a proxy URL (http://, https://, socks4://") == true, "\(String(describing: bad))")
        #expect(bad?.message.contains("PPASS_K2") == false)
        #expect(configError(#"{\#(base), "proxy": "http://"}"#)?.path == "proxy")
        #expect(configError(#"{\#(base), "proxy": "socks5h://127.0.0.1:1080", "noProxy": "*"}"#) == nil)
        #expect(configError(#"{\#(base), "noProxy": 1}"#)?.path == "noProxy")
    }
}

/// `verifyTLS: false` is never silent: the config warns (`gatewire check` prints it), and each
/// client's log plugins write it once.
@Suite struct InsecureTLSWarningTests {
    @Test func theConfigAndEachClientsLogPluginWarnOnce() throws {
        let config = try GatewayConfig(json: #"{"baseURL": "https://127.0.0.1:1", "verifyTLS": false}"#)
        #expect(config.warnings.count == 1)
        #expect(config.warnings.first?.hasPrefix("verifyTLS is false: TLS certificate chains and host names are not checked") == true)
        #expect(try GatewayConfig(json: #"{"baseURL": "https://127.0.0.1:1"}"#).warnings.isEmpty)
        let lines = Lock<[String]>([])
        let logger = LoggingPlugin { line in lines.withLock { $0.append(line) } }
        for _ in 0..<2 { try Client(config: config, plugins: [logger]).close() }
        #expect(lines.withLock { $0 }.count == 2)
        #expect(lines.withLock { $0 }.allSatisfy { $0.hasPrefix("warning: verifyTLS is false") })
        try Client(config: try GatewayConfig(json: #"{"baseURL": "https://127.0.0.1:1"}"#), plugins: [logger]).close()
        #expect(lines.withLock { $0 }.count == 2)
    }
}
