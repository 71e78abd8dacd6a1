import Gatewire
import Testing

/// Descriptors through the whole client: real payloads served over HTTP, mapped, decoded.
@Suite(.serialized) struct ClientMappingTests {
    let server: TestServer
    let client: Client

    static let config = #"""
        {
          "mappings": {
            "Issue": {"attributes": {"number": {"to": "number", "type": "integer", "required": true},
                                     "title": "title", "state": "state",
                                     "created_at": {"to": "createdAt", "type": "date"}},
                      "relationships": {"user": {"to": "author", "mapping": "User"}}},
            "User": {"attributes": {"login": "login", "id": {"to": "id", "type": "integer"}}},
            "Account": {"attributes": {"full_name": {"to": "name", "required": true}, "email": "email"}},
            "ValidationError": {"attributes": {"resource": "resource", "code": "code", "field": "field"}}
          },
          "routes": {"createAccount": {"method": "POST", "pathPattern": "/echo/accounts", "objectType": "Account"}},
          "requestDescriptors": [{"objectType": "Account", "mapping": "Account", "rootKeyPath": "user"}],
          "responseDescriptors": [
            {"mapping": "Issue", "method": "GET", "pathPattern": "/fixture/github-search-issues.json", "keyPath": "items"},
            {"mapping": "User", "method": "GET", "pathPattern": "/fixture/github-search-issues.json", "keyPath": "items.user"}
          ],
          "errorDescriptors": [
            {"mapping": "ValidationError", "pathPattern": "/fixture/:name", "keyPath": "errors", "statusCodes": [422]}
          ]
        }
        """#

    init() throws {
        server = try TestServer()
        var config = try GatewayConfig(json: Self.config.replacingFirst("{", with: "{\"baseURL\": \"\(server.baseURL)\","))
        config.retryPolicy = .none
        client = try Client(config: config)
    }

    struct Issue: Decodable, Equatable {
        struct Author: Decodable, Equatable { let login: String; let id: Int64 }
        let number: Int
        let title: String
        let state: String
        let createdAt: GatewireDate
        let author: Author
    }

    @Test func responseDescriptorsMapEveryKeyPathAndDecode() async throws {
        let response = try await client.send(.get("/fixture/github-search-issues.json"))
        let issues = try response.decode([Issue].self, at: "items")
        #expect(issues.count == 2)
        #expect(issues[0].number == 2)
        #expect(issues[0].title == "Sesame seeds split without a pop!")
        #expect(issues[0].author == Issue.Author(login: "octokit-fixture-user-b", id: 1000))
        #expect(issues[0].createdAt.iso8601 == "2017-10-10T16:00:00.000Z")
        // A second descriptor with another key path applies to the same body.
        let users = try #require(response.mapped?.node["items.user"])
        #expect(users.count == 2)
        #expect(response.mapped?.node["items"]?.elements.first?["createdAt"]?.string == "2017-10-10T16:00:00.000Z")
    }

    @Test func errorDescriptorsMapTheFailureBody() async throws {
        let failures = Lock<[GatewireError]>([])
        client.addFailureObserver { error in failures.withLock { $0.append(error) } }
        let error = await #expect(throws: GatewireError.self) {
            try await client.send(.get("/fixture/github-error-422-validation.json", parameters: ["status": "422"]))
        }
        #expect(error?.kind == .httpStatus)
        #expect(error?.status == 422)
        #expect(error?.errorObjects?.serialized() == #"[{"resource":"Label","code":"invalid","field":"color"}]"#)
        // The observer sees the same mapped error objects, once.
        #expect(failures.withLock { $0.map { $0.errorObjects?.node.count } } == [1])
    }

    @Test func nonJSONFailureBodyKeepsTheHTTPFailure() async throws {
        let error = await #expect(throws: GatewireError.self) {
            try await client.send(.get("/fixture/nginx-502-bad-gateway.html", parameters: ["status": "502"]))
        }
        #expect(error?.kind == .httpStatus)
        #expect(error?.status == 502)
        #expect(error?.errorObjects == nil)
        #expect(error?.bodyPreview.contains("502 Bad Gateway") == true)
    }

    @Test func invalidJSONWithoutADescriptorSucceedsAndReadingItAsJSONSaysWhere() async throws {
        // No descriptor maps this path: nothing to map, so no mapping error (the case file
        // has the same body with a descriptor: a mapping error). Read as JSON, it throws.
        let response = try await client.send(.get("/fixture/nginx-502-bad-gateway.html",
                                                   parameters: ["content_type": "application/json"]))
        #expect(response.status == 200)
        #expect(response.http.text.hasPrefix("<html>"))
        #expect(response.body == nil)
        let error = #expect(throws: GatewireError.self) { try response.jsonBody() }
        #expect(error?.kind == .mapping)
        #expect(error?.status == 200)
        #expect(error?.message.hasPrefix("invalid JSON at line 1, column 1: ") == true)
        #expect(error?.attempts.count == 1)
        // A valid unmapped JSON body is parsed on the first read, once: copies share the tree.
        let valid = try await client.send(.get("/fixture/github-repository.json"))
        let copy = valid
        let first = try #require(try valid.jsonBody())
        #expect(first.node["name"]?.string == "hello-world")
        #expect(try copy.jsonBody()?.pointer == first.pointer)
    }

    @Test func decodingFailureIsAMappingFailureSeenOnceByObservers() async throws {
        let failures = Lock<[GatewireError]>([])
        client.addFailureObserver { error in failures.withLock { $0.append(error) } }
        let request = Request.get("/fixture/github-search-issues.json")
        let missing = await #expect(throws: GatewireError.self) {
            try await client.send(request, decoding: [Issue].self, at: "issues")
        }
        #expect(missing?.kind == .mapping)
        #expect(missing?.status == 200)
        #expect(missing?.attempts.count == 1)
        #expect(missing?.message.contains(#"mapped: "items", "items.user""#) == true)
        let wrongShape = await #expect(throws: GatewireError.self) {
            try await client.send(request, decoding: [String].self, at: "items")
        }
        #expect(wrongShape?.kind == .mapping)
        #expect(failures.withLock { $0.map(\.kind) } == [.mapping, .mapping])
    }

    @Test func baseURLMustBeAbsolute() throws {
        #expect(throws: ConfigError.self) { try Client(baseURL: "localhost:8080") }
        #expect(throws: ConfigError.self) { try GatewayConfig(baseURL: "http://") }
        #expect(throws: ConfigError.self) { try GatewayConfig(json: #"{"baseURL": "http://a", "baseURL": "http://b"}"#) }
    }

    @Test func requestDescriptorBuildsTheBodyUnderItsRootKeyPath() async throws {
        let account = try JSONValue.parse(#"{"name": "Ann Lee", "email": "ann@example.com"}"#)
        let response = try await client.send(Request(route: "createAccount", body: .object(account)))
        let echo = try JSONValue.parse(response.http.text).node
        #expect(echo["method"]?.string == "POST")
        #expect(echo["body"]?.serialized() == #"{"user":{"full_name":"Ann Lee","email":"ann@example.com"}}"#)
    }
}

extension String {
    func replacingFirst(_ target: Character, with replacement: String) -> String {
        guard let index = firstIndex(of: target) else { return self }
        return String(self[..<index]) + replacement + String(self[self.index(after: index)...])
    }
}
