import CCurl
import Gatewire
import Testing

/// Gatewire writes the `Accept-Encoding` field itself (libcurl would format it anew for
/// every request): the field on the wire must be libcurl's own, and a caller's field wins.
@Suite struct AcceptEncodingTests {
    /// The request fields the test server saw, from its `/headers` answer.
    static func seen(_ response: Response) throws -> [String: String] {
        let headers = try #require(response.body?.node["headers"])
        var fields: [String: String] = [:]
        for (name, value) in headers.members { fields[name] = value.string }
        return fields
    }

    /// The `Accept-Encoding` libcurl itself sends with `CURLOPT_ACCEPT_ENCODING` "".
    static func libcurlsOwn(_ url: String) -> String? {
        let easy = curl_easy_init()!
        defer { curl_easy_cleanup(easy) }
        final class Body { var bytes: [UInt8] = [] }
        let body = Body()
        _ = gw_easy_setopt_str(easy, CURLOPT_URL, url)
        _ = gw_easy_setopt_str(easy, CURLOPT_ACCEPT_ENCODING, "")
        _ = gw_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(body).toOpaque())
        _ = gw_easy_setopt_datacb(easy, CURLOPT_WRITEFUNCTION, { data, size, count, context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeUnretainedValue()
            data.map { body.bytes.append(contentsOf: UnsafeRawBufferPointer(start: $0, count: size * count)) }
            return size * count
        })
        guard curl_easy_perform(easy) == CURLE_OK,
              let json = try? JSONValue.parse(String(decoding: body.bytes, as: UTF8.self)) else { return nil }
        return json.node["headers"]?["accept-encoding"]?.string
    }

    @Test func theFieldIsLibcurlsOwnAndBodiesAreStillDecoded() async throws {
        let server = try TestServer()
        let client = try Client(baseURL: server.baseURL)
        let expected = try #require(Self.libcurlsOwn(server.baseURL + "/headers"))
        #expect(expected.contains("gzip"))
        for request in [Request.get("/headers"), Request(.get, "/headers", headers: ["X-Other": "1"]),
                        Request.post("/headers", body: .json(.string("x")))] {
            let fields = try Self.seen(try await client.send(request))
            #expect(fields["accept-encoding"] == expected, "\(request.method) with \(request.headers.count) fields")
            #expect(fields["expect"] == nil)
        }
        let gzipped = try await client.send(.get("/gzip"))
        #expect(gzipped.http.headers["content-encoding"] == "gzip")
        #expect(gzipped.body != nil)  // decoded, so parsed
    }

    @Test func aCallersAcceptEncodingWins() async throws {
        let server = try TestServer()
        let client = try Client(baseURL: server.baseURL)
        let response = try await client.send(Request(.get, "/headers", headers: ["accept-encoding": "identity"]))
        #expect(try Self.seen(response)["accept-encoding"] == "identity")
    }
}
