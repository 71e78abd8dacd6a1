import CCurl
import Gatewire
import Testing

/// Response headers are collected from libcurl's header callback and split into strings only
/// when read: they must list what libcurl's own headers API lists for the final response.
@Suite struct ResponseHeaderTests {
    /// What `curl_easy_nextheader(easy, CURLH_HEADER, -1, ...)` lists for `url` (redirects
    /// followed). libcurl 7.88 leaves an empty value as "\r" (its trailing-space trim stops at
    /// the value's start); Gatewire gives "", so that one quirk is mapped to "".
    static func libcurlFields(_ url: String) -> [HTTPHeaders.Field] {
        let easy = curl_easy_init()!
        defer { curl_easy_cleanup(easy) }
        _ = gw_easy_setopt_str(easy, CURLOPT_URL, url)
        _ = gw_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1)
        _ = gw_easy_setopt_datacb(easy, CURLOPT_WRITEFUNCTION, { _, size, count, _ in size * count })
        guard curl_easy_perform(easy) == CURLE_OK else { return [] }
        var fields: [HTTPHeaders.Field] = []
        var previous: UnsafeMutablePointer<curl_header>?
        while let header = curl_easy_nextheader(easy, UInt32(CURLH_HEADER), -1, previous) {
            let value = String(cString: header.pointee.value)
            fields.append(HTTPHeaders.Field(name: String(cString: header.pointee.name), value: value == "\r" ? "" : value))
            previous = header
        }
        return fields
    }

    @Test(arguments: ["", "?hints=1", "?chunked=1", "?redirect=1"])
    func headersAreLibcurlsFieldsOfTheFinalResponse(query: String) async throws {
        let server = try TestServer()
        let client = try Client(baseURL: server.baseURL)
        let response = try await client.send(.get("/raw-headers" + query))
        let expected = Self.libcurlFields(server.baseURL + "/raw-headers" + query)
        #expect(expected.count >= 8)
        #expect(response.http.headers.fields == expected)
        #expect(response.http.headers.count == expected.count)
        let headers = response.http.headers
        #expect(headers["content-type"] == "application/json")
        #expect(headers["X-FOLDED"] == "first second part\tthird")  // folded lines: one blank kept
        #expect(headers.values(for: "x-twice") == ["one", "two"])
        #expect(headers["X-Empty"] == "")
        #expect(headers["X-Colon"] == "a: b")
        #expect(headers["X-Tab"] == "value")
        #expect(headers["X-Trailer"] == nil)  // a trailer is not a header field
        #expect(headers["X-Redirect"] == nil)  // the redirect's own fields are not the final response's
        #expect(headers["Link"] == nil)  // nor the 103's
        #expect(headers["X-Missing"] == nil)
        #expect(response.body?.node.kind == .object)  // the padded Content-Type still reads as JSON
    }

    @Test func headersReadAfterTheCallFromManyThreadsAgree() async throws {
        let server = try TestServer()
        let client = try Client(baseURL: server.baseURL)
        let response = try await client.send(.get("/raw-headers"))
        let expected = Self.libcurlFields(server.baseURL + "/raw-headers")
        // Every task is the first to split the same block: each sees the same fields.
        let seen = await withTaskGroup(of: [HTTPHeaders.Field].self) { group in
            for index in 0..<16 {
                group.addTask {
                    let headers = response.http.headers
                    return index.isMultiple(of: 2) ? headers.fields : headers.map { $0 }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(seen.count == 16)
        #expect(seen.allSatisfy { $0 == expected })
    }

    @Test func receivedHeadersAreValuesThatChangeOnlyInTheirCopy() async throws {
        let server = try TestServer()
        let client = try Client(baseURL: server.baseURL)
        let response = try await client.send(.get("/raw-headers"))
        var copy = response.http.headers
        #expect(copy == response.http.headers)
        copy.set("X-Twice", "three")
        copy.add("X-New", "new")
        copy.remove("x-empty")
        #expect(copy.values(for: "x-twice") == ["three"])
        #expect(copy["x-new"] == "new")
        #expect(copy["X-Empty"] == nil)
        #expect(copy != response.http.headers)
        #expect(response.http.headers.values(for: "x-twice") == ["one", "two"])
        #expect(response.http.headers["X-Empty"] == "")
        #expect(HTTPHeaders(response.http.headers.fields) == response.http.headers)
    }
}
