import Gatewire
import Glibc
import Testing

/// `gatewire check` through the real CLI binary: ambiguous descriptor pairs are warnings,
/// unknown fields are errors naming the field.
@Suite struct CheckCommandTests {
    /// The `gatewire` executable SwiftPM built next to the test bundle (or in .build/debug).
    static func binary() throws -> String {
        let (found, candidates) = CLIBinary.find(repoRoot: TestServer.repoRoot)
        guard let found else {
            throw TestServerError(description: "the gatewire CLI is not built (looked at \(candidates)); run swift build")
        }
        return found
    }

    /// Writes `config` to a temporary file, runs `gatewire check` on it (bounded by
    /// `timeout`), and returns its exit status and output.
    func check(_ config: String) throws -> (status: Int32, output: String) {
        var template = Array("/tmp/gw-check-XXXXXX.json".utf8CString)
        let fd = mkstemps(&template, 5)
        guard fd >= 0 else { throw TestServerError(description: "mkstemps failed") }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        defer { unlink(path) }
        _ = config.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        guard let pipe = popen("timeout 30 '\(try Self.binary())' check '\(path)' 2>&1", "r") else {
            throw TestServerError(description: "popen failed")
        }
        var output = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), pipe) != nil {
            output += buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
        let status = pclose(pipe)
        return ((status >> 8) & 0xFF, output)
    }

    @Test func ambiguousDescriptorPairsAreWarnings() throws {
        let (status, output) = try check(#"""
            {"baseURL": "http://127.0.0.1:1",
             "mappings": {"A": {"attributes": {"name": "a"}}, "B": {"attributes": {"name": "b"}}},
             "responseDescriptors": [{"mapping": "A", "pathPattern": "/repos/:owner/:repo"},
                                     {"mapping": "B", "method": "GET", "pathPattern": "/repos/:org/:name"},
                                     {"mapping": "B", "pathPattern": "/repos/:owner/:repo", "keyPath": "items"},
                                     {"mapping": "A", "pathPattern": "/repos/octokit/:repo"}]}
            """#)
        #expect(status == 0)
        #expect(output.contains("warning: responseDescriptors[1] (GET /repos/:org/:name @root 2xx -> B) and responseDescriptors[0] (ANY /repos/:owner/:repo @root 2xx -> A) are ambiguous"))
        #expect(!output.contains("responseDescriptors[2]"), "a different key path is not ambiguous")
        #expect(!output.contains("responseDescriptors[3]"), "a more specific pattern is not ambiguous")
        #expect(output.contains("OK (0 routes, 2 mappings, 4 response descriptors)"))
    }

    @Test func theSamePatternTwiceIsAWarning() throws {
        let (status, output) = try check(#"""
            {"baseURL": "http://127.0.0.1:1", "mappings": {"A": {"attributes": {"id": "id"}}},
             "errorDescriptors": [{"mapping": "A", "keyPath": "error"}, {"mapping": "A", "keyPath": "error", "statusCodes": "4xx"}]}
            """#)
        #expect(status == 0)
        #expect(output.contains("warning: errorDescriptors[1] has the same method, pathPattern and keyPath as errorDescriptors[0]"))
    }

    @Test(arguments: [
        (#"{"baseURL": "http://h", "responseDescriptors": [{"mapping": "A", "keypath": "x"}], "mappings": {"A": {}}}"#,
         "error: responseDescriptors[0].keypath: unknown field"),
        (#"{"baseURL": "http://h", "mappings": {"A": {"attributes": {"a": {"to": "b", "format": "x"}}}}}"#,
         "error: mappings.A.attributes.a.format: unknown field"),
        (#"{"baseURL": "http://h", "mappings": {"A": {"dynamic": {"keyPath": "type", "mappings": {"x": "Nope"}}}}}"#,
         "error: mappings.A.dynamic: unknown mapping \"Nope\" (known: A)"),
        (#"{"baseURL": "http://h", "routes": {"r": {"method": "GET", "pathPattern": "/x", "pagination": {"style": "link", "cursorKeyPath": "c"}}}}"#,
         "error: routes.r.pagination.cursorKeyPath: unknown field"),
        (#"{"baseURL": "http://h", "routes": {"r": {"method": "GET", "pathPattern": "/x", "pagination": {"style": "pages"}}}}"#,
         "error: routes.r.pagination.style: unknown pagination style \"pages\""),
        (#"{"baseURL": "http://h", "requestDescriptors": [{"mapping": "A", "format": "xml"}], "mappings": {"A": {}}}"#,
         "error: requestDescriptors[0].format: unknown format \"xml\" (expected json, form or multipart)"),
        (#"{"baseURL": "http://h", "mapings": {}}"#, "error: mapings: unknown field"),
    ])
    func unknownFieldsAreErrorsNamingTheField(config: String, expected: String) throws {
        let (status, output) = try check(config)
        #expect(status == 1)
        #expect(output.contains(expected), "\(output)")
    }
}

/// `gatewire call --all-pages` through the real CLI binary: one compact JSON line per page.
@Suite struct AllPagesCommandTests {
    /// The CLI's exit status and its stdout lines (with `stderr`, its stderr lines instead).
    func run(_ arguments: String, stderr: Bool = false) throws -> (status: Int32, lines: [String]) {
        let streams = stderr ? "2>&1 >/dev/null" : "2>/dev/null"
        guard let pipe = popen("timeout 60 '\(try CheckCommandTests.binary())' call \(arguments) \(streams)", "r") else {
            throw TestServerError(description: "popen failed")
        }
        var output = ""
        var buffer = [CChar](repeating: 0, count: 65536)
        while fgets(&buffer, Int32(buffer.count), pipe) != nil {
            output += buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
        let status = pclose(pipe)
        return ((status >> 8) & 0xFF, output.split(separator: "\n").map(String.init))
    }

    @Test func everyPageIsOneJSONLine() throws {
        let server = try TestServer()
        defer { server.stop() }
        let config = TestServer.repoRoot + "/examples/stripe.json"
        let (status, lines) = try run("--config '\(config)' --base-url \(server.baseURL) channels --all-pages")
        #expect(status == 0)
        #expect(lines == [#"{"channels":[{"id":"C012AB3CD","name":"general"},{"id":"C061EG9T2","name":"random"}]}"#,
                          #"{"channels":[{"id":"C061EG9T2","name":"random"}]}"#])
    }

    /// Refused before anything is sent: a usage error (exit 2, one line on stderr).
    @Test func aRouteWithoutPaginationFailsWithOneErrorLine() throws {
        let server = try TestServer()
        defer { server.stop() }
        let config = TestServer.repoRoot + "/examples/stripe.json"
        let (status, lines) = try run("--config '\(config)' --base-url \(server.baseURL) charge --all-pages", stderr: true)
        #expect(status == 2)
        #expect(lines == [#"gatewire: route "charge" has no pagination: configure routes.charge.pagination"#])
    }
}
