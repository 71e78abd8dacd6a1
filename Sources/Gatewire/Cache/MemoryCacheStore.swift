/// Where an ``HTTPCache`` keeps its entries, by request URL. Loop thread only.
protocol CacheStore: AnyObject {
    /// The entry for `url`, marked as just used; nil when there is none.
    func entry(for url: String) -> CachedResponse?
    /// Keeps `entry` (replacing the one of its URL), evicting the least recently used ones
    /// beyond the byte cap; one larger than the whole cap is not kept.
    func store(_ entry: CachedResponse)
    /// Drops the entry for `url`, if any.
    func remove(_ url: String)
}

/// Entries in memory within a byte cap, least recently used out first (``CachedResponse/size``).
/// Eviction scans the entries (it runs only when a new entry would pass the cap).
final class MemoryCacheStore: CacheStore {
    private var entries: [String: (entry: CachedResponse, size: Int, used: UInt64)] = [:]
    private var total = 0
    private var clock: UInt64 = 0
    let maxBytes: Int

    init(maxBytes: Int) { self.maxBytes = maxBytes }

    /// The bytes the entries count.
    var size: Int { total }

    func entry(for url: String) -> CachedResponse? {
        guard let found = entries[url] else { return nil }
        clock += 1
        entries[url]?.used = clock
        return found.entry
    }

    func store(_ entry: CachedResponse) {
        remove(entry.url)
        let size = entry.size
        guard size <= maxBytes else { return }
        while total + size > maxBytes, let oldest = entries.min(by: { $0.value.used < $1.value.used })?.key {
            remove(oldest)
        }
        clock += 1
        entries[entry.url] = (entry, size, clock)
        total += size
    }

    func remove(_ url: String) {
        guard let removed = entries.removeValue(forKey: url) else { return }
        total -= removed.size
    }
}
