import Gatewire
import Glibc

/// The files and folders `gatewire call`'s options name, checked before anything is sent:
/// one that cannot be used is a usage error (exit 2) naming the option and the path the
/// user gave, never a temporary file made from it.
enum CommandLineFiles {
    /// The bytes of the file at `path` (`--data-binary @FILE`); one that cannot be read is a
    /// usage error naming `flag` and `path`.
    static func contents(of path: String, for flag: String) -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            fail("\(flag): cannot read \"\(path)\": \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            bytes += chunk[..<count]
            if count < chunk.count { break }
        }
        if ferror(file) != 0 { fail("\(flag): cannot read \"\(path)\": \(String(cString: strerror(errno)))") }
        return bytes
    }

    /// Checks that `--output FILE` can be written: FILE is not a folder, and its folder
    /// exists and is writable (the body goes to a temporary file there, renamed onto FILE;
    /// curl, too, does not make the folder without `--create-dirs`). A usage error otherwise,
    /// naming FILE and its folder as the user wrote them.
    static func checkFolder(of path: String) {
        var info = stat()
        if path.hasSuffix("/") || (stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR) {
            fail("--output: \"\(path)\" is a folder; name the file to write")
        }
        let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        guard stat(folder, &info) == 0 else {
            fail("--output: cannot write \"\(path)\": the folder \"\(folder)\": \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            fail("--output: cannot write \"\(path)\": \"\(folder)\" is not a folder")
        }
        guard access(folder, W_OK) == 0 else {
            fail("--output: cannot write \"\(path)\": the folder \"\(folder)\": \(String(cString: strerror(errno)))")
        }
    }

    /// The HTTP cache of `--cache-dir DIR`: `current`'s settings (the config's `cache`, its
    /// `maxBytes`) in the folder `directory`. The folder is checked by the config reader
    /// itself, through a config whose `cache` is `{"directory": DIR}`: the one rule (a folder
    /// of this user, writable by no one else, made 0700 when missing: docs/http-cache.md) and
    /// its message, which the core keeps internal. A folder it refuses is a usage error.
    static func cache(in directory: String, keeping current: HTTPCacheSettings?) -> HTTPCacheSettings {
        let cache = JSONValue.object()
        cache.set("directory", .string(directory))
        let config = JSONValue.object()
        config.set("baseURL", .string("http://127.0.0.1"))  // required by the reader; not used
        config.set("cache", cache)
        do {
            var settings = current ?? HTTPCacheSettings()
            settings.directory = try GatewayConfig(json: config.serialized()).cache?.directory
            return settings
        } catch {
            fail("--cache-dir: \(error.message)")
        }
    }
}
