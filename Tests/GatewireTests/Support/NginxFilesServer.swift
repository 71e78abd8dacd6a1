import Glibc

/// A private nginx serving one folder's files (`Tests/support/nginx_files.py`, Debian's
/// nginx-light from `scripts/bootstrap.sh`): `/files/<name>` at full speed, `/slow/<name>`
/// rate-limited, both with nginx's ETag, Last-Modified and byte ranges. A missing nginx fails
/// the test, never skips it. Stopped by PID (SIGTERM, then SIGKILL after 5 s) in ``stop()``
/// or `deinit`.
final class NginxFilesServer {
    /// `http://127.0.0.1:<port>`, without a trailing slash.
    let baseURL: String
    private let logPath: String
    private let process: ServerProcess

    /// Serves `folder`; `/slow/` sends `rate` bytes a second per connection (nginx's size
    /// syntax, e.g. `2m`). Waits at most `startTimeout` seconds for the server.
    init(folder: String, rate: String = "2m", startTimeout: Double = 60) throws {
        let python = ServerProcess.venvExecutable("python", fallback: "python3")!
        let script = ServerProcess.repoRoot + "/Tests/support/nginx_files.py"
        var words: [String] = []
        (process, _) = try ServerProcess.start([python, script, "--root", folder, "--rate", rate],
                                               name: "nginx (files)", timeout: startTimeout) { line in
            words = line.split(separator: " ").map(String.init)
            guard words.count == 4, words[0] == "PORT" else { return nil }
            return Int(words[1])
        }
        baseURL = "http://127.0.0.1:\(words[1])"
        logPath = words[3]
    }

    /// The access log's lines so far: `<uri> <status> range="..." if_range="..." sent=<n>`.
    func log() -> [String] {
        String(decoding: DownloadFiles.read(logPath) ?? [], as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Stops nginx and reaps it. Idempotent.
    func stop() { process.stop() }
}

/// Files for the download tests: a fresh folder, random bytes written, files read back.
enum DownloadFiles {
    /// A new empty folder under /tmp.
    static func folder() -> String {
        var template = Array("/tmp/gw-downloads-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    /// `count` random bytes written to `path`.
    static func write(random count: Int, to path: String) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        write(bytes, to: path)
        return bytes
    }

    static func write(_ bytes: [UInt8], to path: String) {
        let file = fopen(path, "wb")!
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }

    /// The file's bytes, or nil when it does not exist.
    static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while case let count = fread(&buffer, 1, buffer.count, file), count > 0 { bytes += buffer[..<count] }
        return bytes
    }

    /// The names in `folder`, sorted ("." and ".." left out).
    static func names(in folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
