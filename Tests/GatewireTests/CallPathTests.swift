import Gatewire
import Testing

/// What a path given to a call means, against a real httpbin (``HTTPBinServer``), whose
/// `/anything` echoes the URL it was asked under `url`: an absolute URL on the base URL's
/// origin is called (and seen as the relative path inside the base URL's path), one on
/// another origin is refused before anything is sent; the colons of a plain path are data
/// unless a parameter names them; a route's pattern keeps its promise (a missing `:name` is an
/// error) and `\:` in it is a literal colon.
@Suite(.serialized) struct CallPathTests {
    let httpbin: HTTPBinServer

    init() throws { httpbin = try HTTPBinServer() }

    struct Echo: Decodable { let url: String }

    func echoedURL(_ response: Response) throws -> String { try response.decode(Echo.self).url }

    @Test func anAbsoluteURLOnTheBaseOriginIsCalled() async throws {
        let client = try Client(baseURL: httpbin.baseURL)
        let response = try await client.send(Request.get(httpbin.baseURL + "/anything/x?q=1"))
        #expect(response.status == 200)
        #expect(response.path == "/anything/x?q=1")
        #expect(response.url == httpbin.baseURL + "/anything/x?q=1")
        #expect(try echoedURL(response) == httpbin.baseURL + "/anything/x?q=1")
        // The origin compares as libcurl reads it: the default port and the host's case do not matter.
        let upper = "HTTP://127.0.0.1:\(httpbin.port)/anything/y"
        #expect(try echoedURL(await client.send(Request.get(upper))) == httpbin.baseURL + "/anything/y")
    }

    @Test func anAbsoluteURLInsideTheBasePathIsTheRelativeCall() async throws {
        let client = try Client(baseURL: httpbin.baseURL + "/anything/api/")
        let inside = try await client.send(Request.get(httpbin.baseURL + "/anything/api/users/7", parameters: ["a": 1]))
        #expect(inside.path == "/users/7?a=1")
        #expect(try echoedURL(inside) == httpbin.baseURL + "/anything/api/users/7?a=1")
        let outside = try await client.send(Request.get(httpbin.baseURL + "/anything/other"))
        #expect(outside.path == "/anything/other")
        #expect(try echoedURL(outside) == httpbin.baseURL + "/anything/other")
    }

    @Test(arguments: ["http://127.0.0.2:%d/anything", "http://localhost:%d/anything", "https://127.0.0.1:%d/anything",
                      "http://127.0.0.1:1/anything"])
    func anAbsoluteURLOnAnotherOriginIsRefused(_ format: String) async throws {
        let client = try Client(baseURL: httpbin.baseURL)
        let url = format.replacing("%d", with: String(httpbin.port))
        do {
            let response = try await client.send(Request.get(url))
            Issue.record("sent: \(response.status) \(response.path)")
        } catch {
            #expect(error.kind == .invalidArgument)
            #expect(error.attempts.isEmpty)
            #expect(error.message.hasPrefix("the URL \(url) is on origin "))
            #expect(error.message.contains("not on the base URL's (http://127.0.0.1:\(httpbin.port))"))
        }
    }

    @Test func colonsOfAPlainPathAreData() async throws {
        let client = try Client(baseURL: httpbin.baseURL)
        let urn = try await client.send(Request.get("/anything/urn:isbn:0451450523"))
        #expect(urn.path == "/anything/urn:isbn:0451450523")
        #expect(try echoedURL(urn) == httpbin.baseURL + "/anything/urn:isbn:0451450523")
        let time = try await client.send(Request.get("/anything/at/2026-12-06T05:17:14Z"))
        #expect(try echoedURL(time) == httpbin.baseURL + "/anything/at/2026-12-06T05:17:14Z")
        // A parameter that names a :name of the path still fills it; the other colons stay.
        let filled = try await client.send(Request.get("/anything/:kind/urn:isbn", parameters: ["kind": "books"]))
        #expect(filled.path == "/anything/books/urn:isbn")
    }

    @Test func aRoutesPatternPromisesItsNamesAndEscapesAColon() async throws {
        let config = try GatewayConfig(json: """
            {"baseURL": "\(httpbin.baseURL)", "routes": {
              "book": {"method": "GET", "pathPattern": "/anything/urn\\\\:isbn\\\\::isbn"},
              "user": {"method": "GET", "pathPattern": "/anything/users/:id"}}}
            """)
        let client = try Client(config: config)
        let book = try await client.send(Request(route: "book", parameters: ["isbn": "0451450523"]))
        #expect(try echoedURL(book) == httpbin.baseURL + "/anything/urn:isbn:0451450523")
        do {
            _ = try await client.send(Request(route: "user"))
            Issue.record("a route called without its :id")
        } catch {
            #expect(error.kind == .invalidArgument)
            #expect(error.message == "missing parameter \"id\" for path pattern /anything/users/:id: a pattern's :name is "
                + "filled from the parameters; write \\: (or %3A) for a colon that is data")
        }
    }

    @Test("a route's requiredQuery: a call without one of them fails before anything is sent; with them, they are the query")
    func requiredQueryParameters() async throws {
        let config = try GatewayConfig(json: #"""
            {"baseURL": "\#(httpbin.baseURL)",
             "routes": {"search": {"method": "GET", "pathPattern": "/anything/search", "requiredQuery": ["q", "type"]}}}
            """#)
        #expect(config.routes["search"]?.requiredQuery == ["q", "type"])
        let client = try Client(config: config)
        let found = try await client.send(Request(route: "search", parameters: ["q": "gate", "type": "track"]))
        #expect(try echoedURL(found) == httpbin.baseURL + "/anything/search?q=gate&type=track")
        let error = await #expect(throws: GatewireError.self) {
            try await client.send(Request(route: "search", parameters: ["q": "gate"]))
        }
        #expect(error?.kind == .invalidArgument)
        #expect(error?.message == "missing query parameter \"type\" of route search (its requiredQuery)")
        #expect(error?.attempts.isEmpty == true)
        #expect(throws: ConfigError.self) {
            try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "routes": {"r": {"method": "GET", "pathPattern": "/", "requiredQuery": [""]}}}"#)
        }
    }
}
