import Glibc

extension CookieJar {
    /// Reads the config's `cookies`: `true` (a jar in memory), `false` (none: nil), or
    /// `{"file": "cookies.txt"}` (persisted; a relative path is resolved against the config
    /// file's directory, as `caFile` is, see `ConfigPath`).
    /// - Throws: ``ConfigError`` at the node for another type, an unknown key, a path with a
    ///   NUL byte (``ConfigPath/read(_:relativeTo:)``), a file whose directory cannot be
    ///   written (the jar is written there when the client closes), or a path that is a
    ///   symbolic link or not a regular file.
    static func from(config node: ConfigNode, directory: String?) throws(ConfigError) -> CookieJar? {
        if node.json.bool != nil { return try node.bool() ? CookieJar() : nil }
        guard node.json.kind == .object else { throw node.error("expected true, false or an object, got \(node.json.kind.name)") }
        try node.rejectUnknownKeys(["file"])
        guard let fileNode = try node.optional("file") else { return CookieJar() }
        let file = try ConfigPath.read(fileNode, relativeTo: directory)
        if let problem = fileProblem(file) { throw fileNode.error(problem) }
        return CookieJar(file: file)
    }

    /// A jar persisted to `path`, made absolute against the current directory (the CLI's
    /// `--cookie-jar`). - Throws: ``ConfigError`` (path `cookies.file`) as the config's `file`.
    package init(commandLineFile path: String) throws(ConfigError) {
        if let problem = ConfigPath.problem(path) { throw ConfigError(path: "cookies.file", message: problem) }
        let file = ConfigPath.absolute(path, relativeTo: nil)
        if let problem = Self.fileProblem(file) { throw ConfigError(path: "cookies.file", message: problem) }
        self.init(file: file)
    }

    /// Why the jar cannot be kept in `file` (absolute), or nil: its directory cannot be
    /// written (the jar is written there when the client closes), or the path is a symbolic
    /// link or not a regular file (``CookieFile/problem(at:)``).
    private static func fileProblem(_ file: String) -> String? {
        guard access(ConfigPath.directory(of: file), W_OK) == 0 else {
            return "cannot write to the directory of \"\(file)\": \(String(cString: strerror(errno)))"
        }
        return CookieFile.problem(at: file)
    }
}
