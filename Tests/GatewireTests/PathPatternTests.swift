import Gatewire
import Testing

@Suite struct PathPatternTests {
    @Test func capturesParameters() throws {
        let pattern = try PathPattern("/repos/:owner/:repo/issues")
        #expect(pattern.match("/repos/octokit-fixture-org/hello-world/issues") == ["owner": "octokit-fixture-org", "repo": "hello-world"])
        #expect(pattern.parameterNames == ["owner", "repo"])
        #expect(try PathPattern("/users/:id").match("/users/7") == ["id": "7"])
    }

    @Test func ignoresQueryAndTrailingOrLeadingSlash() throws {
        let pattern = try PathPattern("/users/:id")
        #expect(pattern.match("/users/7?fields=name&x=/y") == ["id": "7"])
        #expect(pattern.match("/users/7/") == ["id": "7"])
        #expect(pattern.match("users/7") == ["id": "7"])
        #expect(try PathPattern("/search/issues/").match("/search/issues?q=windows+label:bug") == [:])
        #expect(try PathPattern("organizations").match("/organizations/?q=t") == [:])
    }

    @Test func percentDecodesSegmentsAfterSplitting() throws {
        let pattern = try PathPattern("/files/:name")
        #expect(pattern.match("/files/a%20b%2Fc") == ["name": "a b/c"])
        #expect(pattern.match("/files/caf%C3%A9") == ["name": "café"])
        #expect(pattern.match("/files/100%") == ["name": "100%"])
        #expect(try PathPattern("/caf%C3%A9/:id").match("/café/1") == ["id": "1"])
    }

    @Test func rejectsOtherPaths() throws {
        let pattern = try PathPattern("/users/:id")
        #expect(pattern.match("/users/1/posts") == nil)
        #expect(pattern.match("/users") == nil)
        #expect(pattern.match("/users//") == nil)
        #expect(pattern.match("/accounts/1") == nil)
    }

    @Test func parametersInsideASegment() throws {
        let pattern = try PathPattern("/users/:id.json")
        #expect(pattern.match("/users/7.json") == ["id": "7"])
        #expect(pattern.match("/users/.json") == nil)
        #expect(try PathPattern("/t/:a-:b").match("/t/x-y-z") == ["a": "x", "b": "y-z"])
        #expect(try PathPattern("/time/10\\:30").match("/time/10:30") == [:])
    }

    @Test func wildcardMatchesOneOrMoreSegments() throws {
        let pattern = try PathPattern("/files/*")
        #expect(pattern.match("/files/a/b%20c/d") == ["*": "a/b c/d"])
        #expect(pattern.match("/files/a") == ["*": "a"])
        #expect(pattern.match("/files") == nil)
        #expect(pattern.match("/files/") == nil)
    }

    @Test func invalidPatterns() {
        #expect(throws: ConfigError.self) { try PathPattern("/users?id=:id") }
        #expect(throws: ConfigError.self) { try PathPattern("/a/*/b") }
        #expect(throws: ConfigError.self) { try PathPattern("/a/:x:y") }
    }

    @Test func specificityRanksLiteralsThenParametersThenWildcards() throws {
        let me = try PathPattern("/users/me").specificity
        let id = try PathPattern("/users/:id").specificity
        let rest = try PathPattern("/users/*").specificity
        let any = try PathPattern("/*").specificity
        #expect(me > id)
        #expect(id > rest)
        #expect(rest > any)
        #expect([rest, me, any, id].sorted() == [any, rest, id, me])
    }
}

@Suite struct StatusCodeSetTests {
    func parse(_ text: String) throws -> StatusCodeSet {
        let (value, node) = try config(text)
        return try withExtendedLifetime(value) { try StatusCodeSet(config: ConfigNode(node.json, path: "statusCodes")) }
    }

    @Test func configForms() throws {
        #expect(try parse(#""2xx""#) == .successful)
        #expect(try parse("200") == [200])
        #expect(try parse(#""200""#) == [200])
        #expect(try parse("[400, 422]") == [400, 422])
        #expect(try parse(#"["2xx", 304]"#) == StatusCodeSet.successful.union([304]))
        #expect(try parse(#""200-299""#) == .successful)
        #expect(try parse(#"["4XX", "5xx"]"#) == .failures)
    }

    @Test func containsAndDescription() throws {
        let set = try parse(#"["2xx", 304, "400-404", 422]"#)
        #expect(set.contains(200) && set.contains(299) && set.contains(304) && set.contains(404) && set.contains(422))
        #expect(!set.contains(300) && !set.contains(405) && !set.contains(500))
        #expect(set.description == "2xx,304,400-404,422")
        #expect(StatusCodeSet.failures.description == "4xx,5xx")
        #expect(StatusCodeSet.class(4) == StatusCodeSet(ranges: [400...499]))
        #expect(StatusCodeSet(ranges: [200...210, 205...299]) == .successful)
    }

    @Test func errorsNameTheField() throws {
        let cases: [(String, String)] = [
            ("600", "statusCodes"), (#""2yy""#, "statusCodes"), (#""299-200""#, "statusCodes"),
            (#"[200, "abc"]"#, "statusCodes[1]"), ("[]", "statusCodes"), ("true", "statusCodes"), ("2.5", "statusCodes"),
        ]
        for (text, path) in cases {
            let error = try #require(throws: ConfigError.self, "\(text)") { try parse(text) }
            #expect(error.path == path, "\(text): \(error)")
        }
    }
}

/// A pattern of only ASCII literals is matched on the path's bytes in place; a path with a
/// `%` takes the general match (split, decode, compare). Both must agree on every path.
@Suite struct LiteralPathPatternTests {
    static let patterns = ["/users.json", "/search/issues/", "organizations", "/a//b", "/", "", "/a/b/c", "/x%41y"]
    static let paths = ["/users.json", "users.json", "/users.json/", "/users.json?x=1", "/users.json#top", "/users.jso",
                        "/users.json/x", "//users.json", "/search/issues", "search/issues/?q=a/b", "/search//issues",
                        "/organizations/?q=t", "/a//b", "/a/b", "/a///b", "/", "//", "", "?q", "/a/b/c", "/a/b/c/",
                        "a/b/c", "/xAy", "/x%41y", "/a/b/c//"]

    /// `path` with its first letter before any `?`/`#` written as `%XX`: the same decoded path,
    /// matched the general way.
    static func encoded(_ path: String) -> String? {
        let end = path.firstIndex { $0 == "?" || $0 == "#" } ?? path.endIndex
        guard let letter = path[..<end].firstIndex(where: \.isLetter) else { return nil }
        let hex = String(path[letter].asciiValue!, radix: 16, uppercase: true)
        return path[..<letter] + "%" + hex + path[path.index(after: letter)...]
    }

    @Test(arguments: patterns)
    func bytesAndTheGeneralMatchAgree(pattern text: String) throws {
        let pattern = try PathPattern(text)
        for path in Self.paths {
            guard let slow = Self.encoded(path) else { continue }
            #expect(pattern.match(path) == pattern.match(slow), "\(text) against \(path) and \(slow)")
        }
    }

    @Test func literalPatternsMatchAsBefore() throws {
        #expect(try PathPattern("/users.json").match("/users.json?page=2") == [:])
        #expect(try PathPattern("/users.json").match("/small.json") == nil)
        #expect(try PathPattern("/a//b").match("/a//b/") == [:])
        #expect(try PathPattern("/a//b").match("/a/b") == nil)
        #expect(try PathPattern("/").match("") == [:])
        #expect(try PathPattern("/").match("//") == nil)
        #expect(try PathPattern("/caf%C3%A9").match("/café") == [:])  // non-ASCII: the general match
        #expect(try PathPattern("/x%41y").match("/xAy") == [:])
    }
}
