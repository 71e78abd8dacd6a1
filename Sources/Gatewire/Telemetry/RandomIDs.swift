import CCrypto

/// Trace and span ids for one client's calls: bytes of OpenSSL's CSPRNG (`RAND_bytes`, its
/// DRBG seeded from `getrandom(2)`), read 4096 at a time, so a call's three or four ids cost
/// neither a system call each (the standard library's `SystemRandomNumberGenerator` makes one
/// per 8 bytes) nor a lock each.
///
/// Loop thread only (every call's ``CallTrace`` is made and used there).
// @unchecked: used on the client's loop thread only.
final class RandomIDs: @unchecked Sendable {
    private var pool = [UInt64](repeating: 0, count: 512)
    private var next = 512

    /// A new trace id, never all zero.
    func traceID() -> TraceID {
        while true {
            let id = TraceID(high: word(), low: word())
            if id.high != 0 || id.low != 0 { return id }
        }
    }

    /// A new span id, never zero.
    func spanID() -> SpanID {
        while true {
            let value = word()
            if value != 0 { return SpanID(value) }
        }
    }

    private func word() -> UInt64 {
        if next == pool.count { refill() }
        defer { next += 1 }
        return pool[next]
    }

    private func refill() {
        let filled = pool.withUnsafeMutableBytes { buffer in
            RAND_bytes(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1
        }
        if !filled {
            // OpenSSL could not seed its generator: the system's source, 8 bytes at a time.
            var system = SystemRandomNumberGenerator()
            for index in pool.indices { pool[index] = system.next() }
        }
        next = 0
    }
}
