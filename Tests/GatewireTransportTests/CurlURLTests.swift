import GatewireTransport
import Testing

/// The URL parts the pipeline reads through the transport's libcurl URL parser (origins for
/// redirects, queries for redaction): the values libcurl 7.88 gives.
@Suite struct CurlURLTests {
    @Test("scheme, host and the port, explicit or the scheme's default")
    func parts() throws {
        let url = try #require(CurlURL("HTTP://API.Test/a?x=1"))
        #expect(url.scheme == "http")  // libcurl lower-cases the scheme
        #expect(url.host == "API.Test")
        #expect(url.port == 80)
        #expect(url.query == "x=1")
        #expect(try #require(CurlURL("https://[::1]:8443/")).host == "[::1]")
        #expect(try #require(CurlURL("https://[::1]:8443/")).port == 8443)
        #expect(try #require(CurlURL("https://a.test")).port == 443)
        #expect(try #require(CurlURL("https://a.test/")).query == nil)
    }

    @Test("a URL libcurl cannot parse as absolute gives nil", arguments: ["", "/relative/path", "http://", "http://a b/"])
    func unparsable(text: String) {
        #expect(CurlURL(text) == nil)
    }

    @Test("the query replaced, or removed with nil; the rest kept")
    func query() throws {
        let url = try #require(CurlURL("http://127.0.0.1:8080/p/q?sig=1&q=%20x#frag"))
        #expect(url.setQuery("q=%20x"))
        #expect(url.text == "http://127.0.0.1:8080/p/q?q=%20x#frag")
        #expect(url.setQuery(nil))
        #expect(url.text == "http://127.0.0.1:8080/p/q#frag")
    }
}
