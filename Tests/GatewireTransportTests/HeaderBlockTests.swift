import CCurl
import GatewireBase
import GatewireTransport
import Testing

/// The header list a transfer hands libcurl, built as one block: the lines libcurl reads
/// by walking `curl_slist` as it would.
@Suite struct HeaderBlockTests {
    /// The lines of `list`, walked as libcurl walks it (`data`, then `next` until nil).
    private func lines(_ list: UnsafeMutablePointer<curl_slist>?) -> [String] {
        var result: [String] = []
        var node = list
        while let current = node {
            result.append(String(cString: current.pointee.data))
            node = current.pointee.next
        }
        return result
    }

    @Test("each field as `name: value`, an empty value as `name;`, then the extra lines in order")
    func fieldsThenExtraLines() {
        var headers = HTTPHeaders()
        headers.add("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        headers.add("X-Empty", "")
        headers.add("X-Value", "café")  // obs-text passes through byte for byte
        let list = HeaderBlock.make(headers, "Expect:", "Accept-Encoding: deflate, gzip")
        defer { HeaderBlock.free(list) }
        #expect(lines(list) == ["traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "X-Empty;",
                                "X-Value: café", "Expect:", "Accept-Encoding: deflate, gzip"])
    }

    @Test("extra lines alone, either one, or nothing at all (nil: no list)")
    func extraLinesAlone() {
        let both = HeaderBlock.make(HTTPHeaders(), "Expect:", "Accept-Encoding: gzip")
        defer { HeaderBlock.free(both) }
        #expect(lines(both) == ["Expect:", "Accept-Encoding: gzip"])
        let second = HeaderBlock.make(HTTPHeaders(), nil, "Accept-Encoding: gzip")
        defer { HeaderBlock.free(second) }
        #expect(lines(second) == ["Accept-Encoding: gzip"])
        #expect(HeaderBlock.make(HTTPHeaders(), nil, nil) == nil)
    }
}
