import Gatewire
import Testing

/// Bodies beyond JSON (raw bytes with a content type, form fields) and query parameters of
/// several values or other types, as a real httpbin (``HTTPBinServer``) saw them: its
/// `/anything` echoes the decoded query (`args`), the form fields (`form`), the raw body
/// (`data`) and the headers.
@Suite(.serialized) struct BodiesAndListParameterTests {
    let httpbin: HTTPBinServer

    init() throws { httpbin = try HTTPBinServer() }

    func client(_ style: String? = nil) throws -> Client {
        let key = style.map { ", \"arrayParameters\": \"\($0)\"" } ?? ""
        return try Client(config: GatewayConfig(json: "{\"baseURL\": \"\(httpbin.baseURL)\"\(key)}"))
    }

    /// The echo of `request`: the path sent and httpbin's JSON.
    func echo(_ request: Request, style: String? = nil) async throws -> (path: String, body: JSONValue) {
        let response = try await client(style).send(request)
        #expect(response.status == 200)
        return (response.path, try JSONValue.parse(response.http.text))
    }

    func strings(_ node: JSONNode?) -> [String] { node?.elements.compactMap(\.string) ?? [] }

    @Test func listParametersAreRepeatedByDefault() async throws {
        var request = Request.get("/anything", parameters: ["q": "a b"])
        request.setParameter("ids", [1, 2])
        request.listParameters["tags"] = ["x,y", "é&="]
        let (path, body) = try await echo(request)
        #expect(path == "/anything?q=a%20b&ids=1&ids=2&tags=x%2Cy&tags=%C3%A9%26%3D")
        #expect(body.node["args"]?["q"]?.string == "a b")
        #expect(strings(body.node["args"]?["ids"]) == ["1", "2"])
        #expect(strings(body.node["args"]?["tags"]) == ["x,y", "é&="])
    }

    @Test func listParametersInTheBracketsStyle() async throws {
        var request = Request.get("/anything")
        request.setParameter("ids", [1, 2])
        let (path, body) = try await echo(request, style: "brackets")
        #expect(path == "/anything?ids%5B%5D=1&ids%5B%5D=2")
        #expect(strings(body.node["args"]?["ids[]"]) == ["1", "2"])
    }

    @Test func aSecretListIsHiddenInEveryStyle() async throws {
        for (style, shown) in [("repeat", "/anything?token=<redacted>&token=<redacted>"),
                               ("brackets", "/anything?token%5B%5D=<redacted>&token%5B%5D=<redacted>"),
                               ("comma", "/anything?token=<redacted>")] {
            var request = Request.get("/anything")
            request.listParameters["token"] = ["s3cret-1", "s3cret-2"]
            let response = try await client(style).send(request)
            #expect(response.path == shown)
            #expect(!response.path.contains("s3cret"))
        }
    }

    @Test func listParametersInTheCommaStyleKeepACommaInsideAValueEncoded() async throws {
        var request = Request.get("/anything")
        request.listParameters["ids"] = ["1", "2,3"]
        let (path, body) = try await echo(request, style: "comma")
        #expect(path == "/anything?ids=1,2%2C3")
        #expect(body.node["args"]?["ids"]?.string == "1,2,3")  // the server decodes %2C as well
    }

    @Test func theCallsStyleReplacesTheConfigsAndAnEmptyListSendsNothing() async throws {
        var request = Request.get("/anything")
        request.setParameter("ids", [1, 2])
        request.setParameter("none", [String]())
        request.options.arrayParameters = .comma
        let (path, body) = try await echo(request, style: "brackets")
        #expect(path == "/anything?ids=1,2")
        #expect(body.node["args"]?["ids"]?.string == "1,2")
        #expect(body.node["args"]?["none"] == nil)
    }

    @Test func nonStringParametersAreSentAsJSONText() async throws {
        var request = Request.get("/anything/:id")
        request.setParameter("id", 7)
        request.setParameter("open", true)
        request.setParameter("closed", false)
        request.setParameter("ratio", 2.5)
        request.setParameter("flags", [true, false])
        let (path, body) = try await echo(request)
        #expect(path == "/anything/7?closed=false&open=true&ratio=2.5&flags=true&flags=false")
        #expect(body.node["args"]?["open"]?.string == "true")
        #expect(body.node["args"]?["ratio"]?.string == "2.5")
    }

    @Test func anUnknownArrayParametersStyleIsAConfigErrorNamingIt() {
        #expect(throws: ConfigError.self) {
            _ = try GatewayConfig(json: "{\"baseURL\": \"http://127.0.0.1:1\", \"arrayParameters\": \"semicolon\"}")
        }
        do {
            _ = try GatewayConfig(json: "{\"baseURL\": \"http://127.0.0.1:1\", \"arrayParameters\": \"semicolon\"}")
        } catch {
            #expect(error.description.contains("arrayParameters"))
            #expect(error.description.contains("unknown style \"semicolon\" (expected one of: repeat, brackets, comma)"))
        }
    }

    @Test func aFormBodyIsEncodedAsTheWHATWGFormSerializer() async throws {
        let fields: [(name: String, value: String)] = [("name", "Ann Lee"), ("note", "a+b&c=d/é~"), ("ids", "1"), ("ids", "2")]
        let response = try await client().send(Request(.post, "/anything", body: .form(fields)))
        let body = try JSONValue.parse(response.http.text).node
        #expect(body["headers"]?["Content-Type"]?.string == "application/x-www-form-urlencoded")
        #expect(body["form"]?["name"]?.string == "Ann Lee")
        #expect(body["form"]?["note"]?.string == "a+b&c=d/é~")
        #expect(strings(body["form"]?["ids"]) == ["1", "2"])
        #expect(FormEncoding.body(fields: fields) == "name=Ann+Lee&note=a%2Bb%26c%3Dd%2F%C3%A9~&ids=1&ids=2")
    }

    @Test func rawBytesGoOutAsTheyAreWithTheirContentType() async throws {
        let bytes = Array("line one\nline two, with \u{e9}".utf8)
        let response = try await client().send(Request(.put, "/anything", body: .bytes(bytes, contentType: "text/csv; charset=utf-8")))
        let body = try JSONValue.parse(response.http.text).node
        #expect(body["method"]?.string == "PUT")
        #expect(body["headers"]?["Content-Type"]?.string == "text/csv; charset=utf-8")
        #expect(body["headers"]?["Content-Length"]?.string == String(bytes.count))
        #expect(body["data"]?.string == "line one\nline two, with \u{e9}")
    }

    @Test func aCallsContentTypeHeaderWinsOverTheFormsDefault() async throws {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
        let request = Request(.post, "/anything", headers: headers, body: .form([("a", "1")]))
        let body = try await echo(request).body.node
        #expect(body["headers"]?["Content-Type"]?.string == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(body["form"]?["a"]?.string == "1")
    }
}
