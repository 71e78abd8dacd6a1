import Gatewire
import Testing

@Suite struct ObjectMappingTests {
    let issue = ObjectMapping(
        name: "Issue",
        attributes: [.init("number", type: .integer, required: true), .init("title", type: .string),
                     .init("created_at", to: "createdAt", type: .date), .init("milestone"),
                     .init("reactions.+1", to: "plusOne", type: .integer)],
        relationships: [.init("user", to: "author", mapping: "User"), .init("assignee", mapping: "User")])
    let user = ObjectMapping(name: "User", attributes: [.init("login", required: true), .init("id", type: .integer)])

    @Test func mapsTopLevelArrayInDeclarationOrder() throws {
        let body = try Fixture.json("github-issues-list-page1.json")
        let mapper = ObjectMapper(mappings: [issue, user])
        let mapped = try mapper.map(body.node, with: "Issue")
        #expect(mapped.node.count == 3)
        #expect(mapped.node.elements[0].serialized()
            == #"{"number":13,"title":"Test issue 13","createdAt":"2017-10-10T16:00:00.000Z","milestone":null,"plusOne":0,"author":{"login":"octokit-fixture-user-a","id":1000},"assignee":null}"#)
        #expect(mapped.node.elements.map { $0["number"]!.integer! } == [13, 12, 11])
    }

    @Test func missingKeysAreLeftOutAndNullsKept() throws {
        let body = try json(#"{"number": 1, "title": null}"#)
        let mapped = try ObjectMapper(mappings: [issue, user]).map(body.node, with: "Issue")
        #expect(mapped.serialized() == #"{"number":1,"title":null}"#)
    }

    @Test func requiredMissingOrNullIsAnErrorNamingTheKeyPath() throws {
        let mapper = ObjectMapper(mappings: [issue, user])
        let missing = try json(#"[{"number": 1}, {"title": "x"}]"#)
        let error = try #require(throws: MappingError.self) { try mapper.map(missing.node, with: "Issue", at: "items") }
        #expect(error.keyPath == "items[1].number")
        #expect(error.description == #"items[1].number: required attribute "number" of Issue is missing"#)
        let nullLogin = try json(#"{"number": 1, "user": {"login": null}}"#)
        let nested = try #require(throws: MappingError.self) { try mapper.map(nullLogin.node, with: "Issue") }
        #expect(nested.keyPath == "user.login")
        #expect(nested.message.contains("is null"))
    }

    @Test func badCoercionIsAnError() throws {
        let body = try json(#"{"number": "12abc"}"#)
        let error = try #require(throws: MappingError.self) { try ObjectMapper(mappings: [issue, user]).map(body.node, with: "Issue") }
        #expect(error.description == #"number: "12abc" is not an integer"#)
    }

    @Test func stripeChargeCoercions() throws {
        let card = ObjectMapping(name: "Card", attributes: [.init("last4", type: .string), .init("exp_year", to: "expYear", type: .integer)])
        let charge = ObjectMapping(
            name: "Charge",
            attributes: [.init("id", type: .string, required: true), .init("amount", type: .integer),
                         .init("created", type: .date, dateFormat: .epochSeconds), .init("paid", type: .boolean),
                         .init("refunds.data", to: "refunds", type: .json), .init("customer")],
            relationships: [.init("source", to: "card", mapping: "Card")])
        let body = try Fixture.json("stripe-charge.json")
        let mapped = try ObjectMapper(mappings: [charge, card]).map(body.node, with: "Charge")
        #expect(mapped.serialized()
            == #"{"id":"ch_198c152iMoKf4jyWWYvyqjTX","amount":1061,"created":"2016-10-25T20:59:27.000Z","paid":true,"refunds":[],"customer":null,"card":{"last4":"4242","expYear":2017}}"#)
    }

    @Test func valueItselfMapsArraysOfScalars() throws {
        let message = ObjectMapping(name: "Message", attributes: [.init("@value", to: "message", type: .string)])
        let body = try json(#"{"errors": ["a", "b", null]}"#)
        let mapped = try ObjectMapper(mappings: [message]).map(body.node["errors"]!, with: "Message")
        #expect(mapped.serialized() == #"[{"message":"a"},{"message":"b"}]"#)
    }

    @Test func recursiveMappingsAreBoundedByDepth() throws {
        let comment = ObjectMapping(name: "Comment", attributes: [.init("text")], relationships: [.init("replies", mapping: "Comment")])
        let body = try json(#"{"text": "a", "replies": [{"text": "b", "replies": [{"text": "c"}]}]}"#)
        let mapped = try ObjectMapper(mappings: [comment]).map(body.node, with: "Comment")
        #expect(mapped.serialized() == #"{"text":"a","replies":[{"text":"b","replies":[{"text":"c"}]}]}"#)
        let shallow = ObjectMapper(mappings: [comment], maxDepth: 2)
        let error = try #require(throws: MappingError.self) { try shallow.map(body.node, with: "Comment") }
        #expect(error.keyPath == "replies[0].replies[0]")
    }

    @Test func configFormParses() throws {
        let (value, node) = try config(#"""
            {"attributes": {"email": "email",
                            "full_name": {"to": "name", "type": "string", "required": true},
                            "created_at": {"to": "createdAt", "type": "date", "dateFormat": "iso8601"}},
             "relationships": {"address": {"to": "address", "mapping": "Address"}}}
            """#)
        let mapping = try withExtendedLifetime(value) { try ObjectMapping(config: node, name: "User") }
        #expect(mapping == ObjectMapping(
            name: "User",
            attributes: [.init("email", to: "email"), .init("full_name", to: "name", type: .string, required: true),
                         .init("created_at", to: "createdAt", type: .date, dateFormat: .iso8601)],
            relationships: [.init("address", to: "address", mapping: "Address")]))
    }

    @Test func configErrorsNameTheField() throws {
        func error(_ text: String) throws -> ConfigError? {
            let (value, node) = try config(text)
            defer { withExtendedLifetime(value) {} }
            do {
                _ = try ObjectMapping(config: ConfigNode(node.json, path: "mappings.User"), name: "User")
                return nil
            } catch {
                return error
            }
        }
        #expect(try error(#"{"attributes": {"a": {"to": "b", "type": "int"}}}"#)?.path == "mappings.User.attributes.a.type")
        #expect(try error(#"{"attributes": {"a": {"to": "b", "typo": 1}}}"#)?.path == "mappings.User.attributes.a.typo")
        #expect(try error(#"{"attributes": {"a": {"type": "string", "dateFormat": "iso8601"}}}"#)?.path == "mappings.User.attributes.a.dateFormat")
        #expect(try error(#"{"attributes": {"a": "x", "b": "x"}}"#)?.description
            == #"mappings.User.attributes.b: destination key "x" is already written by mappings.User.attributes.a"#)
        #expect(try error(#"{"relationships": {"a": {"to": "b"}}}"#)?.description == "mappings.User.relationships.a.mapping: is required")
        #expect(try error(#"{"attributes": [1]}"#)?.path == "mappings.User.attributes")
    }
}
