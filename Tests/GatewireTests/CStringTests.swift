import Gatewire
import Glibc
import Testing

/// Text that reaches C as a NUL-terminated string (a path to `open(2)` or libcurl, a part's
/// name, a URL) and holds a NUL: refused with a message naming the field, never cut short at
/// the NUL (a part from `"secret\0.png"` would upload `secret`, a download to `"out.bin\0x"`
/// would write `out.bin`). Calls are refused before anything reaches the scripted test server.
@Suite(.serialized) struct CStringTests {
    let server: TestServer
    let folder: String

    init() throws {
        server = try TestServer()
        folder = TestFiles.folder("gatewire-cstring")
    }

    func client() throws -> Client { try Client(baseURL: server.baseURL) }

    /// What the server answered for every multipart request of `key`.
    func log(_ key: String) async throws -> [JSONNode] {
        let response = try await client().send(.get("/multipart/\(key)/log"))
        return try JSONValue.parse(response.http.text).node["attempts"]?.elements ?? []
    }

    /// The message of the `invalidArgument` failure `request` ends with before any attempt.
    func refusal(_ request: Request) async throws -> String? {
        let client = try client()
        do {
            _ = try await client.send(request)
            return nil
        } catch {
            #expect(error.kind == .invalidArgument)
            #expect(error.attempts.isEmpty)
            return error.message
        }
    }

    func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    @Test func aPartWhoseNameOrPathHoldsNULIsRefusedBeforeSending() async throws {
        let secret = folder + "/secret"
        let handle = try #require(fopen(secret, "wb"))
        fputs("TOPSECRET", handle)
        fclose(handle)
        let byPath = Request(.post, "/multipart/nul-path/200", body: .multipart([.file("avatar", path: secret + "\0.png")]))
        #expect(try await refusal(byPath) == "file part \"avatar\": the path contains NUL at byte \(secret.utf8.count) "
            + "(C ends a string at its first NUL, so the rest would be lost)")
        let byName = Request(.post, "/multipart/nul-path/200", body: .multipart([.bytes("a\0b", Array("x".utf8))]))
        #expect(try await refusal(byName) == "part \"a\\0b\": the name contains NUL at byte 1 "
            + "(C ends a string at its first NUL, so the rest would be lost)")
        let field = Request(.post, "/multipart/nul-path/200", body: .multipart([.field("n\0", "v")]))
        #expect(try await refusal(field)?.hasPrefix("part \"n\\0\": the name contains NUL at byte 1") == true)
        #expect(try await log("nul-path").isEmpty)
        // A field's value is sent with its length: a NUL in it is data, as in any body.
        let value = try await client().send(Request(.post, "/multipart/nul-value/200", body: .multipart([.field("v", "a\0b")])))
        #expect(value.status == 200)
        #expect(try JSONValue.parse(value.http.text).node["parts"]?.elements.first?["size"]?.integer == 3)
    }

    @Test func aDownloadDestinationOrPathHoldingNULIsRefused() async throws {
        var download = Request(.get, "/bytes/100")
        download.options.bodySink = .file(folder + "/out.bin\0.part")
        #expect(try await refusal(download) == "download destination: the path contains NUL at byte \(folder.utf8.count + 8) "
            + "(C ends a string at its first NUL, so the rest would be lost)")
        #expect(!exists(folder + "/out.bin"))
        #expect(try await refusal(Request(.get, "/echo\0/ignored"))?.hasPrefix("path: the path contains NUL at byte 5") == true)
    }

    @Test func configPathsAndURLsHoldingNULAreConfigErrors() {
        let base = server.baseURL
        let cases: [(json: String, expected: String)] = [
            (#"{"baseURL": "\#(base)", "cookies": {"file": "jar\u0000.txt"}}"#, "cookies.file: the path contains NUL at byte 3"),
            (#"{"baseURL": "\#(base)", "cache": {"directory": "c\u0000ache"}}"#, "cache.directory: the path contains NUL at byte 1"),
            (#"{"baseURL": "\#(base)", "caFile": "/etc/ssl/certs/ca-certificates.crt\u0000x"}"#,
             "caFile: the path contains NUL at byte 34"),
            (#"{"baseURL": "\#(base)", "plugins": [{"path": "lib\u0000x.so"}]}"#, "plugins[0].path: the path contains NUL at byte 3"),
            (#"{"baseURL": "\#(base)", "plugins": [{"path": "/x.so", "symbol": "entry\u0000"}]}"#,
             "plugins[0].symbol: the symbol contains NUL at byte 5"),
            (#"{"baseURL": "\#(base)/v1\u0000/x"}"#, "baseURL: the URL contains NUL at byte \(base.utf8.count + 3)"),
            (#"{"baseURL": "\#(base)", "proxy": "http://proxy\u0000.example"}"#, "proxy: the URL contains NUL at byte 12"),
            (#"{"baseURL": "\#(base)", "noProxy": "a\u0000b"}"#, "noProxy: the text contains NUL at byte 1"),
            (#"{"baseURL": "\#(base)", "routes": {"r": {"method": "GET", "pathPattern": "/a\u0000b"}}}"#,
             "routes.r.pathPattern: the pattern contains NUL at byte 2"),
        ]
        for (json, expected) in cases {
            let message = configError(json)?.description ?? "(loaded)"
            #expect(message == expected + " (C ends a string at its first NUL, so the rest would be lost)", "\(json)")
        }
    }

    @Test func settingsAProgramSetsItselfAreCheckedWhenTheClientIsMade() throws {
        var config = try GatewayConfig(baseURL: server.baseURL)
        config.cookies = CookieJar(file: folder + "/jar\0.txt")
        #expect(throws: ConfigError.self) { try Client(config: config) }
        do {
            _ = try Client(config: config)
        } catch {
            #expect(error.description == "cookies.file: the path contains NUL at byte \(folder.utf8.count + 4) "
                + "(C ends a string at its first NUL, so the rest would be lost)")
        }
        #expect(!exists(folder + "/jar"))
        config.cookies = nil
        config.cache = HTTPCacheSettings(directory: folder + "/c\0")
        #expect(config.cStringProblem?.path == "cache.directory")
        config.cache = nil
        config.proxy = "http://p\0"
        #expect(config.cStringProblem?.path == "proxy")
        config.proxy = nil
        #expect(config.cStringProblem == nil)
        #expect(throws: ConfigError.self) { try CookieJar(commandLineFile: folder + "/cli\0jar") }
    }
}
