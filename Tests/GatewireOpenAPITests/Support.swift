import Gatewire
import GatewireJSON
import GatewireOpenAPI
import Glibc
import Testing

/// Helpers of the importer's tests: import a document given as text, compare configs as JSON,
/// find the shared real documents and the CLI.
enum Support {
    /// The repository's root (this file is Tests/GatewireOpenAPITests/Support.swift).
    static let repoRoot: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }()

    /// The real OpenAPI documents (Tests/fixtures/openapi, SOURCES.md there).
    static let fixtures = repoRoot + "/Tests/fixtures/openapi"

    /// Imports `text` and checks the config as `gatewire check` does (``GatewayConfig``, whose
    /// warnings must be none).
    static func imported(_ text: String, server: Int? = nil) throws -> OpenAPIImport {
        let result = try OpenAPIImporter.importDocument(text: text, name: "doc.yaml", server: server)
        let config = try GatewayConfig(json: result.config)
        #expect(config.warnings == [], "gatewire check warns: \(config.warnings)")
        return result
    }

    /// Whether the JSON texts `a` and `b` hold equal values (objects in any key order).
    static func sameJSON(_ a: String, _ b: String) throws -> Bool {
        try JSONValue.parse(a).node.isEqual(to: JSONValue.parse(b).node)
    }

    /// The value at `path` (object keys) of the JSON text `text`, compact, or "absent".
    static func value(_ text: String, _ path: String...) throws -> String {
        var node = try JSONValue.parse(text).node
        for key in path {
            guard let next = node[key] else { return "absent" }
            node = next
        }
        return node.serialized()
    }

    /// The report's lines as (pointer, reason) pairs.
    static func reasons(_ report: ImportReport) -> [String] { report.lines.map { "\($0.pointer) \($0.reason)" } }

    /// A new file under /tmp holding `text`, with `suffix`; returns its path.
    static func temporaryFile(_ text: String, suffix: String, in folder: String = "/tmp") throws -> String {
        var template = Array("\(folder)/gw-openapi-XXXXXX\(suffix)".utf8CString)
        let fd = mkstemps(&template, Int32(suffix.utf8.count))
        guard fd >= 0 else { throw SupportError(description: "mkstemps failed in \(folder)") }
        var bytes = Array(text.utf8)
        let written = write(fd, &bytes, bytes.count)
        close(fd)
        guard written == bytes.count else { throw SupportError(description: "short write") }
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// A new empty folder under /tmp.
    static func temporaryFolder() throws -> String {
        var template = Array("/tmp/gw-openapi-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw SupportError(description: "mkdtemp failed") }
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

struct SupportError: Error, CustomStringConvertible {
    let description: String
}
