import Gatewire
import Glibc

/// C strings handed out by a handle, each made once on first use and freed with the handle,
/// so `const char *` results stay valid for the handle's lifetime. Thread-safe.
final class CStringCache: Sendable {
    private struct Storage: @unchecked Sendable {
        var strings: [String: UnsafeMutablePointer<CChar>] = [:]
        var buffers: [String: UnsafeMutableRawPointer] = [:]
    }

    private let storage = Lock(Storage())

    init() {}

    deinit {
        storage.withLock { storage in
            for pointer in storage.strings.values { free(pointer) }
            for pointer in storage.buffers.values { free(pointer) }
        }
    }

    /// The cached C string for `key`, made from `make()` the first time; nil when `make` gives nil.
    func string(_ key: String, _ make: () -> String?) -> UnsafePointer<CChar>? {
        storage.withLock { storage in
            if let cached = storage.strings[key] { return UnsafePointer(cached) }
            guard let value = make(), let copy = strdup(value) else { return nil }
            storage.strings[key] = copy
            return UnsafePointer(copy)
        }
    }

    /// A cached `malloc` copy of `bytes` for `key`; nil for no bytes.
    func bytes(_ key: String, _ bytes: [UInt8]) -> UnsafePointer<UInt8>? {
        guard !bytes.isEmpty else { return nil }
        return storage.withLock { storage in
            if let cached = storage.buffers[key] { return UnsafePointer(cached.assumingMemoryBound(to: UInt8.self)) }
            guard let copy = malloc(bytes.count) else { return nil }
            bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
            storage.buffers[key] = copy
            return UnsafePointer(copy.assumingMemoryBound(to: UInt8.self))
        }
    }
}
