import Glibc

/// Writing a whole buffer to a file descriptor, the one loop every file Gatewire writes uses
/// (a downloaded body, a cache entry, the cookie jar): `write(2)` may take fewer bytes than
/// it was given, or be interrupted by a signal before it took any (`EINTR`), and either is
/// resumed here rather than taken for the end.
package enum FileWriting {
    /// Writes all of `bytes` to `descriptor`. Returns false, with `errno` set by the failed
    /// `write(2)`, when a write fails (or takes nothing); the bytes before it were written.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }
}
