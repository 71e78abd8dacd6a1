import CCurl
import Gatewire
import Testing

/// Every request carries `User-Agent: gatewire/VERSION libcurl/VERSION` unless the caller set
/// one: a request's own field, the config's `headers`, or a plugin's.
@Suite struct UserAgentTests {
    /// "gatewire/0.1.0 libcurl/7.88.1", from the header's version and the loaded libcurl.
    static let expected = "gatewire/\(Version.string) libcurl/\(String(cString: curl_version_info(CURLVERSION_ELEVENTH)!.pointee.version))"

    struct SetsUserAgent: Plugin {
        func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
            request.headers.set("User-Agent", "from-plugin/2")
        }
    }

    @Test func theDefaultNamesGatewireAndLibcurl() async throws {
        let server = try TestServer()
        let client = try Client(baseURL: server.baseURL)
        #expect(Self.expected.hasPrefix("gatewire/0.") && Self.expected.contains(" libcurl/7."))
        // Twice: the second GET reuses the handle without setting it up in full.
        for request in [Request.get("/headers"), Request.get("/headers"), Request.post("/headers", body: .json(.string("x")))] {
            let fields = try AcceptEncodingTests.seen(try await client.send(request))
            #expect(fields["user-agent"] == Self.expected, "\(request.method)")
        }
    }

    @Test func aCallersUserAgentWins() async throws {
        let server = try TestServer()
        let client = try Client(baseURL: server.baseURL)
        let response = try await client.send(Request(.get, "/headers", headers: ["user-agent": "caller/1"]))
        #expect(try AcceptEncodingTests.seen(response)["user-agent"] == "caller/1")
        // The next request on the same handle has the default again.
        #expect(try AcceptEncodingTests.seen(try await client.send(.get("/headers")))["user-agent"] == Self.expected)
    }

    @Test func theConfigsHeadersAndAPluginWin() async throws {
        let server = try TestServer()
        let config = try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "headers": {"User-Agent": "from-config/3"}}"#)
        let fromConfig = try await Client(config: config).send(.get("/headers"))
        #expect(try AcceptEncodingTests.seen(fromConfig)["user-agent"] == "from-config/3")
        let fromPlugin = try await Client(baseURL: server.baseURL, plugins: [SetsUserAgent()]).send(.get("/headers"))
        #expect(try AcceptEncodingTests.seen(fromPlugin)["user-agent"] == "from-plugin/2")
    }
}
