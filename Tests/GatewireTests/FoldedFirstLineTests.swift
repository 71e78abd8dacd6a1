import Gatewire
import Glibc
import Testing

/// A response whose first header field line starts with spaces (obsolete line folding with
/// nothing to fold onto) on the attempt a refreshing credential replays after a 401, on the
/// same kept-alive connection. The other sequences (after a retryable 503, after a 200, on
/// the first response, on a fresh connection) are shared cases (`wire_folded_first_line_*`
/// in `Tests/cases/resilience_cases.json`).
@Suite(.serialized) struct FoldedFirstLineTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    @Test func aFoldedFirstLineOnTheReplayAfterA401IsAProtocolFailure() async throws {
        let key = "folded-401-\(getpid())-\(Int(MonotonicNow.seconds * 1e6))"
        let credential = RefreshingCredential(token: "stale") { _, done in done("fresh") }
        let config = try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "retry": {"maxRetries": 0}}"#)
        let client = try Client(config: config, plugins: [credential])
        defer { client.close() }
        let path = "/fault/\(key)/401+keep,folded+keep,200"
        do {
            _ = try await client.send(.get(path))
            Issue.record("expected a protocol failure")
        } catch {
            #expect(error.kind == .protocolViolation, "\(error)")
            #expect(error.attempts.map(\.status) == [401, 0])
            #expect(error.attempts.map { $0.errorKind?.name } == [nil, "protocol"])
        }
        // The process is alive and the client works: the next call gets the 200.
        let response = try await client.send(.get(path))
        #expect(response.status == 200)
        let plain = try Client(baseURL: server.baseURL)
        defer { plain.close() }
        let count = try await plain.send(.get("/fault/\(key)/count"))
        #expect(try JSONValue.parse(count.http.text).node["count"]?.integer == 3)
    }

    /// The failure says what the server sent, not libcurl's "A libcurl function was given a
    /// bad argument", for a CRLF and an LF-only response alike.
    @Test(arguments: ["folded", "folded-lf"])
    func aFoldedFirstLineSaysWhatTheServerDid(step: String) async throws {
        let key = "folded-message-\(step)-\(getpid())-\(Int(MonotonicNow.seconds * 1e6))"
        let client = try Client(config: GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "retry": {"maxRetries": 0}}"#))
        defer { client.close() }
        let expected = "the server's response is malformed: its first header field line starts with a space or tab, a "
            + "continuation line (obsolete line folding, RFC 9112 section 5.2) with no field before it to continue, "
            + "which libcurl 7.88 refuses (CURLE_BAD_FUNCTION_ARGUMENT)"
        do {
            _ = try await client.send(.get("/fault/\(key)/\(step)"))
            Issue.record("expected a protocol failure")
        } catch {
            #expect(error.kind == .protocolViolation)
            #expect(error.message == expected, "\(error)")
            #expect(error.attempts.map(\.message) == [expected])
        }
    }
}
