import GatewireJSON
import Glibc

/// Reads one file of an OpenAPI description (the document, or a file its `$ref`s name) into a
/// Jansson tree: JSON with Jansson, YAML with libyaml (``YAMLDocument``), told apart by the
/// first character that is not white space (`{` or `[`: JSON, which is also what YAML would
/// read it as).
enum DocumentLoader {
    /// The largest file read, in bytes (32 MiB: eight times Stripe's 4 MB document), so that a
    /// runaway file is refused before it is parsed.
    static let maxBytes = 32 << 20

    /// The parsed file at `path`; `name` is how errors name it.
    /// - Throws: ``OpenAPIImportError`` naming the file: it cannot be read (with `strerror`'s
    ///   reason), is larger than ``maxBytes``, or is not valid JSON or YAML (with the line and
    ///   column).
    static func load(path: String, name: String) throws(OpenAPIImportError) -> JSONValue {
        let bytes = try read(path: path, name: name)
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(OpenAPIImportError) in try parse(buffer, name: name) }
        }
        return try result.get()
    }

    /// The parsed text `bytes` (JSON or YAML, as for a file); `name` is how errors name it.
    static func parse(_ bytes: UnsafeRawBufferPointer, name: String) throws(OpenAPIImportError) -> JSONValue {
        guard bytes.count <= maxBytes else {
            throw OpenAPIImportError(document: name, message: "the document is \(bytes.count) bytes, more than the "
                + "\(maxBytes) the importer reads")
        }
        if looksLikeJSON(bytes) {
            do {
                return try JSONValue.parse(bytes, rejectingDuplicateKeys: false)
            } catch {
                throw OpenAPIImportError(document: name, line: error.line, column: error.column,
                                         message: "invalid JSON: \(error.message)")
            }
        }
        return try YAMLDocument.parse(bytes, document: name)
    }

    /// Whether the first byte that is not white space (after a UTF-8 byte order mark) opens a
    /// JSON object or array.
    private static func looksLikeJSON(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index < bytes.count && (bytes[index] == UInt8(ascii: "{") || bytes[index] == UInt8(ascii: "["))
    }

    /// The whole file, read with `read(2)`; refused beyond ``maxBytes`` before it is read.
    private static func read(path: String, name: String) throws(OpenAPIImportError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw OpenAPIImportError(document: name, message: "cannot read the file: " + String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw OpenAPIImportError(document: name, message: "not a regular file")
        }
        guard info.st_size <= maxBytes else {
            throw OpenAPIImportError(document: name, message: "the document is \(info.st_size) bytes, more than the "
                + "\(maxBytes) the importer reads")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else {
                if got == 0 { break }
                throw OpenAPIImportError(document: name, message: "cannot read the file: " + String(cString: strerror(errno)))
            }
            count += got
        }
        return Array(bytes.prefix(count))
    }
}
