import Gatewire
import Glibc
import Testing

/// Where a client's config comes from (``GatewayConfig/Source``): the rule the C options,
/// the CLI, Python (through C) and ``Client``'s convenience initialisers share.
@Suite struct ConfigSourceTests {
    static let json = #"{"baseURL": "http://127.0.0.1:1/api", "routes": {"ping": {"method": "GET", "pathPattern": "/ping"}}}"#

    /// A config file with `text` in a new temporary directory; its path.
    static func file(_ text: String) throws -> String {
        var template = Array("/tmp/gatewire-source-XXXXXX".utf8CString)
        let directory = try #require(mkdtemp(&template).map { String(cString: $0) })
        let path = directory + "/gateway.json"
        let handle = try #require(fopen(path, "w"))
        fputs(text, handle)
        fclose(handle)
        return path
    }

    @Test func oneSourceIsChosenFromWhatIsSet() throws {
        #expect(try GatewayConfig.Source(json: "{}", file: nil, baseURL: nil) == .json("{}"))
        #expect(try GatewayConfig.Source(json: "{}", file: nil, baseURL: "http://h") == .json("{}", baseURL: "http://h"))
        #expect(try GatewayConfig.Source(json: nil, file: "a.json", baseURL: "http://h") == .file("a.json", baseURL: "http://h"))
        #expect(try GatewayConfig.Source(json: nil, file: nil, baseURL: "http://h") == .baseURL("http://h"))
        #expect(throws: GatewayConfig.Source.Problem.missing) { try GatewayConfig.Source(json: nil, file: nil, baseURL: nil) }
        #expect(throws: GatewayConfig.Source.Problem.jsonAndFile) {
            try GatewayConfig.Source(json: "{}", file: "a.json", baseURL: "http://h")
        }
    }

    @Test func loadReadsTheConfigAndReplacesItsBaseURL() throws {
        let text = try GatewayConfig.Source.json(Self.json).load()
        #expect(text.baseURL == "http://127.0.0.1:1/api")
        #expect(text.routes["ping"]?.pathPattern == "/ping")
        let moved = try GatewayConfig.Source.json(Self.json, baseURL: "http://127.0.0.1:2").load()
        #expect(moved.baseURL == "http://127.0.0.1:2")
        #expect(moved.routes["ping"]?.pathPattern == "/ping")
        let path = try Self.file(Self.json)
        let file = try GatewayConfig.Source.file(path, baseURL: "https://example.org/v2").load()
        #expect(file.baseURL == "https://example.org/v2")
        #expect(file.routes.keys.sorted() == ["ping"])
        let bare = try GatewayConfig.Source.baseURL("http://127.0.0.1:3").load()
        #expect(bare.baseURL == "http://127.0.0.1:3")
        #expect(bare.routes.isEmpty)
        #expect(try Client(configFile: path).config.routes.keys.sorted() == ["ping"])
        #expect(try Client(baseURL: "http://127.0.0.1:3").config.baseURL == "http://127.0.0.1:3")
    }

    @Test func loadThrowsTheConfigsErrors() throws {
        let badURL = #expect(throws: ConfigError.self) { try GatewayConfig.Source.json(Self.json, baseURL: "ftp://h").load() }
        #expect(badURL?.path == "baseURL")
        #expect(badURL?.message == #"must be an absolute http:// or https:// URL, got "ftp://h""#)
        let alone = #expect(throws: ConfigError.self) { try GatewayConfig.Source.baseURL("/relative").load() }
        #expect(alone?.path == "baseURL")
        let field = #expect(throws: ConfigError.self) {
            try GatewayConfig.Source.json(#"{"baseURL": "http://h", "retry": {"maxRetries": -1}}"#).load()
        }
        #expect(field?.path == "retry.maxRetries")
        let missing = #expect(throws: ConfigError.self) { try GatewayConfig.Source.file("/nonexistent/gateway.json").load() }
        #expect(missing?.path == "")
        #expect(missing?.message.hasPrefix("/nonexistent/gateway.json: ") == true)
    }
}
