import Glibc

/// File paths named in a gateway config (a shared-object plugin's `path`, `caFile`, the
/// cookie jar's `file`, the cache's `directory`), read and resolved the way the README
/// documents: an absolute path as it is; a relative one against the directory of the config
/// file it was read from, or the current directory for config text.
enum ConfigPath {
    /// The path `node` holds, made absolute against `base` (``absolute(_:relativeTo:)``).
    /// - Throws: ``ConfigError`` at the node for another type than a string, or for a path
    ///   with a NUL byte, which `open(2)` and libcurl would cut short (``CStringRule``).
    static func read(_ node: ConfigNode, relativeTo base: String?) throws(ConfigError) -> String {
        absolute(try node.string(checkedBy: problem), relativeTo: base)
    }

    /// Why `path` cannot name a file, or nil: a NUL byte (``CStringRule``).
    static func problem(_ path: String) -> String? { CStringRule.problem(path, what: "the path") }

    /// The directory of `file` (`"."` for a bare name, `"/"` for a file in the root).
    static func directory(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "." }
        return slash == file.startIndex ? "/" : String(file[..<slash])
    }

    /// `path` made absolute: as it is when it starts with `/`, else joined to `base` (itself
    /// made absolute against the current directory; nil = the current directory).
    static func absolute(_ path: String, relativeTo base: String?) -> String {
        if path.hasPrefix("/") { return path }
        var directory = base ?? "."
        if !directory.hasPrefix("/") { directory = currentDirectory() + (directory == "." ? "" : "/" + directory) }
        var joined = directory.hasSuffix("/") ? directory : directory + "/"
        joined += path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        return joined
    }

    private static func currentDirectory() -> String {
        guard let buffer = getcwd(nil, 0) else { return "." }
        defer { free(buffer) }
        return String(cString: buffer)
    }
}
