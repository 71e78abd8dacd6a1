/// A client's HTTP cache (RFC 9111; config key `cache`): which calls use it and where it
/// keeps responses. Off unless the config says so. A stored response is served only to a
/// call with the same credentials (docs/http-cache.md).
public struct HTTPCacheSettings: Sendable, Equatable {
    /// The most bytes of responses kept (bodies and header fields); the least recently used
    /// go first. Default 10 MiB, as OkHttp's typical configuration.
    public var maxBytes = 10 * 1024 * 1024
    /// A folder that keeps the responses across clients (one file each; `DiskCacheStore`),
    /// or nil (default) for memory only. An existing folder must be a directory of this user
    /// that group and others cannot write (the config is refused otherwise).
    public var directory: String?

    /// A memory cache of `maxBytes`.
    public init(maxBytes: Int = 10 * 1024 * 1024, directory: String? = nil) {
        self.maxBytes = maxBytes
        self.directory = directory
    }

    /// The range of `maxBytes`: 1 byte to 2^62.
    package static let maxBytesRange: ClosedRange<Int64> = 1...(1 << 62)
}
