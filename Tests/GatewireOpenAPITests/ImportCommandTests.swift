import GatewireOpenAPI
import Glibc
import Testing

/// `gatewire import openapi` through the real CLI binary: the config on stdout (or --out), the
/// report as JSON Lines on stderr (or --report), the exit statuses of the other commands.
@Suite struct ImportCommandTests {
    /// The `gatewire` executable SwiftPM built next to the test bundle.
    static func binary() throws -> String {
        let (found, candidates) = CLIBinary.find(repoRoot: Support.repoRoot)
        guard let found else {
            throw SupportError(description: "the gatewire CLI is not built (looked at \(candidates)); run swift build")
        }
        return found
    }

    /// Runs `gatewire ARGUMENTS` (bounded by `timeout 30`); stdout and stderr apart.
    func run(_ arguments: String) throws -> (status: Int32, stdout: String, stderr: String) {
        let errors = try Support.temporaryFile("", suffix: ".err")
        defer { unlink(errors) }
        guard let pipe = popen("timeout 30 '\(try Self.binary())' \(arguments) 2>'\(errors)'", "r") else {
            throw SupportError(description: "popen failed")
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count == 0 { break }
            output += buffer[..<count]
        }
        let status = pclose(pipe)
        return ((status >> 8) & 0xFF, String(decoding: output, as: UTF8.self), try contents(errors))
    }

    func contents(_ path: String) throws -> String {
        guard let file = fopen(path, "r") else { throw SupportError(description: "cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static let document = """
        openapi: 3.0.0
        info: {title: t, version: "1"}
        servers: [{url: "https://a.example.com"}, {url: "https://b.example.com"}]
        paths:
          /pets:
            post:
              operationId: addPet
              requestBody: {content: {application/json: {schema: {type: object}}}}
              responses: {"204": {description: none}}
        """

    @Test func writesTheConfigAndTheReport() throws {
        let path = try Support.temporaryFile(Self.document, suffix: ".yaml")
        defer { unlink(path) }
        let result = try run("import openapi '\(path)' --server 1")
        #expect(result.status == 0)
        #expect(result.stdout == (try OpenAPIImporter.importDocument(atPath: path, server: 1)).config)
        #expect(try Support.value(result.stdout, "baseURL") == "\"https://b.example.com\"")
        #expect(result.stderr == """
            {"message":"not the chosen server (1): import with --server 0 for this one","pointer":"/servers/0","reason":"server_not_chosen"}
            {"message":"the body is not an object (a scalar, an array or free-form JSON): no request descriptor, a call sends its body as it is","pointer":"/paths/~1pets/post/requestBody/content/application~1json/schema","reason":"request_body_not_mapped"}

            """)
        let out = path + ".config.json", report = path + ".report.jsonl"
        defer { unlink(out); unlink(report) }
        let toFiles = try run("import openapi '\(path)' --out '\(out)' --report '\(report)'")
        #expect(toFiles.status == 0 && toFiles.stdout.isEmpty && toFiles.stderr.isEmpty)
        #expect(try contents(out) == (try OpenAPIImporter.importDocument(atPath: path)).config)
        #expect(try contents(report).split(separator: "\n").count == 2)
    }

    @Test func failuresAndUsageErrorsHaveTheirExitStatus() throws {
        let path = try Support.temporaryFile("openapi: 3.0.0\npaths: {/a: {$ref: '#/nope'}}\n", suffix: ".yaml")
        defer { unlink(path) }
        let failed = try run("import openapi '\(path)'")
        #expect(failed.status == 1)
        #expect(failed.stdout.isEmpty)
        #expect(failed.stderr == "\(path)#/paths/~1a/$ref: the $ref \"#/nope\" names nothing: \(path)#/nope does not exist "
            + "(a dangling reference)\n")
        #expect(try run("import openapi").status == 2)
        #expect(try run("import openapi '\(path)' --server x").stderr
            == "gatewire: --server takes a server's index (0, 1, ...), not \"x\"\n")
        #expect(try run("import swagger x").stderr.hasPrefix("gatewire: unknown import format \"swagger\" (expected openapi)\n"))
        let valid = try Support.temporaryFile(Self.document, suffix: ".yaml")
        defer { unlink(valid) }
        #expect(try run("import openapi '\(valid)' --out /nonexistent/dir/x.json").stderr
            == "gatewire: cannot write --out /nonexistent/dir/x.json: No such file or directory\n")
        #expect(try run("import openapi '\(valid)' --out /nonexistent/dir/x.json").status == 2)
        let help = try run("help import")
        #expect(help.status == 0 && help.stdout.hasPrefix("usage: gatewire import openapi DOCUMENT [--server N] [--out FILE] [--report FILE]\n"))
        #expect(try run("import --help").stdout == help.stdout)
    }
}
