import Glibc

/// Files and folders the tests make and read: one folder under /tmp per test (the caller
/// removes it), and whole small text files.
enum TestFiles {
    /// A new folder `/tmp/<prefix>-XXXXXX`, mode 0700 (mkdtemp's).
    static func folder(_ prefix: String) -> String {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        _ = mkdtemp(&template)
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes `text` to a new file at `path`; false when it cannot.
    static func write(_ text: String, to path: String) -> Bool {
        guard let file = fopen(path, "w") else { return false }
        defer { fclose(file) }
        return fputs(text, file) >= 0
    }

    /// The text of the file at `path`, or nil when it cannot be opened.
    static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var text = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            text += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return text
    }
}
