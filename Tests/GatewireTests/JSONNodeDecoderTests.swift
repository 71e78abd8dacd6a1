import Gatewire
import Testing

@Suite struct JSONNodeDecoderTests {
    struct Author: Decodable, Equatable { let login: String; let id: Int }
    struct Issue: Decodable, Equatable {
        let number: Int
        let title: String
        let createdAt: GatewireDate
        let plusOne: UInt8?
        let author: Author
        let milestone: String?
    }

    @Test func decodesAMappedResult() throws {
        let mapper = ResponseMapper(catalog: try catalog(githubConfig))
        let outcome = mapper.map(MappableResponse(method: .get, path: "/search/issues?q=x", status: 200,
                                                  contentType: "application/json", body: Fixture.bytes("github-search-issues.json")))
        let mapped = try #require(outcome.mapped)
        let issues = try JSONNodeDecoder().decode([Issue].self, from: try #require(mapped.node["items"]))
        #expect(issues.map(\.number) == [2, 1])
        #expect(issues[1].title == "The doors don\u{2019}t open")
        #expect(issues[0].author == Author(login: "octokit-fixture-user-b", id: 1000))
        #expect(issues[0].createdAt.iso8601 == "2017-10-10T16:00:00.000Z")
        #expect(issues[0].createdAt.secondsSince1970 == 1_507_651_200)
        #expect(issues[0].plusOne == 0)
        #expect(issues[0].milestone == nil)
        struct Search: Decodable { let total: Int64; let incomplete: Bool }
        let search = try JSONNodeDecoder().decode(Search?.self, from: try #require(mapped.node[""]))
        #expect(search?.total == 2 && search?.incomplete == false)
    }

    @Test func bigIntegersStayExact() throws {
        struct Cursor: Decodable { let ids: [Int64]; let next_cursor: Int64; let next_cursor_str: String; let previous_cursor: UInt }
        let body = try Fixture.json("twitter-ids-cursor-bigint.json")
        let cursor = try JSONNodeDecoder().decode(Cursor.self, from: body)
        #expect(cursor.next_cursor == 1_305_102_810_874_389_703)
        #expect(String(cursor.next_cursor) == cursor.next_cursor_str)
        #expect(cursor.previous_cursor == 0)
        #expect(!cursor.ids.isEmpty)
    }

    @Test func primitivesOptionalsAndDictionaries() throws {
        struct All: Decodable {
            let d: Double; let i2d: Double; let f: Float; let b: Bool; let s: String; let whole: Int16
            let none: String?; let null: Int?; let nested: [[Int]]; let map: [String: Bool]
        }
        let value = try json(#"{"d": 1.5, "i2d": 3, "f": 0.25, "b": true, "s": "x", "whole": 7.0, "null": null, "nested": [[1], [2, 3]], "map": {"a": true, "b": false}}"#)
        let all = try JSONNodeDecoder().decode(All.self, from: value)
        #expect(all.d == 1.5 && all.i2d == 3 && all.f == 0.25 && all.b && all.s == "x" && all.whole == 7)
        #expect(all.none == nil && all.null == nil)
        #expect(all.nested == [[1], [2, 3]])
        #expect(all.map == ["a": true, "b": false])
    }

    @Test func errorsCarryTheCodingPath() throws {
        struct Small: Decodable { let n: Int8 }
        struct Wrapper: Decodable { let items: [Small] }
        let overflow = try json(#"{"items": [{"n": 1}, {"n": 300}]}"#)
        do {
            _ = try JSONNodeDecoder().decode(Wrapper.self, from: overflow)
            Testing.Issue.record("expected an error")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.stringValue) == ["items", "Index 1", "n"])
            #expect(context.debugDescription == "Number 300 does not fit in Int8")
        }
        let fraction = try json(#"{"n": 1.5}"#)
        #expect(throws: DecodingError.self) { try JSONNodeDecoder().decode(Small.self, from: fraction) }
        do {
            _ = try JSONNodeDecoder().decode(Small.self, from: try json(#"{"n": "1"}"#))
            Testing.Issue.record("expected an error")
        } catch DecodingError.typeMismatch(let type, let context) {
            #expect(type is Int8.Type)
            #expect(context.codingPath.map(\.stringValue) == ["n"])
        }
        do {
            _ = try JSONNodeDecoder().decode(Small.self, from: try json("{}"))
            Testing.Issue.record("expected an error")
        } catch DecodingError.keyNotFound(let key, _) {
            #expect(key.stringValue == "n")
        }
        do {
            _ = try JSONNodeDecoder().decode(Small.self, from: try json(#"{"n": null}"#))
            Testing.Issue.record("expected an error")
        } catch DecodingError.valueNotFound(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["n"])
        }
        #expect(throws: DecodingError.self) { try JSONNodeDecoder().decode([Int].self, from: try json(#"{"a": 1}"#)) }
    }

    @Test func gatewireDateDecodesStringsAndSeconds() throws {
        let value = try json(#"["2017-10-10T16:00:00.000Z", "Tue, 10 Oct 2017 16:00:00 GMT", 1507651200]"#)
        let dates = try JSONNodeDecoder().decode([GatewireDate].self, from: value)
        #expect(Set(dates.map(\.millisecondsSince1970)) == [1_507_651_200_000])
        #expect(throws: DecodingError.self) { try JSONNodeDecoder().decode(GatewireDate.self, from: try json(#""soon""#)) }
    }
}
