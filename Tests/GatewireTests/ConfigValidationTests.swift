import Gatewire
import Glibc
import Testing

/// Config mistakes `gatewire check` used to let through: empty or repeated path parameters,
/// a retry maxDelay below its initialDelay (a warning), and built-in plugins named by a string.
@Suite struct ConfigValidationTests {
    @Test func emptyAndRepeatedPathParametersAreErrorsNamingTheField() {
        let base = #""baseURL": "http://127.0.0.1:1""#
        let empty = configError(#"{\#(base), "routes": {"r": {"method": "GET", "pathPattern": "/x/:"}}}"#)
        #expect(empty?.path == "routes.r.pathPattern")
        #expect(empty?.message == #"a parameter name is empty after ":" in "/x/:" (names are letters, digits and _; write \: for a literal colon)"#)
        let twice = configError(#"{\#(base), "routes": {"r": {"method": "GET", "pathPattern": "/x/:id/:id"}}}"#)
        #expect(twice?.path == "routes.r.pathPattern")
        #expect(twice?.message == #"parameter ":id" appears twice in "/x/:id/:id""#)
        let inDescriptor = configError(#"""
            {\#(base), "mappings": {"A": {"attributes": {"id": "id"}}},
             "responseDescriptors": [{"mapping": "A", "pathPattern": "/a/:x/b/:x"}]}
            """#)
        #expect(inDescriptor?.path == "responseDescriptors[0].pathPattern")
        #expect(inDescriptor?.message.contains("appears twice") == true)
        #expect(throws: ConfigError.self) { try PathPattern("/x/a:-b") }
        // Still fine: a literal colon, a name followed by literal text, a route's query.
        #expect(PathPattern.parameterProblem(#"/time/10\:30/:id.json"#) == nil)
        #expect(PathPattern.parameterProblem("/search/:q?x=:") == nil)
        #expect(configError(#"{\#(base), "routes": {"r": {"method": "GET", "pathPattern": "/u/:id/posts/:post"}}}"#) == nil)
    }

    @Test func aMaxDelayBelowTheInitialDelayIsAWarningNamingBothFields() throws {
        let config = try GatewayConfig(json: #"""
            {"baseURL": "http://127.0.0.1:1", "retry": {"maxDelay": 0.1, "initialDelay": 5},
             "routes": {"fine": {"method": "GET", "pathPattern": "/a", "retry": {"maxDelay": 10}},
                        "slow": {"method": "GET", "pathPattern": "/b", "retry": {"initialDelay": 60}}}}
            """#)
        #expect(config.warnings == [
            "retry.maxDelay (0.1 s) is less than retry.initialDelay (5 s): every retry delay is capped at 0.1 s",
            "retry.maxDelay (0.1 s) is less than routes.slow.retry.initialDelay (60 s): every retry delay is capped at 0.1 s",
        ])
        let routeOnly = try GatewayConfig(json: #"""
            {"baseURL": "http://h", "routes": {"slow": {"method": "GET", "pathPattern": "/b", "retry": {"initialDelay": 60}}}}
            """#)
        #expect(routeOnly.warnings == [
            "the default retry.maxDelay (30 s) is less than routes.slow.retry.initialDelay (60 s): every retry delay is capped at 30 s",
        ])
        #expect(try GatewayConfig(json: #"{"baseURL": "http://h", "retry": {"maxDelay": 5, "initialDelay": 5}}"#).warnings.isEmpty)
    }

    @Test func theCheckCommandPrintsTheRetryWarningAndPasses() throws {
        let (status, output) = try CheckCommandTests().check(
            #"{"baseURL": "http://127.0.0.1:1", "retry": {"maxDelay": 0.1, "initialDelay": 5}}"#)
        #expect(status == 0)
        #expect(output.contains("warning: retry.maxDelay (0.1 s) is less than retry.initialDelay (5 s)"))
        #expect(output.contains("OK"))
    }

    @Test func builtInPluginsMayBeNamedByAString() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let config = try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "plugins": ["requestId", "metrics"]}"#)
        #expect(config.plugins.map(\.name) == ["requestId", "metrics"])
        let response = try await Client(config: config).send(.get("/echo"))
        #expect(try JSONValue.parse(response.http.text).node["headers"]?["x-request-id"]?.string?.hasSuffix("-1") == true)
        // A plugin that needs settings says so; an unknown name is still an error.
        let needs = configError(#"{"baseURL": "http://h", "plugins": ["bearer"]}"#)
        #expect(needs?.path == "plugins[0]")
        #expect(needs?.message.contains("needs settings") == true)
        #expect(configError(#"{"baseURL": "http://h", "plugins": ["nope"]}"#)?.message.hasPrefix("unknown plugin \"nope\"") == true)
        #expect(configError(#"{"baseURL": "http://h", "plugins": [7]}"#)?.path == "plugins[0]")
    }

    @Test func anUnknownRouteSaysWhenTheClientHasNoRoutes() async throws {
        let bare = try Client(baseURL: "http://127.0.0.1:1")
        let error = await #expect(throws: GatewireError.self) { try await bare.send(Request(route: "nope")) }
        #expect(error?.message == #"unknown route "nope" (the client has no routes)"#)
        let routed = try Client(config: try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "routes": {"b": {"method": "GET", "pathPattern": "/b"}, "a": {"method": "GET", "pathPattern": "/a"}}}"#))
        let other = await #expect(throws: GatewireError.self) { try await routed.send(Request(route: "nope")) }
        #expect(other?.message == #"unknown route "nope" (known: a, b)"#)
    }
}
