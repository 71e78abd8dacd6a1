import Gatewire
import Glibc
import Testing

/// HTTP/2 as libcurl negotiates it (ALPN over TLS) against a real nginx whose certificate
/// comes from a private CA (`caFile`): the response says which protocol carried it, and many
/// calls in flight on one client all complete with their own bodies (HTTP/2 multiplexes them
/// on shared connections).
@Suite(.serialized) struct HTTP2Tests {
    let server: NginxH2Server

    init() throws { server = try NginxH2Server() }

    /// A client that verifies the server against its own certificate (`caFile`).
    func client() throws -> Client {
        try Client(config: try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "caFile": "\#(server.certificatePath)", "retry": {"maxRetries": 0}}"#))
    }

    @Test func caFileTrustsAPrivateCAWithVerificationOn() async throws {
        let trusting = try client()
        #expect(trusting.config.verifyTLS)
        #expect(try await trusting.send(.get("/protocol")).status == 200)
        let system = try Client(config: try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "retry": {"maxRetries": 0}}"#))
        let error = await #expect(throws: GatewireError.self) { try await system.send(.get("/protocol")) }
        #expect(error?.kind == .tls)
        let missing = #expect(throws: ConfigError.self) {
            try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "caFile": "/nonexistent/ca.pem"}"#)
        }
        #expect(missing?.description == "caFile: cannot read the CA file \"/nonexistent/ca.pem\": No such file or directory")
    }

    /// A relative `caFile` in a config file is relative to that file's directory.
    @Test func aRelativeCAFileIsFoundBesideTheConfigFile() async throws {
        var template = Array("/tmp/gw-cafile-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { _ = system("rm -rf '\(directory)'") }
        let certificate = try #require(fopen(server.certificatePath, "r"))
        var pem: [CChar] = []
        while case let byte = fgetc(certificate), byte != EOF { pem.append(CChar(truncatingIfNeeded: byte)) }
        fclose(certificate)
        try write(pem.map { UInt8(bitPattern: $0) }, to: directory + "/ca.pem")
        let json = #"{"baseURL": "\#(server.baseURL)", "caFile": "ca.pem", "retry": {"maxRetries": 0}}"#
        try write(Array(json.utf8), to: directory + "/gateway.json")
        let config = try GatewayConfig(contentsOfFile: directory + "/gateway.json")
        #expect(config.caFile == directory + "/ca.pem")
        #expect(try await Client(config: config).send(.get("/protocol")).status == 200)
    }

    func write(_ bytes: [UInt8], to path: String) throws {
        let file = try #require(fopen(path, "w"))
        defer { fclose(file) }
        #expect(fwrite(bytes, 1, bytes.count, file) == bytes.count)
    }

    @Test func tlsNegotiatesHTTP2() async throws {
        let client = try client()
        let response = try await client.send(.get("/protocol"))
        #expect(response.status == 200)
        #expect(response.http.httpVersion == "2")
        #expect(try JSONValue.parse(response.http.text).node["protocol"]?.string == "HTTP/2.0")
        #expect(response.attempts[0].timings.tls > 0)
    }

    @Test func manyCallsInFlightOverHTTP2CompleteWithTheirOwnBodies() async throws {
        let client = try client()
        let uris = try await withThrowingTaskGroup(of: (Int, String?, String).self) { group in
            for index in 0..<32 {
                group.addTask {
                    let response = try await client.send(.get("/echo/\(index)"))
                    let body = try JSONValue.parse(response.http.text).node
                    return (index, body["uri"]?.string, response.http.httpVersion)
                }
            }
            var seen: [(Int, String?, String)] = []
            for try await result in group { seen.append(result) }
            return seen
        }
        #expect(uris.count == 32)
        for (index, uri, version) in uris {
            #expect(uri == "/echo/\(index)")
            #expect(version == "2")
        }
    }
}
