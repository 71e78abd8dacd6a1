import Gatewire
import Testing

/// The `bodyErrors` built-in: errors reported in a 2xx body (Slack's `ok: false`, GraphQL's
/// `errors`) become failures of kind `plugin` with mapped error objects, against the scripted
/// test server's `/slack/<error>` and `/echo` (which answers 200 with the request's body under
/// `body`).
@Suite(.serialized) struct BodyErrorsPluginTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    final class Recorder: Sendable {
        private let items = Lock<[GatewireError]>([])
        func add(_ item: GatewireError) { items.withLock { $0.append(item) } }
        var all: [GatewireError] { items.withLock { $0 } }
    }

    func slackClient() throws -> Client {
        try Client(config: GatewayConfig(json: #"""
            {"baseURL": "\#(server.baseURL)", "retry": {"maxRetries": 3, "initialDelay": 0.01, "jitter": "none"},
             "mappings": {"SlackError": {"attributes": {"error": "code"}}},
             "plugins": [{"name": "bodyErrors", "when": {"keyPath": "ok", "equals": false},
                          "errors": {"keyPath": "", "mapping": "SlackError"}}]}
            """#))
    }

    func graphQLClient() throws -> Client {
        try Client(config: GatewayConfig(json: #"""
            {"baseURL": "\#(server.baseURL)",
             "mappings": {"GraphQLError": {"attributes": {"message": "text", "path": "path"}}},
             "plugins": [{"name": "bodyErrors", "when": {"keyPath": "body.errors", "notEquals": []},
                          "errors": {"keyPath": "body.errors", "mapping": "GraphQLError"}}]}
            """#))
    }

    @Test func slackOkFalseFailsOnceWithTheMappedErrorAndIsNotRetried() async throws {
        let client = try slackClient()
        let seen = Recorder()
        client.addFailureObserver { seen.add($0) }
        let error = await #expect(throws: GatewireError.self) { try await client.send(.get("/slack/channel_not_found")) }
        #expect(error?.kind == .plugin)
        #expect(error?.status == 200)
        #expect(error?.message == "bodyErrors: the body of status 200 reports an error (ok equals false)")
        #expect(error?.errorObjects?.serialized() == #"[{"code":"channel_not_found"}]"#)
        #expect(error?.attempts.count == 1)
        #expect(seen.all.count == 1)
        #expect(seen.all.first?.errorObjects?.serialized() == #"[{"code":"channel_not_found"}]"#)
    }

    @Test func slackOkTrueSucceeds() async throws {
        let client = try slackClient()
        let seen = Recorder()
        client.addFailureObserver { seen.add($0) }
        let response = try await client.send(.get("/slack/ok"))
        #expect(response.status == 200)
        #expect(response.http.text == #"{"ok": true}"#)
        #expect(seen.all.isEmpty)
    }

    @Test func graphQLErrorsFailWithEveryErrorMapped() async throws {
        let client = try graphQLClient()
        let seen = Recorder()
        client.addFailureObserver { seen.add($0) }
        let body = try JSONValue.parse(#"{"data": null, "errors": [{"message": "no such field", "path": ["user", "nmae"]}, {"message": "denied"}]}"#)
        let error = await #expect(throws: GatewireError.self) { try await client.send(.post("/echo", body: .json(body))) }
        #expect(error?.kind == .plugin)
        #expect(error?.status == 200)
        #expect(error?.message == "bodyErrors: the body of status 200 reports an error (body.errors does not equal [])")
        #expect(error?.errorObjects?.serialized() == #"[{"text":"no such field","path":["user","nmae"]},{"text":"denied"}]"#)
        #expect(seen.all.map(\.kind) == [.plugin])
    }

    @Test func graphQLWithoutErrorsOrWithAnEmptyListSucceeds() async throws {
        let client = try graphQLClient()
        for text in [#"{"data": {"user": 1}}"#, #"{"data": {"user": 1}, "errors": []}"#, #"{"data": {"user": 1}, "errors": null}"#] {
            let response = try await client.send(.post("/echo", body: .json(try JSONValue.parse(text))))
            #expect(response.status == 200)
            #expect(response.body?.node["body"]?["data"]?["user"]?.integer == 1)
        }
    }

    @Test func aFailureBeforeTheBodyIsLeftAlone() async throws {
        let client = try slackClient()
        let error = await #expect(throws: GatewireError.self) { try await client.send(.get("/status/404")) }
        #expect(error?.kind == .httpStatus)
        #expect(error?.errorObjects == nil)
    }

    /// A Swift program builds the plugin itself (here "ok is not true") with the config's mappings,
    /// and a process hook of its own passes error objects through `Response.failure`.
    @Test func aSwiftClientBuildsThePluginAndItsOwnHooksPassErrorObjects() async throws {
        let config = try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "mappings": {"SlackError": {"attributes": {"error": "code"}}}}"#)
        let plugin = try BodyErrorsPlugin(condition: .init(keyPath: "ok", equals: false, value: .bool(true)),
                                          errorObjects: .init(keyPath: "", mapping: "SlackError"), catalog: config.catalog)
        let client = try Client(config: config, plugins: [plugin])
        let error = await #expect(throws: GatewireError.self) { try await client.send(.get("/slack/not_authed")) }
        #expect(error?.message == "bodyErrors: the body of status 200 reports an error (ok does not equal true)")
        #expect(error?.errorObjects?.serialized() == #"[{"code":"not_authed"}]"#)
        #expect(try await client.send(.get("/slack/ok")).status == 200)

        #expect(throws: ConfigError(path: "bodyErrors.errors.mapping", message: #"unknown mapping "Other" (known: SlackError)"#)) {
            try BodyErrorsPlugin(condition: plugin.condition, errorObjects: .init(keyPath: "", mapping: "Other"), catalog: config.catalog)
        }

        struct Own: Plugin {
            func process(_ result: Result<Response, GatewireError>, context: PluginContext) -> Result<Response, GatewireError> {
                guard case .success(let response) = result, let errors = response.body?.node["body"]?["errors"] else { return result }
                return .failure(response.failure(message: "GraphQL errors", errorObjects: errors.retained()))
            }
        }
        let seen = Recorder()
        let own = try Client(baseURL: server.baseURL, plugins: [Own()])
        own.addFailureObserver { seen.add($0) }
        let body = try JSONValue.parse(#"{"errors": [{"message": "denied"}]}"#)
        let failure = await #expect(throws: GatewireError.self) { try await own.send(.post("/echo", body: .json(body))) }
        #expect(failure?.kind == .plugin)
        #expect(failure?.status == 200)
        #expect(failure?.errorObjects?.serialized() == #"[{"message":"denied"}]"#)
        #expect(seen.all.map { $0.errorObjects?.serialized() } == [#"[{"message":"denied"}]"#])
    }

    func configError(_ plugin: String, mappings: String = "{}") -> ConfigError? {
        let text = #"{"baseURL": "http://127.0.0.1:1", "mappings": \#(mappings), "plugins": [\#(plugin)]}"#
        do {
            _ = try Client(config: GatewayConfig(json: text))
            return nil
        } catch {
            return error
        }
    }

    @Test func badSettingsAreConfigErrorsNamingTheField() {
        #expect(configError(#"{"name": "bodyErrors", "when": {"keyPath": "ok", "equals": false}, "colour": 1}"#)?.path
                == "plugins[0].colour")
        #expect(configError(#"{"name": "bodyErrors", "when": {"keyPath": "ok", "equal": false}}"#)?.path == "plugins[0].when.equal")
        #expect(configError(#"{"name": "bodyErrors"}"#)?.description == "plugins[0].when: is required")
        #expect(configError(#""bodyErrors""#)?.path == "plugins[0]")
        #expect(configError(#"{"name": "bodyErrors", "when": {"keyPath": "ok"}}"#)?.description
                == #"plugins[0].when: a condition needs exactly one of "equals" and "notEquals""#)
        #expect(configError(#"{"name": "bodyErrors", "when": {"keyPath": "ok", "equals": false, "notEquals": true}}"#)?.path
                == "plugins[0].when")
        #expect(configError(#"{"name": "bodyErrors", "when": {"keyPath": "ok", "equals": null}}"#)?.description
                == "plugins[0].when: a condition cannot compare with null: a missing or null value never matches")
        #expect(configError(#"{"name": "bodyErrors", "when": {"keyPath": 3, "equals": false}}"#)?.path == "plugins[0].when.keyPath")
        #expect(configError(#"{"name": "bodyErrors", "when": {"keyPath": "ok", "equals": false}, "errors": {"keyPath": "x"}}"#)?
                .description == "plugins[0].errors.mapping: is required")
        #expect(configError(#"{"name": "bodyErrors", "when": {"keyPath": "ok", "equals": false}, "errors": {"mapping": "Eror"}}"#,
                            mappings: #"{"Error": {"attributes": {"error": "code"}}}"#)?.description
                == #"plugins[0].errors.mapping: unknown mapping "Eror" (known: Error)"#)
    }
}
