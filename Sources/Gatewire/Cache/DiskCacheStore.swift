import Glibc

/// Entries in a folder (config `cache.directory`), one file each, least recently used out
/// first within the byte cap: OkHttp's `Cache` layout (a DiskLruCache folder) rather than an
/// SQLite database, because an entry is written and read whole (no query needs an index),
/// a write to a temporary name then `rename(2)` is atomic without a journal, it needs no
/// library beyond libc, and the folder can be inspected or deleted by hand.
///
/// A file, named `<URL digest>-<entry digest>.entry` (``CacheKey``, 32 hex digits each),
/// holds one line of JSON (status, version, header fields, Vary digests, times and the
/// body's length) and then the body bytes. No URL, credential or `Set-Cookie` value is kept
/// (``HTTPCache`` drops `Set-Cookie` before storing). The byte count and recency of the
/// files are read from the folder (sizes and modification times) when the client is made,
/// and kept in memory; a file another client wrote later is still found.
///
/// The folder is trusted only as OpenSSH trusts `~/.ssh`: a directory (not a symbolic link)
/// owned by this user and writable by no one else (``folderProblem(_:)``; otherwise the store
/// keeps nothing and serves nothing). Every file is opened relative to the folder's
/// descriptor without following symbolic links, temporary files are created exclusively
/// (`O_EXCL`) under unpredictable names, and an entry is read only up to its own size and
/// the caps (the cache's `maxBytes`, the call's `maxResponseBytes`).
/// The files are read and written on the loop thread, synchronously: meant for API
/// responses, not large downloads.
final class DiskCacheStore: CacheStore {
    /// The folder, opened `O_DIRECTORY | O_NOFOLLOW` once checked; -1 when it cannot be trusted.
    private let folder: Int32
    private let maxBytes: Int
    private var files: [String: (size: Int, used: Double)] = [:]
    private var total = 0

    /// The store in `directory` (created 0700 if missing; its parent must exist). A folder
    /// with a ``folderProblem(_:)`` (config reading refuses it first) leaves the store empty.
    init(directory: String, maxBytes: Int) {
        self.maxBytes = maxBytes
        mkdir(directory, 0o700)
        let opened = open(directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        var info = stat()
        guard opened >= 0, fstat(opened, &info) == 0, Self.problem(info) == nil else {
            if opened >= 0 { close(opened) }
            folder = -1
            return
        }
        folder = opened
        for name in names() where name.hasSuffix(".entry") {
            var info = stat()
            guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            files[name] = (Int(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
            total += Int(info.st_size)
        }
    }

    deinit { if folder >= 0 { close(folder) } }

    /// Why `path` may not hold a cache, or nil (it is a trusted folder, or does not exist
    /// yet): a symbolic link, not a directory, owned by another user, or writable by group
    /// or others (OpenSSH's rule for `~/.ssh`: anyone else who can write there could plant
    /// entries or links).
    static func folderProblem(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        if info.st_mode & S_IFMT == S_IFLNK { return "\"\(path)\" is a symbolic link; name the folder itself" }
        return problem(info).map { "\"\(path)\" \($0)" }
    }

    private static func problem(_ info: stat) -> String? {
        if info.st_mode & S_IFMT != S_IFDIR { return "is not a directory" }
        if info.st_uid != geteuid() { return "is owned by user \(info.st_uid), not by this user (\(geteuid()))" }
        if info.st_mode & 0o022 != 0 {
            return "is writable by its group or others (mode \(String(info.st_mode & 0o777, radix: 8))); "
                + "make it private (chmod go-w)"
        }
        return nil
    }

    func entry(for key: CacheKey, maxBodyBytes: Int) -> CachedResponse? {
        let name = Self.fileName(key)
        guard let bytes = read(name, cap: min(maxBytes, files[name]?.size ?? maxBytes)),
              let newline = bytes.firstIndex(of: 0x0A) else { return nil }
        let parsed = bytes[..<newline].withUnsafeBytes { try? JSONValue.parse($0) }
        guard let json = parsed?.node, let status = json["status"]?.integer,
              json["bodyBytes"]?.integer == Int64(bytes.count - newline - 1), bytes.count - newline - 1 <= maxBodyBytes
        else { return nil }
        var headers = HTTPHeaders()
        for pair in json["headers"]?.elements ?? [] {
            headers.add(pair.elements.first?.string ?? "", pair.elements.last?.string ?? "")
        }
        let vary = (json["vary"]?.elements ?? []).map { pair in
            (name: pair.elements.first?.string ?? "", digest: pair.elements.count > 1 ? pair.elements[1].string : nil)
        }
        files[name] = (bytes.count, WallClock.now())
        utimensat(folder, name, nil, AT_SYMLINK_NOFOLLOW)  // the recency the next client reads
        return CachedResponse(url: key.url, status: Int(status), headers: headers, body: Array(bytes[(newline + 1)...]),
                              httpVersion: json["httpVersion"]?.string ?? "1.1", varyValues: vary,
                              requestTime: json["requestTime"]?.number ?? 0, responseTime: json["responseTime"]?.number ?? 0)
    }

    func store(_ entry: CachedResponse, for key: CacheKey) {
        guard folder >= 0 else { return }
        let name = Self.fileName(key)
        remove(name)
        let json = JSONValue.object()
        json.set("status", .integer(Int64(entry.status)))
        json.set("httpVersion", .string(entry.httpVersion))
        let headers = JSONValue.array()
        for field in entry.headers {
            let pair = JSONValue.array()
            pair.append(.string(field.name))
            pair.append(.string(field.value))
            headers.append(pair)
        }
        json.set("headers", headers)
        let vary = JSONValue.array()
        for item in entry.varyValues {
            let pair = JSONValue.array()
            pair.append(.string(item.name))
            pair.append(item.digest.map(JSONValue.string) ?? .null())
            vary.append(pair)
        }
        json.set("vary", vary)
        json.set("requestTime", .number(entry.requestTime))
        json.set("responseTime", .number(entry.responseTime))
        json.set("bodyBytes", .integer(Int64(entry.body.count)))
        let bytes = Array(json.serialized().utf8) + [0x0A] + entry.body  // compact JSON: no newline inside
        guard bytes.count <= maxBytes else { return }
        while total + bytes.count > maxBytes, let oldest = files.min(by: { $0.value.used < $1.value.used })?.key {
            remove(oldest)
        }
        let temporary = ".\(name).\(UInt64.random(in: 0...UInt64.max)).tmp"
        guard write(bytes, to: temporary), renameat(folder, temporary, folder, name) == 0 else {
            unlinkat(folder, temporary, 0)
            return
        }
        files[name] = (bytes.count, WallClock.now())
        total += bytes.count
    }

    func removeAll(urlDigest: String) {
        let prefix = urlDigest.prefix(32) + "-"
        for name in names() where name.hasPrefix(prefix) && name.hasSuffix(".entry") { remove(name) }
    }

    private func remove(_ name: String) {
        guard folder >= 0 else { return }
        unlinkat(folder, name, 0)
        total -= files.removeValue(forKey: name)?.size ?? 0
    }

    /// `<32 hex digits of the URL digest>-<32 of the entry digest>.entry`.
    private static func fileName(_ key: CacheKey) -> String {
        "\(key.urlDigest.prefix(32))-\(key.digest.prefix(32)).entry"
    }

    /// The names in the folder (another client may have added some).
    private func names() -> [String] {
        guard folder >= 0, let listing = fdopendir(dup(folder)) else { return [] }
        defer { closedir(listing) }
        var names: [String] = []
        while let item = readdir(listing) {
            names.append(withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        return names
    }

    /// The regular file `name`'s bytes when it has at most `cap` of them, else nil.
    private func read(_ name: String, cap: Int) -> [UInt8]? {
        guard folder >= 0 else { return nil }
        let descriptor = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) <= cap else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }  // shorter than its size: being replaced
            offset += count
        }
        return bytes
    }

    private func write(_ bytes: [UInt8], to name: String) -> Bool {
        let descriptor = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return bytes.withUnsafeBytes { FileWriting.writeAll($0, to: descriptor) }
    }
}
