import Gatewire
import Testing

/// Transport behaviour through the client: TLS verification, connection reuse, HEAD.
@Suite(.serialized) struct TransportTests {
    @Test func tlsVerificationIsOnByDefault() async throws {
        let server = try TestServer(arguments: ["--tls-self-signed"])
        let url = "https://127.0.0.1:\(server.port)"
        let verifying = try Client(config: try GatewayConfig(json: #"{"baseURL": "\#(url)", "retry": {"maxRetries": 0}}"#))
        let error = await #expect(throws: GatewireError.self) { try await verifying.send(.get("/echo")) }
        #expect(error?.kind == .tls)
        #expect(error?.status == 0)

        let trusting = try Client(config: try GatewayConfig(json: #"{"baseURL": "\#(url)", "verifyTLS": false}"#))
        let response = try await trusting.send(.get("/echo"))
        #expect(response.status == 200)
        #expect(response.attempts[0].timings.tls > 0)
        let again = try await trusting.send(.get("/echo"))
        #expect(again.attempts[0].timings.tls == 0 && again.attempts[0].timings.dns == 0)  // the connection reused
    }

    @Test func connectionsAreReused() async throws {
        let server = try TestServer()
        let client = try Client(baseURL: server.baseURL)
        let first = try await client.send(.get("/echo"))
        let second = try await client.send(.get("/echo"))
        #expect(first.attempts[0].timings.connect > 0 && first.attempts[0].timings.dns > 0)
        // No phase before sending on a reused connection (libcurl 7.88 stamps the name lookup).
        #expect(second.attempts[0].timings.connect == 0)
        #expect(second.attempts[0].timings.dns == 0)
        #expect(second.attempts[0].timings.firstByte > 0)
        #expect(second.http.httpVersion == "1.1")
    }

    @Test func headHasNoBodyAndIsNotParsed() async throws {
        let server = try TestServer()
        let client = try Client(baseURL: server.baseURL)
        let response = try await client.send(Request(.head, "/fixture/stripe-charge.json"))
        #expect(response.status == 200)
        #expect(response.http.body.isEmpty)
        #expect(response.mapped == nil)
    }
}
