import Gatewire
import Testing

@Suite struct JSONKeyPathTests {
    @Test func parsesDotsAndEscapes() {
        #expect(JSONKeyPath("user.address.city").components == ["user", "address", "city"])
        #expect(JSONKeyPath("meta\\.data.id").components == ["meta.data", "id"])
        #expect(JSONKeyPath("a\\\\b").components == ["a\\b"])
        #expect(JSONKeyPath("").isRoot)
        #expect(JSONKeyPath.root.description == "")
        #expect(JSONKeyPath(components: ["meta.data", "id"]).description == "meta\\.data.id")
        #expect(JSONKeyPath("meta\\.data.id") == JSONKeyPath(components: ["meta.data", "id"]))
    }

    @Test func walksObjectsAndFindsMissingKeys() throws {
        let body = try Fixture.json("github-search-issues.json")
        #expect(try JSONKeyPath("total_count").value(in: body.node)?.node.integer == 2)
        #expect(try JSONKeyPath("items").value(in: body.node)?.node.count == 2)
        #expect(try JSONKeyPath("nope").value(in: body.node) == nil)
        #expect(try JSONKeyPath("nope.deeper").value(in: body.node) == nil)
        #expect(try JSONKeyPath("").value(in: body.node)?.node.pointer == body.pointer)
    }

    @Test func escapedDotReachesKeyWithDot() throws {
        let body = try json(#"{"a.b": {"c": 1}, "a": {"b": {"c": 2}}}"#)
        #expect(try JSONKeyPath("a\\.b.c").value(in: body.node)?.node.integer == 1)
        #expect(try JSONKeyPath("a.b.c").value(in: body.node)?.node.integer == 2)
    }

    @Test func throughArraysYieldsArraysOfSubValues() throws {
        let body = try Fixture.json("github-search-issues.json")
        let logins = try #require(try JSONKeyPath("items.user.login").value(in: body.node))
        #expect(logins.serialized() == #"["octokit-fixture-user-b","octokit-fixture-user-a"]"#)
        // Missing sub-values and nulls are skipped (milestone is null in every item).
        #expect(try JSONKeyPath("items.milestone.title").value(in: body.node)?.serialized() == "[]")
        let mixed = try json(#"[{"a": 1}, {"b": 2}, null, {"a": null}, {"a": 3}]"#)
        #expect(try JSONKeyPath("a").value(in: mixed.node)?.serialized() == "[1,3]")
    }

    @Test func nullAlongTheWayIsMissingButNullAtTheEndIsNull() throws {
        let body = try Fixture.json("github-repository.json")
        #expect(try JSONKeyPath("license.name").value(in: body.node) == nil)
        #expect(try JSONKeyPath("license").value(in: body.node)?.node.isNull == true)
    }

    @Test func runningIntoAScalarIsAnErrorNamingThePath() throws {
        let body = try Fixture.json("stripe-charge.json")
        let error = try #require(throws: MappingError.self) { try JSONKeyPath("source.last4.digits").value(in: body.node) }
        #expect(error.keyPath == "source.last4")
        #expect(error.message.contains("a string"))
        #expect(error.message.contains("digits"))
        let inArray = try json(#"{"tags": ["a", "b"]}"#)
        let arrayError = try #require(throws: MappingError.self) { try JSONKeyPath("tags.name").value(in: inArray.node) }
        #expect(arrayError.keyPath == "tags[0]")
    }
}
