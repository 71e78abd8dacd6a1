import Gatewire
import Testing

/// Redirects through the client against the test server and its twins (127.0.0.2 on the same
/// port: another host; a plain-HTTP second port: another port, and the http side of an https
/// server). What reached the other origin is read from its own /echo answer.
@Suite(.serialized) struct RedirectTests {
    static let secrets = ["K-SECRET", "T-SECRET", "C-SECRET", "P-SECRET", "S-SECRET", "Q-SECRET"]

    /// A plugin that signs with a header it declares secret (as an auth plugin does).
    struct Signer: Plugin {
        var secretNames: (headers: [String], queryParameters: [String]) { (["X-Signature"], []) }
        func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
            request.headers.set("X-Signature", "S-SECRET")
        }
    }

    func client(_ server: TestServer, _ extra: String = "", base: String? = nil) throws -> Client {
        let config = try GatewayConfig(json: #"""
            {"baseURL": "\#(base ?? server.baseURL)", "verifyTLS": false, "retry": {"maxRetries": 0},
             "auth": {"type": "bearer", "token": "T-SECRET"},
             "headers": {"Cookie": "session=C-SECRET", "Proxy-Authorization": "Basic P-SECRET", "Accept": "application/json"},
             "plugins": [{"name": "apiKey", "header": "X-Api-Key", "value": "K-SECRET"}]\#(extra)}
            """#)
        return try Client(config: config, plugins: [Signer()])
    }

    /// `/redirect-to` answering `status` with `Location: target` (percent-encoded here).
    func redirect(_ target: String, status: Int = 302) -> String {
        "/redirect-to?status=\(status)&url=" + Router.percentEncoded(target)
    }

    @Test(arguments: ["@host2", "@port2"])
    func anotherOriginGetsNoCredentialNorSecretParameter(origin: String) async throws {
        let server = try TestServer()
        let response = try await client(server).send(.get(redirect("\(origin)/echo/x?access_token=Q-SECRET&q=1")))
        let echo = response.http.text
        #expect(response.status == 200)
        for secret in Self.secrets { #expect(!echo.contains(secret), "\(secret) reached \(origin)") }
        let body = try #require(response.body?.node)
        #expect(body["headers"]?["accept"]?.string == "application/json")  // other headers still go
        #expect(body["query"]?["q"]?.string == "1")
        #expect(body["query"]?["access_token"] == nil)
        let host = try #require(body["headers"]?["host"]?.string)
        if origin == "@host2" {
            #expect(host == "127.0.0.2:\(server.port)")
        } else {
            #expect(host.hasPrefix("127.0.0.1:") && host != "127.0.0.1:\(server.port)")
        }
        let hop = try #require(response.attempts.first?.redirects.first)
        #expect(response.attempts.count == 1 && response.attempts[0].redirects.count == 1)
        #expect(hop.status == 302)
        #expect(hop.url == "http://\(host)/echo/x?q=1")
    }

    @Test func theSameOriginKeepsTheCredentials() async throws {
        let server = try TestServer()
        let response = try await client(server).send(.get(redirect("/echo/x?access_token=Q-SECRET")))
        let echo = response.http.text
        for secret in Self.secrets { #expect(echo.contains(secret), "\(secret) was dropped on the same origin") }
        // The hop's URL is redacted in the record.
        #expect(response.attempts[0].redirects == [RedirectHop(status: 302, url: server.baseURL + "/echo/x?access_token=<redacted>")])
    }

    @Test func aBodyIsNotResentToAnotherOriginButIsOnTheSameOne() async throws {
        let server = try TestServer()
        let gateway = try client(server)
        let body = Request.Body.json(try JSONValue.parse(#"{"a": 1}"#))
        let key = "redirect-body-\(server.port)"
        let refused = await #expect(throws: GatewireError.self) {
            try await gateway.send(Request(.post, redirect("@host2/fault/\(key)/200", status: 307), body: body))
        }
        #expect(refused?.kind == .redirect)
        #expect(refused?.status == 307)
        #expect(refused?.message == "redirect not followed: 307 to http://127.0.0.2:\(server.port)/fault/\(key)/200: a 307 "
            + "would re-send the POST body to another origin (http://127.0.0.2:\(server.port)) (redirects.allowCrossOriginBody is false)")
        #expect(refused?.attempts.count == 1 && refused?.attempts[0].status == 307)
        let count = try await Client(baseURL: server.baseURL).send(.get("/fault/\(key)/count"))
        #expect(count.body?.node["count"]?.integer == 0)  // nothing reached the other origin

        for status in [307, 308] {
            let same = try await gateway.send(Request(.post, redirect("/echo/kept", status: status), body: body))
            #expect(same.body?.node["method"]?.string == "POST")
            #expect(same.body?.node["body"]?.serialized() == #"{"a":1}"#)
            #expect(same.body?.node["path"]?.string == "/echo/kept")
        }
    }

    @Test(arguments: [(301, HTTPMethod.post, "GET", false), (302, .post, "GET", false), (303, .post, "GET", false),
                      (303, .put, "GET", false), (302, .put, "PUT", true), (301, .delete, "DELETE", false)])
    func methodsAreRewrittenAsRFC9110Says(status: Int, method: HTTPMethod, sent: String, keepsBody: Bool) async throws {
        let server = try TestServer()
        let body: Request.Body? = method == .delete ? nil : .json(try JSONValue.parse(#"{"a": 1}"#))
        let response = try await client(server).send(Request(method, redirect("/echo/next", status: status), body: body))
        let echo = try #require(response.body?.node)
        #expect(echo["method"]?.string == sent)
        #expect((echo["body"]?.isNull == false) == keepsBody)
        #expect((echo["headers"]?["content-type"] != nil) == keepsBody)
    }

    @Test func httpsToHttpIsRefusedUnlessAllowed() async throws {
        let server = try TestServer(arguments: ["--tls-self-signed"])
        let base = "https://127.0.0.1:\(server.port)"
        let key = "redirect-downgrade-\(server.port)"
        let error = await #expect(throws: GatewireError.self) {
            try await client(server, base: base).send(.get(redirect("@port2/fault/\(key)/200", status: 301)))
        }
        #expect(error?.kind == .redirect)
        #expect(error?.status == 301)
        #expect(error?.message.hasSuffix("it would downgrade https to http (redirects.allowDowngrade is false)") == true)
        let allowed = try await client(server, #", "redirects": {"allowDowngrade": true}"#, base: base)
            .send(.get(redirect("@port2/echo/plain", status: 301)))
        #expect(allowed.status == 200)
        for secret in Self.secrets { #expect(!allowed.http.text.contains(secret)) }
        #expect(allowed.attempts[0].redirects.first?.url.hasPrefix("http://127.0.0.1:") == true)
        let plain = try Client(config: try GatewayConfig(json: #"{"baseURL": "\#(base)", "verifyTLS": false}"#))
        let count = try await plain.send(.get("/fault/\(key)/count"))
        #expect(count.body?.node["count"]?.integer == 0)
    }

    @Test func hopsAreCountedAndTheFinalURLIsInTheMetadata() async throws {
        let server = try TestServer()
        let descriptors = #"""
            , "mappings": {"Echo": {"attributes": {"path": "path", "@metadata.url": "url"}}},
            "responseDescriptors": [{"mapping": "Echo", "pathPattern": "/redirect/:n"}]
            """#
        let response = try await client(server, descriptors).send(.get("/redirect/3?api_key=Q-SECRET"))
        #expect(response.attempts[0].redirects.map(\.status) == [302, 302, 302])
        #expect(response.attempts[0].redirects.map(\.url) == ["/redirect/2", "/redirect/1", "/redirect/0"].map { server.baseURL + $0 })
        #expect(response.metadata?.node["url"]?.string == server.baseURL + "/redirect/0")
        #expect(response.mapped?.node[""]?["path"]?.string == "/redirect/0")
        #expect(response.attempts[0].json.node["redirects"]?.serialized()
            == #"[{"status":302,"url":"\#(server.baseURL)/redirect/2"},{"status":302,"url":"\#(server.baseURL)/redirect/1"},"#
            + #"{"status":302,"url":"\#(server.baseURL)/redirect/0"}]"#)

        let limited = try client(server, #", "redirects": {"max": 2}"#)
        let error = await #expect(throws: GatewireError.self) { try await limited.send(.get("/redirect/3")) }
        #expect(error?.kind == .redirect)
        #expect(error?.message == "redirect not followed: 302 to \(server.baseURL)/redirect/0: more than 2 redirects (redirects.max)")
        #expect(error?.attempts.first?.redirects.count == 2)
    }

    @Test func aRefreshingCredentialIsNotAskedAboutA401FromAnotherOrigin() async throws {
        let server = try TestServer()
        let credential = RefreshingCredential(token: "R-SECRET") { _ in "R-NEW" }
        let gateway = try Client(config: try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "retry": {"maxRetries": 0}}"#),
                             plugins: [credential])
        let error = await #expect(throws: GatewireError.self) { try await gateway.send(.get(redirect("@host2/auth/other"))) }
        #expect(error?.kind == .httpStatus && error?.status == 401)
        #expect(error?.attempts.count == 1 && error?.attempts[0].redirects.count == 1)
        #expect(credential.refreshCount == 0)  // its token never went there
        // The same 401 on the call's own origin is the credential's: one refresh and a replay.
        let own = await #expect(throws: GatewireError.self) { try await gateway.send(.get(redirect("/auth/own"))) }
        #expect(own?.status == 401 && own?.attempts.count == 2)
        #expect(credential.refreshCount == 1)
    }

    @Test func followNoneMakesTheRedirectTheResponse() async throws {
        let server = try TestServer()
        var options = CallOptions()
        options.redirectPolicy = RedirectPolicy(follow: .none)
        let error = await #expect(throws: GatewireError.self) {
            try await client(server).send(Request(.get, redirect("/echo/x"), options: options))
        }
        #expect(error?.kind == .redirect)
        #expect(error?.status == 302)
        #expect(error?.response?.headers["Location"] == "/echo/x")
        #expect(error?.attempts.first?.redirects.isEmpty == true)
        // A response descriptor that lists the redirect's status accepts it.
        let accepting = try client(server, #"""
            , "redirects": false, "mappings": {"Hop": {"attributes": {"location": "location"}}},
            "responseDescriptors": [{"mapping": "Hop", "pathPattern": "/redirect-to", "statusCodes": [302]}]
            """#)
        let response = try await accepting.send(.get(redirect("/echo/x")))
        #expect(response.status == 302)
        #expect(response.mapped?.node[""]?["location"]?.string == "/echo/x")
    }
}
