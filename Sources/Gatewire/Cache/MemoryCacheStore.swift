/// Where an ``HTTPCache`` keeps its entries, by ``CacheKey``. Loop thread only.
protocol CacheStore: AnyObject {
    /// The entry for `key` whose body has at most `maxBodyBytes` bytes, marked as just
    /// used; nil when there is none (or only a larger one).
    func entry(for key: CacheKey, maxBodyBytes: Int) -> CachedResponse?
    /// Keeps `entry` for `key` (replacing the one of the key), evicting the least recently
    /// used ones beyond the byte cap; one larger than the whole cap is not kept.
    func store(_ entry: CachedResponse, for key: CacheKey)
    /// Drops every entry of the URL whose ``CacheKey/urlDigest`` is `urlDigest`, in every partition.
    func removeAll(urlDigest: String)
}

/// Entries in memory within a byte cap, least recently used out first (``CachedResponse/size``).
/// Eviction scans the entries (it runs only when a new entry would pass the cap).
final class MemoryCacheStore: CacheStore {
    private var entries: [String: (entry: CachedResponse, urlDigest: String, size: Int, used: UInt64)] = [:]
    private var total = 0
    private var clock: UInt64 = 0
    let maxBytes: Int

    init(maxBytes: Int) { self.maxBytes = maxBytes }

    /// The bytes the entries count.
    var size: Int { total }

    func entry(for key: CacheKey, maxBodyBytes: Int) -> CachedResponse? {
        guard let found = entries[key.digest], found.entry.body.count <= maxBodyBytes else { return nil }
        clock += 1
        entries[key.digest]?.used = clock
        return found.entry
    }

    func store(_ entry: CachedResponse, for key: CacheKey) {
        remove(key.digest)
        let size = entry.size
        guard size <= maxBytes else { return }
        while total + size > maxBytes, let oldest = entries.min(by: { $0.value.used < $1.value.used })?.key {
            remove(oldest)
        }
        clock += 1
        entries[key.digest] = (entry, key.urlDigest, size, clock)
        total += size
    }

    func removeAll(urlDigest: String) {
        for (digest, stored) in entries where stored.urlDigest == urlDigest { remove(digest) }
    }

    private func remove(_ digest: String) {
        guard let removed = entries.removeValue(forKey: digest) else { return }
        total -= removed.size
    }
}
