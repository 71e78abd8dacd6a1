import GatewireDescriptors
import Testing

/// The RFC 8288 `Link` field-value parser behind Link-header pagination.
@Suite struct LinkHeaderTests {
    /// GitHub's header from the recording (`github-issues-list-page1.headers.json`).
    static let github = #"<https://api.github.com/repositories/1000/issues?per_page=3&page=2>; rel="next", <https://api.github.com/repositories/1000/issues?per_page=3&page=5>; rel="last""#

    @Test func githubFirstPageHasNextAndLast() {
        let links = LinkHeader.parse(Self.github)
        #expect(links.map(\.target) == ["https://api.github.com/repositories/1000/issues?per_page=3&page=2",
                                        "https://api.github.com/repositories/1000/issues?per_page=3&page=5"])
        #expect(links.map(\.relations) == [["next"], ["last"]])
        #expect(LinkHeader.target("next", in: Self.github) == "https://api.github.com/repositories/1000/issues?per_page=3&page=2")
    }

    /// A backslash as the last byte, inside a quoted string of an element being skipped: the
    /// skip steps over it and past the end, and the parse must still end (libFuzzer found the
    /// loop: `fuzz-headers` timed out on such a value).
    @Test func aFinalBackslashInASkippedQuoteEndsTheParse() {
        let links = LinkHeader.parse(#"<a>; rel="next", x"\"#)
        #expect(links.map(\.target) == ["a"])
        #expect(links.map(\.relations) == [["next"]])
        #expect(LinkHeader.parse("\u{3}<https://a/b?c=1>; r/el=\"prev ne \\\\\\") == [])
    }

    @Test func githubLastPageHasNoNext() {
        let last = #"<https://api.github.com/repositories/1000/issues?per_page=3&page=4>; rel="prev", <https://api.github.com/repositories/1000/issues?per_page=3&page=1>; rel="first""#
        #expect(LinkHeader.target("next", in: last) == nil)
        #expect(LinkHeader.target("FIRST", in: last) == "https://api.github.com/repositories/1000/issues?per_page=3&page=1")
    }

    @Test(arguments: [
        // RFC 8288 section 3.5's examples.
        (#"<http://example.com/TheBook/chapter2>; rel="previous"; title="previous chapter""#, "previous", "http://example.com/TheBook/chapter2"),
        (#"</>; rel="http://example.net/foo""#, "http://example.net/foo", "/"),
        (##"</terms>; rel="copyright"; anchor="#foo""##, "copyright", "/terms"),
        // Several relation types in one rel, token (unquoted) values, odd spacing and case.
        (#"<http://example.org/>; rel="start http://example.net/relation/other""#, "start", "http://example.org/"),
        (#"<a> ;REL = next"#, "next", "a"),
        // Commas inside the URI and inside quoted strings do not split links.
        (#"<http://x/?a=1,2>; title="a, b"; rel=prev, <http://x/n>; rel=next"#, "next", "http://x/n"),
        (#"<http://x/?a=1,2>; title="a, b"; rel=prev, <http://x/n>; rel=next"#, "prev", "http://x/?a=1,2"),
        // Escapes in quoted strings; empty list elements.
        (#", , <http://x/2>; title="say \"hi\""; rel="next",,"#, "next", "http://x/2"),
        // A malformed link is skipped, the rest still read.
        (#"http://bad; rel=next, <http://x/good>; rel=next"#, "next", "http://x/good"),
        (#"<http://x/1>; rel="next" junk, <http://x/2>; rel=next"#, "next", "http://x/2"),
        // Only the first rel counts (section 3.3).
        (#"<http://x/1>; rel=prev; rel=next, <http://x/2>; rel=next"#, "next", "http://x/2"),
    ])
    func findsTheTarget(field: String, relation: String, target: String) {
        #expect(LinkHeader.target(relation, in: field) == target)
    }

    @Test func parametersAreKeptInOrderWithUnquotedValues() {
        let links = LinkHeader.parse(#"<http://example.com/TheBook/chapter2>; rel="previous"; Title="previous \"chapter\""; hreflang"#)
        #expect(links.count == 1)
        #expect(links[0].parameters.map(\.name) == ["rel", "title", "hreflang"])
        #expect(links[0].parameters.map(\.value) == ["previous", #"previous "chapter""#, ""])
    }

    @Test(arguments: ["", " ", "garbage", "<unterminated; rel=next", #"<http://x/>; rel="unterminated"#, "<http://x/>; =next"])
    func malformedFieldsGiveNoNext(field: String) {
        #expect(LinkHeader.target("next", in: field) == nil)
    }
}
