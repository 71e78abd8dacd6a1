import Glibc

/// Entries in a folder (config `cache.directory`), one file each, least recently used out
/// first within the byte cap: OkHttp's `Cache` layout (a DiskLruCache folder) rather than an
/// SQLite database, because an entry is written and read whole (no query needs an index),
/// a write to a temporary name then `rename(2)` is atomic without a journal, it needs no
/// library beyond libc, and the folder can be inspected or deleted by hand.
///
/// A file, named by the FNV-1a hash of the URL, holds one line of JSON (the URL, status,
/// version, header fields, Vary values and times) and then the body bytes. The byte count
/// and recency of the files are read from the folder (sizes and modification times) when the
/// client is made, and kept in memory; a file another client wrote later is still found.
/// The files are read and written on the loop thread, synchronously: meant for API responses,
/// not large downloads (its memory and time grow with the body, as the memory store's do).
final class DiskCacheStore: CacheStore {
    private let directory: String
    private let maxBytes: Int
    private var files: [String: (size: Int, used: Double)] = [:]
    private var total = 0

    /// The store in `directory` (created if missing; its parent must exist).
    init(directory: String, maxBytes: Int) {
        self.directory = directory
        self.maxBytes = maxBytes
        mkdir(directory, 0o700)
        guard let folder = opendir(directory) else { return }
        defer { closedir(folder) }
        while let item = readdir(folder) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasSuffix(".entry") else { continue }
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0 else { continue }
            files[name] = (Int(info.st_size), Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
            total += Int(info.st_size)
        }
    }

    func entry(for url: String) -> CachedResponse? {
        let name = Self.fileName(url)
        guard let bytes = Self.read(directory + "/" + name),
              let newline = bytes.firstIndex(of: 0x0A) else { return nil }
        let parsed = bytes[..<newline].withUnsafeBytes { try? JSONValue.parse($0) }
        guard let json = parsed?.node, json["url"]?.string == url, let status = json["status"]?.integer else { return nil }
        var headers = HTTPHeaders()
        for pair in json["headers"]?.elements ?? [] {
            headers.add(pair.elements.first?.string ?? "", pair.elements.last?.string ?? "")
        }
        let vary = (json["vary"]?.elements ?? []).map { pair in
            (name: pair.elements.first?.string ?? "", value: pair.elements.count > 1 ? pair.elements[1].string : nil)
        }
        let used = RetryPolicy.wallClock()
        files[name] = (bytes.count, used)
        utimensat(AT_FDCWD, directory + "/" + name, nil, 0)  // the recency the next client reads
        return CachedResponse(url: url, status: Int(status), headers: headers, body: Array(bytes[(newline + 1)...]),
                              httpVersion: json["httpVersion"]?.string ?? "1.1", varyValues: vary,
                              requestTime: json["requestTime"]?.number ?? 0, responseTime: json["responseTime"]?.number ?? 0)
    }

    func store(_ entry: CachedResponse) {
        remove(entry.url)
        let json = JSONValue.object()
        json.set("url", .string(entry.url))
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
            pair.append(item.value.map(JSONValue.string) ?? .null())
            vary.append(pair)
        }
        json.set("vary", vary)
        json.set("requestTime", .number(entry.requestTime))
        json.set("responseTime", .number(entry.responseTime))
        let bytes = Array(json.serialized().utf8) + [0x0A] + entry.body  // compact JSON: no newline inside
        guard bytes.count <= maxBytes else { return }
        while total + bytes.count > maxBytes, let oldest = files.min(by: { $0.value.used < $1.value.used })?.key {
            unlink(directory + "/" + oldest)
            total -= files.removeValue(forKey: oldest)?.size ?? 0
        }
        let name = Self.fileName(entry.url)
        let temporary = directory + "/" + name + ".tmp"
        guard Self.write(bytes, to: temporary), rename(temporary, directory + "/" + name) == 0 else {
            unlink(temporary)
            return
        }
        files[name] = (bytes.count, RetryPolicy.wallClock())
        total += bytes.count
    }

    func remove(_ url: String) {
        let name = Self.fileName(url)
        unlink(directory + "/" + name)
        total -= files.removeValue(forKey: name)?.size ?? 0
    }

    /// `<16 hex digits of FNV-1a 64 of the URL>.entry`; the URL inside tells a collision apart.
    private static func fileName(_ url: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + ".entry"
    }

    private static func read(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count < 0 { return nil }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    private static func write(_ bytes: [UInt8], to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }
}
