import Gatewire
import Testing

/// Dot segments (`.` and `..`, RFC 3986 sections 3.3 and 5.2.4) in path parameters, raw
/// paths, route patterns and the base URL: refused, never resolved. The end-to-end cases
/// (what the server saw) are the `limit_dot_segment_*` and `limit_path_sent_is_path_reported`
/// entries of `Tests/cases/resilience_cases.json`.
@Suite struct DotSegmentTests {
    @Test("a parameter that is . or .. in any encoding is refused, naming it", arguments: [
        ".", "..", "%2e", "%2E%2e", ".%2e", "%2e.", "%252e%252e", "%25252E", "../admin", "a/../b", "..\\x", "..%2Fx",
    ])
    func dotParameterRefused(_ value: String) {
        #expect(throws: RouterError.self) { try Router.build("/users/:id/sessions", parameters: ["id": value]) }
        do {
            _ = try Router.build("/users/:id/sessions", parameters: ["id": value])
        } catch {
            #expect(error.message.hasPrefix("path parameter \"id\" is "), "\(error.message)")
            #expect(error.message.contains("RFC 3986 section 5.2.4"))
        }
    }

    @Test("dots that do not make a dot segment pass, encoded as one segment", arguments: [
        ("...", "/users/.../sessions"), (".hidden", "/users/.hidden/sessions"), ("a..b", "/users/a..b/sessions"),
        ("v1.2", "/users/v1.2/sessions"), ("%2e%2ex", "/users/%252e%252ex/sessions"), ("..;", "/users/..%3B/sessions"),
    ])
    func ordinaryDots(_ value: String, _ path: String) throws {
        #expect(try Router.build("/users/:id/sessions", parameters: ["id": value]) == path)
    }

    @Test("a query parameter may hold dots: it is not a path segment")
    func queryDots() throws {
        #expect(try Router.build("/files", parameters: ["next": "../x"]) == "/files?next=..%2Fx")
    }

    @Test("a route pattern or a base URL with a dot segment is a config error naming the field")
    func configRefusals() {
        for pattern in ["/a/../b", "/./x", "/x/%2e%2E/y", "/x/.."] {
            let json = #"{"baseURL": "http://127.0.0.1:1", "routes": {"r": {"method": "GET", "pathPattern": "\#(pattern)"}}}"#
            #expect(throws: ConfigError.self) { try GatewayConfig(json: json) }
            do {
                _ = try GatewayConfig(json: json)
            } catch {
                #expect(error.path == "routes.r.pathPattern" && error.message.contains("dot segment"), "\(error)")
            }
        }
        for url in ["http://127.0.0.1:1/api/../v1", "http://127.0.0.1:1/./api", "http://127.0.0.1:1/api/%2E%2E"] {
            #expect(GatewayConfig.baseURLProblem(url)?.contains("dot segment") == true, "\(url)")
        }
        #expect(GatewayConfig.baseURLProblem("http://127.0.0.1:1/api/v1.2/...") == nil)
    }
}
