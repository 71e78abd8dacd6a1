@testable import Gatewire
import Glibc
import Testing

/// Header injection (RFC 9110 section 5.1: names are tokens; section 5.5: no CR, LF or NUL in
/// values) is refused at every boundary, end to end against the scripted test server: the
/// server never receives an `injected` header, and nothing is sent at all.
@Suite(.serialized) struct HeaderInjectionTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    func key(_ name: String) -> String { "\(name)-\(getpid())-\(Int(MonotonicNow.seconds * 1e6))" }

    /// How many requests the server saw for a fault key.
    func count(_ key: String) async throws -> Int64 {
        let response = try await Client(baseURL: server.baseURL).send(.get("/fault/\(key)/count"))
        return try #require(JSONValue.parse(response.http.text).node["count"]?.integer)
    }

    @Test func theRuleFollowsRFC9110() {
        #expect(HTTPHeaders.fieldProblem(name: "X-Ok_1!#$%&'*+-.^`|~", value: "any text, even \"quoted\" \t") == nil)
        #expect(HTTPHeaders.fieldProblem(name: "X-Empty", value: "") == nil)
        #expect(HTTPHeaders.fieldProblem(name: "X", value: "a\r\nInjected: 1")
            == "header \"X\": the value contains CR at byte 1 (RFC 9110 section 5.5: no control character but HTAB is allowed in a field value)")
        #expect(HTTPHeaders.valueProblem("a\nb")?.hasPrefix("the value contains LF at byte 1") == true)
        #expect(HTTPHeaders.valueProblem("a\0b")?.hasPrefix("the value contains NUL at byte 1") == true)
        #expect(HTTPHeaders.nameProblem("Bad Name")?.hasPrefix("the header name contains a space at byte 3") == true)
        #expect(HTTPHeaders.nameProblem("X:Y")?.hasPrefix("the header name contains \":\" at byte 1") == true)
        #expect(HTTPHeaders.nameProblem("")?.hasPrefix("the header name is empty") == true)
        #expect(HTTPHeaders.nameProblem("Ünicode")?.hasPrefix("the header name contains the byte 0xC3 at byte 0") == true)
        #expect(HTTPHeaders.fieldProblem(name: "X\r\nY", value: "")?.hasPrefix(#"header "X\r\nY": the header name contains CR"#) == true)
        // Every control character but HTAB (RFC 9110 section 5.5); obs-text (UTF-8) passes.
        #expect(HTTPHeaders.valueProblem("a\u{01}b")?.hasPrefix("the value contains the byte 0x1 at byte 1") == true)
        #expect(HTTPHeaders.valueProblem("a\u{0B}b")?.hasPrefix("the value contains the byte 0xB at byte 1") == true)
        #expect(HTTPHeaders.valueProblem("ab\u{7F}")?.hasPrefix("the value contains DEL at byte 2") == true)
        #expect(HTTPHeaders.valueProblem("a\tb ü") == nil)
        // The framing and connection fields are libcurl's, in any case.
        for name in ["Content-Length", "transfer-encoding", "Connection", "Keep-Alive", "Proxy-Connection", "TE",
                     "Upgrade", "Trailer"] {
            #expect(HTTPHeaders.nameProblem(name)?.hasPrefix("the header frames the message or manages the connection") == true,
                    "\(name)")
        }
        #expect(HTTPHeaders.nameProblem("Host") == nil)
        #expect(HTTPHeaders.nameProblem("Content-Type") == nil)
        let headers: HTTPHeaders = ["A": "1", "B": "2\n"]
        #expect(headers.problem?.hasPrefix("header \"B\": the value contains LF") == true)
    }

    /// Each field is checked once, as it enters ``HTTPHeaders``; the verdict it keeps is the
    /// first bad field in order, through every change, copy and merge.
    @Test func theHeadersKeepTheVerdictOfTheirFirstBadField() {
        var headers: HTTPHeaders = ["A": "1"]
        #expect(headers.problem == nil)
        headers.add("B", "x\ny")
        #expect(headers.problem?.hasPrefix("header \"B\": the value contains LF at byte 1") == true)
        headers.set("C", "bad\r")  // a second bad field: the first is still the one reported
        #expect(headers.problem?.hasPrefix("header \"B\"") == true)
        headers.set("b", "fine")  // B replaced: C is now the first bad field
        #expect(headers.problem?.hasPrefix("header \"C\": the value contains CR at byte 3") == true)
        let copy = headers
        headers.remove("c")
        #expect(headers.problem == nil)
        #expect(copy.problem?.hasPrefix("header \"C\"") == true)
        var ordered: HTTPHeaders = ["A": "1", "B": "\u{7F}"]
        ordered.set("a", "\0")  // replaces A in its place, before B
        #expect(ordered.problem?.hasPrefix("header \"a\": the value contains NUL at byte 0") == true)
        var merged: HTTPHeaders = ["X": "1"]
        merged.merge(headers)
        #expect(merged.problem == nil)
        #expect(merged.fields.map(\.name) == ["X", "A", "b"])
        merged.merge(["Bad Name": "v", "Y": "2"])
        #expect(merged.problem?.hasPrefix("header \"Bad Name\": the header name contains a space at byte 3") == true)
        merged.merge(copy)  // adds C after Bad Name
        #expect(merged.problem?.hasPrefix("header \"Bad Name\"") == true)
        merged.remove("bad name")
        #expect(merged.problem?.hasPrefix("header \"C\"") == true)
        #expect(HTTPHeaders([.init(name: "Keep-Alive", value: "5")]).problem?.contains("manages the connection") == true)
    }

    /// Received headers are libcurl's bytes until changed: their verdict is worked out when
    /// read, and kept from the first change on.
    @Test func receivedHeadersAreCheckedWhenReadAndKeptOnceChanged() async throws {
        let response = try await Client(baseURL: server.baseURL).send(.get("/raw-headers"))
        var headers = response.http.headers
        // A server sends its own framing fields, which a request may never carry.
        #expect(headers.problem?.hasPrefix("header \"Content-Length\": the header frames the message") == true)
        headers.set("X-Added", "1")
        #expect(headers.problem?.hasPrefix("header \"Content-Length\"") == true)
        headers.remove("content-length")
        #expect(headers.problem == nil)
        #expect(headers["X-Added"] == "1")
    }

    @Test func configHeadersAndPluginSettingsAreConfigErrors() {
        let base = #""baseURL": "http://127.0.0.1:1""#
        let cases: [(String, String, String)] = [
            (#"{\#(base), "headers": {"X": "a\r\nInjected: 1"}}"#, "headers.X", "the value contains CR at byte 1"),
            (#"{\#(base), "headers": {"Bad Name": "x"}}"#, "headers.Bad Name", "the header name contains a space"),
            (#"{\#(base), "headers": {"Content-Length": "1000"}}"#, "headers.Content-Length", "RFC 9112 section 6.2"),
            (#"{\#(base), "headers": {"X": "a\u000bb"}}"#, "headers.X", "the value contains the byte 0xB"),
            (#"{\#(base), "plugins": [{"name": "headers", "headers": {"Connection": "close"}}]}"#,
             "plugins[0].headers.Connection", "manages the connection"),
            (#"{\#(base), "plugins": [{"name": "apiKey", "header": "Upgrade", "value": "k"}]}"#, "plugins[0].header",
             "manages the connection"),
            (#"{\#(base), "auth": {"type": "bearer", "token": "t\nInjected: 1"}}"#, "auth.token", "the value contains LF"),
            (#"{\#(base), "auth": {"type": "basic", "username": "a:b", "password": "p"}}"#, "auth.username", "RFC 7617"),
            (#"{\#(base), "auth": {"type": "basic", "username": "a", "password": "p\r\n"}}"#, "auth.password", "control character"),
            (#"{\#(base), "plugins": [{"name": "headers", "headers": {"X": "v\nInjected: 1"}}]}"#,
             "plugins[0].headers.X", "the value contains LF"),
            (#"{\#(base), "plugins": [{"name": "bearer", "token": "t\r\n"}]}"#, "plugins[0].token", "CR"),
            (#"{\#(base), "plugins": [{"name": "basic", "username": "u\n", "password": ""}]}"#, "plugins[0].username", "control"),
            (#"{\#(base), "plugins": [{"name": "apiKey", "header": "X-Key", "value": "k\r\nInjected: 1"}]}"#,
             "plugins[0].value", "CR"),
            (#"{\#(base), "plugins": [{"name": "apiKey", "header": "X Key", "value": "k"}]}"#, "plugins[0].header", "a space"),
            (#"{\#(base), "plugins": [{"name": "requestId", "header": "Request Id"}]}"#, "plugins[0].header", "a space"),
        ]
        for (json, path, message) in cases {
            let error = configError(json)
            #expect(error?.path == path, "\(json)")
            #expect(error?.message.contains(message) == true, "\(String(describing: error))")
        }
        // A query API key is percent-encoded, so its value may hold anything.
        #expect(configError(#"{\#(base), "plugins": [{"name": "apiKey", "query": "k", "value": "a\nb"}]}"#) == nil)
    }

    @Test func callHeadersAreRefusedAndNothingIsSent() async throws {
        let client = try Client(baseURL: server.baseURL)
        let probe = key("call-headers")
        let cases: [HTTPHeaders] = [["X": "a\r\nInjected: 1"], ["Bad Name": "x"], ["X": "a\0b"]]
        for headers in cases {
            let error = await #expect(throws: GatewireError.self) {
                try await client.send(Request(.get, "/fault/\(probe)/200", headers: headers))
            }
            #expect(error?.kind == .invalidArgument)
            #expect(error?.message.hasPrefix("header \"\(headers.fields[0].name)\": ") == true, "\(String(describing: error))")
            #expect(error?.attempts.isEmpty == true)
        }
        // Default headers set in code and a body's content type are checked the same way.
        var config = try GatewayConfig(baseURL: server.baseURL)
        config.headers.add("X-Default", "v\nInjected: 1")
        let defaults = await #expect(throws: GatewireError.self) {
            try await Client(config: config).send(.get("/fault/\(probe)/200"))
        }
        #expect(defaults?.message.hasPrefix("header \"X-Default\"") == true)
        let typed = await #expect(throws: GatewireError.self) {
            try await client.send(Request(.post, "/fault/\(probe)/200", body: .bytes([1], contentType: "a/b\r\nInjected: 1")))
        }
        #expect(typed?.message.hasPrefix("header \"Content-Type\"") == true)
        #expect(try await count(probe) == 0)
        // A valid header still reaches the server.
        let echoed = try await client.send(Request(.get, "/echo", headers: ["X-Fine": "a: b; c"]))
        #expect(try JSONValue.parse(echoed.http.text).node["headers"]?["x-fine"]?.string == "a: b; c")
    }

    struct Evil: Plugin {
        let name = "Evil"
        func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
            request.headers.set("X-Evil", "v\r\nInjected: yes")
        }
    }

    struct Framing: Plugin {
        let name = "Framing"
        func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
            request.headers.set("Transfer-Encoding", "chunked")
        }
    }

    @Test func aPluginsFramingHeaderFailsTheCall() async throws {
        let probe = key("plugin-framing")
        let client = try Client(config: try GatewayConfig(baseURL: server.baseURL), plugins: [Framing()])
        let error = await #expect(throws: GatewireError.self) {
            try await client.send(Request(.post, "/fault/\(probe)/200", body: .json(try JSONValue.parse(#"{"id": 1}"#))))
        }
        #expect(error?.kind == .plugin)
        #expect(error?.message.hasPrefix("plugin Framing set an invalid header \"Transfer-Encoding\": the header frames") == true,
                "\(String(describing: error))")
        #expect(try await count(probe) == 0)
    }

    @Test func aPluginsInvalidHeaderFailsTheCallNamingThePlugin() async throws {
        let probe = key("plugin-header")
        let client = try Client(config: try GatewayConfig(baseURL: server.baseURL), plugins: [Evil()])
        let error = await #expect(throws: GatewireError.self) { try await client.send(.get("/fault/\(probe)/200")) }
        #expect(error?.kind == .plugin)
        #expect(error?.message.hasPrefix("plugin Evil set an invalid header \"X-Evil\": the value contains CR") == true,
                "\(String(describing: error))")
        // A refreshed token with a line break never goes out either.
        let credential = RefreshingCredential(token: "t\r\nInjected: 1") { _, done in done(nil) }
        let signed = try Client(config: try GatewayConfig(baseURL: server.baseURL), plugins: [credential])
        let refused = await #expect(throws: GatewireError.self) { try await signed.send(.get("/fault/\(probe)/200")) }
        #expect(refused?.kind == .plugin)
        #expect(refused?.message.contains("header \"Authorization\"") == true)
        #expect(try await count(probe) == 0)
    }

    struct Fine: Plugin {
        let name = "Fine"
        func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
            request.headers.set("X-Fine", "ok")
        }
    }

    /// Each plugin's fields are checked as it sets them, so the verdict after each plugin
    /// names the one that set the bad field, wherever it runs; a later plugin cannot hide it.
    @Test func aBadHeaderIsTheFailureOfThePluginThatSetIt() async throws {
        let probe = key("plugin-order")
        struct Hider: Plugin {
            let name = "Hider"
            func prepare(_ request: inout HTTPRequest, context: PluginContext) throws { request.headers.remove("X-Evil") }
        }
        for (plugins, culprit) in [([Fine(), Evil(), Hider()] as [any Plugin], "Evil"), ([Evil(), Fine()], "Evil"),
                                   ([Fine(), Framing()], "Framing")] {
            let client = try Client(config: GatewayConfig(baseURL: server.baseURL), plugins: plugins)
            let error = await #expect(throws: GatewireError.self) {
                try await client.send(Request(.post, "/fault/\(probe)/200", body: .json(.object())))
            }
            #expect(error?.kind == .plugin)
            #expect(error?.message.hasPrefix("plugin \(culprit) set an invalid header") == true, "\(String(describing: error))")
        }
        #expect(try await count(probe) == 0)
    }

    @Test func theTransferIsTheLastGuard() async throws {
        // Past every boundary check (a request built by hand): libcurl's list is never made.
        let probe = key("transfer")
        let loop = EventLoop()
        defer { loop.shutdown() }
        let request = HTTPRequest(method: .get, url: server.baseURL + "/fault/\(probe)/200",
                                  headers: ["X": "a\r\nInjected: 1"])
        let outcome = Waiter<TransferResult>()
        let transfer = Transfer(request: request, options: TransferOptions()) { outcome.put($0) }
        _ = loop.execute { loop.start(transfer) }
        let result = outcome.wait()
        #expect(result.response == nil)
        #expect(result.error?.kind == .invalidArgument)
        #expect(result.error?.message.hasPrefix("header \"X\": the value contains CR") == true)
        #expect(try await count(probe) == 0)
    }
}
