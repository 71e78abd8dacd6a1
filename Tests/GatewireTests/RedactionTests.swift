@testable import Gatewire
import Glibc
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
        let client = try Client(config: try GatewayConfig(baseURL: server.baseURL), plugins: plugins)
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

    /// Secrets planted everywhere a caller can put one: the base URL's userinfo, a bearer
    /// token, the `apiKey` plugin (header and query), configured names, call headers and
    /// query parameters.
    static let secrets = ["BASEPASS_S1", "BEARER_S2", "APIKEY_S3", "APIQ_S4", "QTOKEN_S5", "QKEY_S6", "QSIG_S7",
                          "CALLKEY_S8", "SIGH_S9", "CLIENTSECRET_S10"]

    static func plantedConfig(port: Int) -> String {
        #"""
        {"baseURL": "http://gwuser:BASEPASS_S1@127.0.0.1:\#(port)",
         "auth": {"type": "bearer", "token": "BEARER_S2"},
         "redactHeaders": ["X-Signature"], "redactQuery": ["sig"],
         "plugins": [{"name": "apiKey", "header": "X-Custom-Key", "value": "APIKEY_S3"},
                     {"name": "apiKey", "query": "q_auth", "value": "APIQ_S4"}],
         "mappings": {"Fault": {"attributes": {"@metadata.url": "url", "@metadata.query.access_token": "token",
                                               "@metadata.query.sig": "sig", "@metadata.query.page": "page",
                                               "attempt": "attempt"}}},
         "responseDescriptors": [{"mapping": "Fault", "pathPattern": "/fault/:key/:step"}]}
        """#
    }

    static let plantedParameters: [String: String] = ["access_token": "QTOKEN_S5", "api_key": "QKEY_S6",
                                                      "sig": "QSIG_S7", "client_secret": "CLIENTSECRET_S10",
                                                      "page": "2"]
    static let plantedHeaders: HTTPHeaders = ["X-Api-Key": "CALLKEY_S8", "X-Signature": "SIGH_S9"]

    @Test func noOutputCarriesAPlantedSecret() async throws {
        let server = try TestServer()
        let lines = Lock<[String]>([])
        let logger = LoggingPlugin(logHeaders: true) { line in lines.withLock { $0.append(line) } }
        let client = try Client(config: try GatewayConfig(json: Self.plantedConfig(port: server.port)), plugins: [logger])
        defer { client.close() }
        let events = Lock<[String]>([])
        _ = client.addEventMonitor { event in events.withLock { $0.append(event.serializedJSON()) } }
        let observed = Lock<[String]>([])
        client.addFailureObserver { error in observed.withLock { $0.append("\(error) \(error.path) \(error.json.serialized())") } }

        // Every secret goes on the wire...
        let echo = try await client.send(Request(.get, "/echo", parameters: Self.plantedParameters, headers: Self.plantedHeaders))
        let wire = echo.http.text
        for secret in Self.secrets where secret != "BASEPASS_S1" { #expect(wire.contains(secret), "\(secret) was not sent") }
        #expect(wire.contains("Bearer BEARER_S2"))

        let key = "planted-\(getpid())"
        let success = try await client.send(Request(.get, "/fault/\(key)/200", parameters: Self.plantedParameters,
                                                    headers: Self.plantedHeaders))
        let failure = await #expect(throws: GatewireError.self) {
            try await client.send(Request(.get, "/status/404", parameters: Self.plantedParameters, headers: Self.plantedHeaders))
        }
        let mapped = try #require(success.mapped?.serialized())
        // ...and none comes out: the result, its metadata and mapped objects, attempts, the
        // error, the observer, events and log lines.
        var outputs = [echo.path, echo.attempts.serializedJSON(), success.path, mapped,
                       success.metadata?.serialized() ?? "", success.attempts.serializedJSON()]
        outputs += [failure.map { "\($0)" } ?? "", failure?.json.serialized() ?? "", failure?.path ?? "",
                    failure?.attempts.serializedJSON() ?? ""]
        outputs += observed.withLock { $0 } + events.withLock { $0 } + lines.withLock { $0 }
        let text = outputs.joined(separator: "\n")
        for secret in Self.secrets { #expect(!text.contains(secret), "\(secret) leaked:\n\(text)") }
        #expect(!text.contains("gwuser"), "the userinfo leaked")
        // What is shown is still useful: names, the other parameters, the URL without userinfo.
        #expect(success.path.hasPrefix("/fault/\(key)/200?"))
        #expect(success.path.contains("access_token=<redacted>") && success.path.contains("page=2"))
        let object = try #require(success.mapped?.node[""])
        #expect(object["url"]?.string?.hasPrefix("http://127.0.0.1:\(server.port)/fault/\(key)/200?") == true)
        #expect(object["token"]?.string == "<redacted>" && object["sig"]?.string == "<redacted>")
        #expect(object["page"]?.string == "2")
        #expect(text.contains("X-Api-Key: <redacted>") && text.contains("X-Signature: <redacted>"))
        #expect(text.contains("X-Custom-Key: <redacted>") && text.contains("q_auth=<redacted>"))
        #expect(events.withLock { $0.contains { $0.contains("/status/404?") && $0.contains("call_finished") } })
    }

    @Test func theRuleRemovesUserinfoAndMasksValues() {
        let redactor = Redactor(headers: ["X-Sig"], queryParameters: ["Sig"])
        #expect(redactor.url("https://ann:pw@example.com:8443/a?b=1&%61pi_key=k&SIG=s&signature=t#f")
            == "https://example.com:8443/a?b=1&%61pi_key=<redacted>&SIG=<redacted>&signature=<redacted>#f")
        #expect(redactor.url("http://token@host/x") == "http://host/x")
        #expect(redactor.url("/users/a@b") == "/users/a@b")  // no scheme: an @ in a path is not userinfo
        #expect(redactor.url("http://host/a@b?x=1") == "http://host/a@b?x=1")
        #expect(redactor.header("x-sig", "v") == "x-sig: <redacted>")
        #expect(redactor.header("X-Api-Key", "v") == "X-Api-Key: <redacted>")
        #expect(redactor.header("Accept", "v") == "Accept: v")
    }

    @Test func aBaseURLErrorHidesItsPassword() {
        let error = configError(#"{"baseURL": "ftp://ann:PW_S11@host/"}"#)
        #expect(error?.message.contains("PW_S11") == false, "\(String(describing: error))")
        #expect(error?.message.contains("ftp://host/") == true)
    }
}
