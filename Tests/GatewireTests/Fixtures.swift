import Gatewire
import Glibc

/// Reads the real third-party payloads in `Tests/fixtures/real` (see its SOURCES.md).
enum Fixture {
    /// `Tests/fixtures/real/`, found from this file's path.
    static let directory: String = {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)  // GatewireTests/Fixtures.swift
        return parts.joined(separator: "/") + "/fixtures/real/"
    }()

    /// The bytes of a fixture file, read with fopen/fread.
    static func bytes(_ name: String) -> [UInt8] {
        guard let file = fopen(directory + name, "rb") else { fatalError("cannot open fixture \(name)") }
        defer { fclose(file) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            result.append(contentsOf: buffer[0..<count])
        }
        return result
    }

    /// A fixture parsed with Jansson.
    static func json(_ name: String) throws -> JSONValue {
        let data = bytes(name)
        return try data.withUnsafeBytes { bytes in try JSONValue.parse(bytes) }
    }
}

/// Parses JSON text written in a test.
func json(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

/// A config node over parsed JSON text (the JSONValue is returned so it outlives the node).
func config(_ text: String) throws -> (JSONValue, ConfigNode) {
    let value = try JSONValue.parse(text)
    return (value, ConfigNode(value.node))
}

extension JSONNode {
    /// The node at a dotted path for assertions (`"items"`, `"user"`); nil when absent.
    func at(_ path: String) -> JSONNode? {
        var node: JSONNode? = self
        for key in path.split(separator: ".") {
            if let index = Int(key) {
                guard let current = node, current.kind == .array, index < current.count else { return nil }
                node = current.elements[index]
            } else {
                node = node?[String(key)]
            }
        }
        return node
    }
}
