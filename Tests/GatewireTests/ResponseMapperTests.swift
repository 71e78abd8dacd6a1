import Gatewire
import Testing

let githubConfig = #"""
{
  "mappings": {
    "Issue": {"attributes": {"number": {"to": "number", "type": "integer", "required": true},
                             "title": {"type": "string"},
                             "created_at": {"to": "createdAt", "type": "date", "dateFormat": "iso8601"},
                             "reactions.+1": {"to": "plusOne", "type": "integer"}},
              "relationships": {"user": {"to": "author", "mapping": "User"}}},
    "User": {"attributes": {"login": {"to": "login", "required": true}, "id": {"to": "id", "type": "integer"}}},
    "Search": {"attributes": {"total_count": {"to": "total", "type": "integer"},
                              "incomplete_results": {"to": "incomplete", "type": "boolean"}}},
    "ValidationError": {"attributes": {"resource": "resource", "code": "code", "field": "field"}},
    "Message": {"attributes": {"message": "message", "documentation_url": "docs"}},
    "Charge": {"attributes": {"id": "id", "amount": {"to": "amount", "type": "integer"},
                              "created": {"to": "created", "type": "date", "dateFormat": "epochSeconds"},
                              "source.last4": {"to": "last4", "type": "string"}}}
  },
  "responseDescriptors": [
    {"mapping": "Issue", "method": "GET", "pathPattern": "/search/issues", "keyPath": "items"},
    {"mapping": "Search", "method": "GET", "pathPattern": "/search/issues"},
    {"mapping": "Issue", "method": "GET", "pathPattern": "/repos/:owner/:repo/issues"},
    {"mapping": "Charge", "method": ["GET", "POST"], "pathPattern": "/v1/charges/*"},
    {"mapping": "Issue", "method": "GET", "pathPattern": "/repos/:owner/:repo/issues/:number", "statusCodes": ["2xx", 304]},
    {"mapping": "Issue", "pathPattern": "/legacy/issue", "statusCodes": 302}
  ],
  "errorDescriptors": [
    {"mapping": "ValidationError", "method": "POST", "keyPath": "errors", "statusCodes": 422},
    {"mapping": "Message", "statusCodes": ["4xx", "5xx"]}
  ]
}
"""#

@Suite struct ResponseMapperTests {
    let mapper: ResponseMapper

    init() throws { mapper = ResponseMapper(catalog: try catalog(githubConfig)) }

    func response(_ path: String, _ method: HTTPMethod = .get, status: Int = 200, type: String? = "application/json; charset=utf-8",
                  fixture: String) -> MappableResponse {
        MappableResponse(method: method, path: path, status: status, contentType: type, body: Fixture.bytes(fixture))
    }

    func response(_ path: String, _ method: HTTPMethod = .get, status: Int = 200, type: String? = "application/json",
                  text: String) -> MappableResponse {
        MappableResponse(method: method, path: path, status: status, contentType: type, body: Array(text.utf8))
    }

    @Test func searchIssuesWithKeyPathAndNestedUser() throws {
        let outcome = mapper.map(response("/search/issues?q=windows+label:bug", fixture: "github-search-issues.json"))
        #expect(outcome.accepted)
        #expect(outcome.error == nil)
        let mapped = try #require(outcome.mapped)
        // Several descriptors with different key paths all apply, keyed by key path.
        #expect(mapped.node.members.map { $0.key } == ["items", ""])
        #expect(mapped.node[""]?.serialized() == #"{"total":2,"incomplete":false}"#)
        let items = try #require(mapped.node["items"])
        #expect(items.count == 2)
        #expect(items.elements[0].serialized()
            == #"{"number":2,"title":"Sesame seeds split without a pop!","createdAt":"2017-10-10T16:00:00.000Z","plusOne":0,"author":{"login":"octokit-fixture-user-b","id":1000}}"#)
        #expect(items.elements[1]["title"]?.string == "The doors don\u{2019}t open")
        #expect(outcome.body?.node["total_count"]?.integer == 2)
    }

    @Test func aNulCharacterInAStringIsMappedWhole() throws {
        // "\u0000" is valid JSON (RFC 8259, section 7); Jansson refuses it without JSON_ALLOW_NUL.
        let outcome = mapper.map(response("/v1/charges/ch_1", text: #"{"id": "ch\u0000_1", "amount": 5}"#))
        #expect(outcome.accepted && outcome.error == nil)
        let id = try #require(outcome.mapped?.node[""]?["id"]?.string)
        #expect(Array(id.utf8) == [0x63, 0x68, 0x00, 0x5F, 0x31])
        #expect(outcome.mapped?.serialized() == #"{"":{"id":"ch\u0000_1","amount":5}}"#)
        // In an object key Jansson still refuses it (its keys are C strings): a parse error, not a truncated key.
        #expect(mapper.map(response("/v1/charges/ch_1", text: #"{"i\u0000d": "x"}"#)).error != nil)
    }

    @Test func topLevelArrayWithPathParameters() throws {
        let outcome = mapper.map(response("/repos/octokit-fixture-org/hello%2Dworld/issues?per_page=3", fixture: "github-issues-list-page1.json"))
        #expect(outcome.accepted && outcome.error == nil)
        #expect(outcome.pathParameters == ["owner": "octokit-fixture-org", "repo": "hello-world"])
        let issues = try #require(outcome.mapped?.node[""])
        #expect(issues.elements.map { $0["number"]!.integer! } == [13, 12, 11])
        #expect(issues.elements.map { $0.at("author.login")!.string! } == Array(repeating: "octokit-fixture-user-a", count: 3))
    }

    @Test func stripeChargeAmountDateAndLast4() throws {
        let outcome = mapper.map(response("/v1/charges/ch_198c152iMoKf4jyWWYvyqjTX/capture", .post, fixture: "stripe-charge.json"))
        #expect(outcome.accepted && outcome.error == nil)
        #expect(outcome.pathParameters == ["*": "ch_198c152iMoKf4jyWWYvyqjTX/capture"])
        #expect(outcome.mapped?.serialized()
            == #"{"":{"id":"ch_198c152iMoKf4jyWWYvyqjTX","amount":1061,"created":"2016-10-25T20:59:27.000Z","last4":"4242"}}"#)
        #expect(outcome.mapped?.node.at(".amount") == nil)  // "" key: reach it by subscript
        #expect(outcome.mapped?.node[""]?["amount"]?.kind == .integer)
    }

    @Test func validationErrorOn422GivesErrorObjects() throws {
        let outcome = mapper.map(response("/repos/o/r/labels", .post, status: 422, fixture: "github-error-422-validation.json"))
        #expect(!outcome.accepted)
        #expect(outcome.error == nil)
        #expect(outcome.mapped == nil)
        // The POST-only 422 descriptor (errors[]) and the catch-all Message descriptor both apply.
        #expect(outcome.errorObjects?.serialized()
            == #"[{"resource":"Label","code":"invalid","field":"color"},{"message":"Validation Failed","docs":"https://docs.github.com/rest/reference/issues#create-a-label"}]"#)
        let get = mapper.map(response("/repos/o/r/labels", .get, status: 422, fixture: "github-error-422-validation.json"))
        #expect(get.errorObjects?.node.count == 1)
    }

    @Test func nginxHTMLOn502KeepsTheHTTPFailure() throws {
        let outcome = mapper.map(response("/search/issues", status: 502, type: "text/html", fixture: "nginx-502-bad-gateway.html"))
        #expect(!outcome.accepted)
        #expect(outcome.error == nil)
        #expect(outcome.errorObjects == nil)
        #expect(outcome.mapped == nil)
        #expect(outcome.body == nil)
        // Even mislabelled as JSON, the failure stays an HTTP failure, not a parse error.
        let mislabelled = mapper.map(response("/search/issues", status: 502, fixture: "nginx-502-bad-gateway.html"))
        #expect(!mislabelled.accepted && mislabelled.error == nil && mislabelled.errorObjects == nil)
    }

    @Test func invalidJSONOn200GivesLineAndColumn() throws {
        let outcome = mapper.map(response("/search/issues", text: "{\n  \"total_count\": 2,\n  \"items\": [1, }\n}"))
        #expect(outcome.accepted)
        let error = try #require(outcome.error)
        #expect(error.line == 3)
        #expect(error.column == 16)
        #expect(error.description.hasPrefix("invalid JSON at line 3, column 16: "))
        #expect(outcome.mapped == nil)
        // The nginx page served as JSON on a 200.
        let html = mapper.map(response("/search/issues", fixture: "nginx-502-bad-gateway.html"))
        #expect(html.error?.line == 1)
    }

    @Test func bodilessResponsesAreNotParsed() throws {
        for (method, status, body) in [(HTTPMethod.get, 204, ""), (.get, 200, ""), (.get, 200, " \r\n"), (.head, 200, "{\"x\":"),
                                       (.get, 205, "garbage"), (.get, 304, "garbage")] {
            let outcome = mapper.map(response("/repos/o/r/issues/1", method, status: status, text: body))
            #expect(outcome.accepted, "\(method) \(status)")
            #expect(outcome.error == nil && outcome.mapped == nil && outcome.body == nil, "\(method) \(status)")
        }
        let emptyFailure = mapper.map(response("/x", status: 500, text: ""))
        #expect(!emptyFailure.accepted && emptyFailure.errorObjects == nil && emptyFailure.error == nil)
    }

    @Test func statusGate() throws {
        #expect(mapper.map(response("/nothing/matches", status: 299, text: "{}")).accepted)
        #expect(!mapper.map(response("/search/issues", status: 302, text: "{}")).accepted)
        let redirect = mapper.map(response("/legacy/issue", .put, status: 302, text: #"{"number": 5}"#))
        #expect(redirect.accepted && redirect.mapped?.serialized() == #"{"":{"number":5}}"#)
        #expect(!mapper.map(response("/nothing", status: 404, text: "{}")).accepted)
        // A response descriptor listing a 4xx does not make it a success (RestKit #1572).
        let custom = try catalog(#"{"mappings": {"M": {"attributes": {"message": "message"}}}, "responseDescriptors": [{"mapping": "M", "statusCodes": [200, 404]}]}"#)
        let notFound = ResponseMapper(catalog: custom).map(response("/x", status: 404, text: #"{"message": "Not Found"}"#))
        #expect(!notFound.accepted)
        #expect(notFound.errorObjects?.serialized() == #"[{"message":"Not Found"}]"#)
    }

    @Test func noMatchingDescriptorAndNothingFound() throws {
        let none = mapper.map(response("/users/1", fixture: "github-repository.json"))
        #expect(none.accepted && none.error == nil && none.mapped == nil)
        #expect(none.body?.node["name"]?.string == "hello-world")
        // A descriptor whose key path finds nothing leaves its key out; nothing at all gives {}.
        let custom = try catalog(#"{"mappings": {"M": {}}, "responseDescriptors": [{"mapping": "M", "keyPath": "data"}, {"mapping": "M", "keyPath": "meta"}]}"#)
        let outcome = ResponseMapper(catalog: custom).map(response("/x", text: #"{"data": null, "other": 1}"#))
        #expect(outcome.accepted && outcome.error == nil)
        #expect(outcome.mapped?.serialized() == "{}")
    }

    @Test func aBodyNoDescriptorMapsIsParsedOnFirstReadIntoOneTreeForAllReaders() async throws {
        let outcome = mapper.map(response("/users/1", fixture: "github-repository.json"))
        let json = try #require(outcome.json)
        // Sixteen readers at once on the cooperative pool: one parse wins, all get its tree.
        let trees = await withTaskGroup(of: UInt.self) { group in
            for _ in 0..<16 {
                group.addTask { ((try? json.value()) ?? nil).map { UInt(bitPattern: $0.pointer) } ?? 0 }
            }
            return await group.reduce(into: Set<UInt>()) { $0.insert($1) }
        }
        #expect(trees.count == 1 && !trees.contains(0))
        #expect(try json.value()?.node["name"]?.string == "hello-world")
    }

    @Test func aDeferredBodyFollowsTheBodyAndContentTypeRules() throws {
        let value = { (response: MappableResponse) throws(JSONParseError) -> JSONValue? in
            try self.mapper.map(response).json?.value()
        }
        #expect(try value(response("/users/1", status: 204, text: "{}")) == nil)
        #expect(try value(response("/users/1", .head, text: "{}")) == nil)
        #expect(try value(response("/users/1", text: " \r\n")) == nil)
        #expect(try value(response("/users/1", type: "text/html", fixture: "nginx-502-bad-gateway.html")) == nil)
        #expect(try value(response("/users/1", type: nil, text: "{}")) == nil)  // sniffed only for descriptors
        #expect(try value(response("/users/1", type: "application/problem+json", text: #"{"a": 1}"#))?.node["a"]?.integer == 1)
        let error = #expect(throws: JSONParseError.self) { try value(response("/users/1", text: "{\n  \"a\": }")) }
        #expect(error?.line == 2 && error?.column == 8)
        // A failure that no error descriptor maps keeps no body to read (the error carries the
        // raw bytes); with one (this config's "Message" for every 4xx/5xx) it is the parsed tree.
        let bare = ResponseMapper(catalog: try catalog("{}"))
        #expect(bare.map(response("/users/1", status: 500, text: "{}")).json == nil)
        #expect(try mapper.map(response("/users/1", status: 500, text: #"{"message": "x"}"#)).json?.value()?.node["message"]?.string == "x")
    }

    @Test func mappingErrorOn2xx() throws {
        let outcome = mapper.map(response("/repos/o/r/issues", text: #"[{"number": 1, "user": {"login": "a"}}, {"number": "12abc"}]"#))
        #expect(outcome.accepted)
        #expect(outcome.mapped == nil)
        #expect(outcome.error?.description == #"[1].number: "12abc" is not an integer"#)
        let missing = mapper.map(response("/search/issues", text: #"{"items": [{"title": "t"}]}"#))
        #expect(missing.error?.keyPath == "items[0].number")
    }

    @Test func contentTypes() throws {
        let problem = try catalog(#"{"mappings": {"P": {"attributes": {"title": "title", "balance": {"to": "balance", "type": "integer"}}}}, "errorDescriptors": [{"mapping": "P"}]}"#)
        let outcome = ResponseMapper(catalog: problem).map(
            response("/account", .get, status: 403, type: "Application/Problem+JSON; charset=UTF-8", fixture: "problem-json-out-of-credit-403.json"))
        #expect(outcome.errorObjects?.serialized() == #"[{"title":"You do not have enough credit.","balance":30}]"#)
        // No content type or text/plain with a matching descriptor: parsed.
        let sniffed = mapper.map(response("/search/issues", type: nil, fixture: "github-search-issues.json"))
        #expect(sniffed.mapped?.node["items"]?.count == 2)
        let plain = mapper.map(response("/search/issues", type: "text/plain", fixture: "github-search-issues.json"))
        #expect(plain.mapped?.node["items"]?.count == 2)
        // HTML on a 2xx with a descriptor: a mapping error; without one: nothing to map.
        let html = mapper.map(response("/search/issues", type: "text/html", fixture: "nginx-502-bad-gateway.html"))
        #expect(html.accepted && html.error?.message == "expected a JSON body (application/json or +json), got content type text/html")
        let page = mapper.map(response("/index.html", type: "text/html", fixture: "nginx-502-bad-gateway.html"))
        #expect(page.accepted && page.error == nil && page.mapped == nil && page.body == nil)
    }

    @Test func sameKeyPathMostSpecificPatternThenLaterRegistration() throws {
        let custom = try catalog(#"""
            {"mappings": {"Any": {"attributes": {"@value": "any"}}, "Id": {"attributes": {"id": "byId"}},
                          "Me": {"attributes": {"id": "me"}}, "Later": {"attributes": {"id": "later"}},
                          "Wild": {"attributes": {"id": "wild"}}},
             "responseDescriptors": [{"mapping": "Me", "pathPattern": "/users/me"},
                                     {"mapping": "Id", "pathPattern": "/users/:id"},
                                     {"mapping": "Wild", "pathPattern": "/users/*"},
                                     {"mapping": "Any"},
                                     {"mapping": "Later", "pathPattern": "/users/:name"}]}
            """#)
        let mapper = ResponseMapper(catalog: custom)
        #expect(mapper.map(response("/users/me", text: #"{"id": 1}"#)).mapped?.serialized() == #"{"":{"me":1}}"#)
        let byId = mapper.map(response("/users/7", text: #"{"id": 7}"#))
        #expect(byId.mapped?.serialized() == #"{"":{"later":7}}"#)
        #expect(byId.pathParameters == ["name": "7"])
        #expect(mapper.map(response("/users/7/x", text: #"{"id": 7}"#)).mapped?.serialized() == #"{"":{"wild":7}}"#)
        #expect(mapper.map(response("/other", text: #"{"id": 7}"#)).mapped?.serialized() == #"{"":{"any":{"id":7}}}"#)
    }
}

@Suite struct ResponseMapperBuilderTests {
    let catalog: MappingCatalog

    init() throws {
        catalog = try MappingCatalog(
            mappings: [
                ObjectMapping(name: "Charge", attributes: [.init("amount", type: .integer, required: true)]),
                ObjectMapping(name: "StripeError", attributes: [.init("type"), .init("code"), .init("param")]),
                ObjectMapping(name: "PgError", attributes: [.init("code", type: .string), .init("hint"), .init("message")]),
            ],
            responseDescriptors: [ResponseDescriptor(mapping: "Charge", methods: [.get, .post], pathPattern: try PathPattern("/v1/charges/:id"))],
            errorDescriptors: [
                .error(mapping: "StripeError", pathPattern: try PathPattern("/v1/*"), keyPath: "error", statusCodes: .class(4)),
                .error(mapping: "PgError", pathPattern: try PathPattern("/rest/v1/:table"), statusCodes: [400, 409]),
            ])
    }

    func response(_ path: String, status: Int, fixture: String) -> MappableResponse {
        MappableResponse(method: .post, path: path, status: status, contentType: "application/json", body: Fixture.bytes(fixture))
    }

    @Test func stripeErrorUnderKeyPath() throws {
        let outcome = catalog.map(response("/v1/charges", status: 400, fixture: "stripe-error-invalid-request.json"))
        #expect(!outcome.accepted && outcome.error == nil)
        #expect(outcome.errorObjects?.serialized() == #"[{"type":"invalid_request_error","code":"parameter_unknown","param":"foo"}]"#)
        #expect(outcome.pathParameters == ["*": "charges"])
        // 500 is outside the descriptor's 4xx: no error objects.
        #expect(catalog.map(response("/v1/charges", status: 500, fixture: "stripe-error-invalid-request.json")).errorObjects == nil)
    }

    @Test func postgrestSQLStateStaysAString() throws {
        let outcome = catalog.map(response("/rest/v1/projects", status: 400, fixture: "postgrest-error-23502.json"))
        #expect(outcome.errorObjects?.node.elements.first?["code"]?.string == "23502")
        #expect(outcome.errorObjects?.node.elements.first?["hint"]?.isNull == true)
        #expect(outcome.pathParameters == ["table": "projects"])
    }

    @Test func integerBeyond64BitsInABodyIsAParseErrorWithPosition() throws {
        let body = Array("{\"amount\": 9223372036854775808}".utf8)
        let outcome = catalog.map(MappableResponse(method: .get, path: "/v1/charges/ch_1", status: 200, contentType: "application/json", body: body))
        let error = try #require(outcome.error)
        #expect(error.line == 1)
        #expect(error.message.contains("too big integer"))
        let ok = catalog.map(MappableResponse(method: .get, path: "/v1/charges/ch_1", status: 201, contentType: "application/json",
                                              body: Array("{\"amount\": 9.0}".utf8)))
        #expect(ok.mapped?.serialized() == #"{"":{"amount":9}}"#)
        #expect(ok.pathParameters == ["id": "ch_1"])
    }
}

@Suite struct ErrorMessageTests {
    /// RestKit's README setup: `RKErrorMessage` with `nil -> errorMessage` at key path `errors`.
    @Test func stringOrArrayOfStringsGiveOneOrSeveralErrorObjects() throws {
        let catalog = try MappingCatalog(
            mappings: [ObjectMapping(name: "ErrorMessage", attributes: [.init("@value", to: "errorMessage", type: .string)])],
            errorDescriptors: [.error(mapping: "ErrorMessage", keyPath: "errors")])
        func errorObjects(_ text: String) -> String? {
            catalog.map(MappableResponse(method: .delete, path: "/x", status: 422, contentType: "application/json",
                                         body: Array(text.utf8))).errorObjects?.serialized()
        }
        #expect(errorObjects(#"{"errors": "x"}"#) == #"[{"errorMessage":"x"}]"#)
        #expect(errorObjects(#"{"errors": ["a", "b"]}"#) == #"[{"errorMessage":"a"},{"errorMessage":"b"}]"#)
        #expect(errorObjects(#"{"errors": [null]}"#) == nil)
        #expect(errorObjects(#"{"message": "no errors key"}"#) == nil)
    }
}
