@testable import Gatewire
import Glibc
import Testing

/// The HTTP cache's stores: the byte cap and its least-recently-used order (memory and
/// disk), and a disk store that outlives its client.
@Suite(.serialized) struct CacheStoreTests {
    /// An entry of `bytes` body bytes for `url` (its size: the body, the URL, one field).
    static func entry(_ url: String, bytes: Int, now: Double = 1000) -> CachedResponse {
        CachedResponse(url: url, status: 200, headers: ["Cache-Control": "max-age=60"],
                       body: [UInt8](repeating: 0x61, count: bytes), httpVersion: "1.1", varyValues: [],
                       requestTime: now, responseTime: now)
    }

    /// The key of an anonymous GET of `url`.
    static func key(_ url: String) -> CacheKey {
        CacheKey(HTTPRequest(method: .get, url: url), redactor: .standard, jarCookies: [])
    }

    @Test func theByteCapDropsTheLeastRecentlyUsedFirst() {
        let size = Self.entry("http://h/a", bytes: 400).size
        let directory = TestFiles.folder("gw-cache")
        defer { system("rm -rf '\(directory)'") }
        let stores: [any CacheStore] = [MemoryCacheStore(maxBytes: size * 2 + 10),
                                        DiskCacheStore(directory: directory, maxBytes: (size + 200) * 2 + 10)]
        for store in stores {
            store.store(Self.entry("http://h/a", bytes: 400), for: Self.key("http://h/a"))
            usleep(5000)  // the disk store orders by wall-clock time
            store.store(Self.entry("http://h/b", bytes: 400), for: Self.key("http://h/b"))
            usleep(5000)
            #expect(store.entry(for: Self.key("http://h/a"), maxBodyBytes: 1 << 30)?.body.count == 400)  // a is now the most recent
            usleep(5000)
            store.store(Self.entry("http://h/c", bytes: 400), for: Self.key("http://h/c"))
            #expect(store.entry(for: Self.key("http://h/b"), maxBodyBytes: 1 << 30) == nil, "\(type(of: store))")
            #expect(store.entry(for: Self.key("http://h/a"), maxBodyBytes: 1 << 30) != nil)
            #expect(store.entry(for: Self.key("http://h/c"), maxBodyBytes: 1 << 30) != nil)
            store.store(Self.entry("http://h/huge", bytes: 100_000), for: Self.key("http://h/huge"))  // larger than the cap: not kept
            #expect(store.entry(for: Self.key("http://h/huge"), maxBodyBytes: 1 << 30) == nil)
            #expect(store.entry(for: Self.key("http://h/c"), maxBodyBytes: 1 << 30) != nil)
        }
    }

    @Test func aDiskStoreKeepsEverythingAcrossStoresInTheFolder() {
        let directory = TestFiles.folder("gw-cache")
        defer { system("rm -rf '\(directory)'") }
        var stored = Self.entry("http://h/x?q=1", bytes: 10)
        stored.headers.add("Vary", "Accept-Language")
        stored.varyValues = [("accept-language", CachedResponse.varyDigest("en")), ("x-absent", nil)]
        DiskCacheStore(directory: directory, maxBytes: 1 << 20).store(stored, for: Self.key("http://h/x?q=1"))
        let read = DiskCacheStore(directory: directory, maxBytes: 1 << 20).entry(for: Self.key("http://h/x?q=1"),
                                                                                 maxBodyBytes: 1 << 20)
        #expect(read?.status == 200)
        #expect(read?.body == stored.body)
        #expect(read?.headers == stored.headers)
        #expect(read?.varyValues.map(\.name) == ["accept-language", "x-absent"])
        #expect(read?.varyValues.map(\.digest) == [CachedResponse.varyDigest("en"), nil])
        #expect(read?.url == "http://h/x?q=1")
        #expect(read?.responseTime == 1000)
        #expect(DiskCacheStore(directory: directory, maxBytes: 1 << 20).entry(for: Self.key("http://h/other"),
                                                                             maxBodyBytes: 1 << 20) == nil)
    }

    @Test func aClientWithACacheDirectoryServesWhatAnEarlierClientStored() async throws {
        let server = try TestServer()
        let directory = TestFiles.folder("gw-cache")
        defer { system("rm -rf '\(directory)'") }
        let config = try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "cache": {"directory": "\#(directory)"}}"#)
        let first = try Client(config: config)
        #expect(!(try await first.send(.get("/cacheable/disk-1", parameters: ["cc": "max-age=60"]))).fromCache)
        first.close()
        let second = try await Client(config: config).send(.get("/cacheable/disk-1", parameters: ["cc": "max-age=60"]))
        #expect(second.fromCache)
        #expect(second.body?.node["attempt"]?.integer == 1)
        let count = try await Client(baseURL: server.baseURL).send(.get("/sequence/disk-1/count"))
        #expect(count.body?.node["count"]?.integer == 1)
    }

    @Test func freshnessFollowsMaxAgeExpiresAndAge() {
        var entry = Self.entry("http://h/f", bytes: 1, now: 1000)
        #expect(entry.isFresh(now: 1059))
        #expect(!entry.isFresh(now: 1061))
        entry.headers = ["Cache-Control": "max-age=60", "Age": "50"]
        #expect(!entry.isFresh(now: 1011))
        entry.headers = ["Date": "Thu, 01 Jan 1970 00:16:40 GMT", "Expires": "Thu, 01 Jan 1970 00:17:40 GMT"]  // 1000, 1060
        #expect(entry.freshnessLifetime == 60)
        #expect(entry.isFresh(now: 1030))
        entry.headers = ["Cache-Control": "max-age=60, no-cache"]
        #expect(!entry.isFresh(now: 1001))
        entry.headers = ["Cache-Control": "s-maxage=60"]  // a shared cache's: ignored
        #expect(!entry.isFresh(now: 1001))
        entry.headers = ["Cache-Control": #"private="Set-Cookie", max-age="30""#]
        #expect(entry.freshnessLifetime == 30)
    }
}

/// The `cache` keys of the config and of a route.
@Suite struct CacheConfigTests {
    @Test func theConfigReadsTheCacheAndChecksItsFolder() throws {
        #expect(try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "cache": true}"#).cache == HTTPCacheSettings())
        #expect(try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "cache": false}"#).cache == nil)
        let sized = try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "cache": {"maxBytes": 4096, "directory": "/tmp/gw-c"}}"#)
        #expect(sized.cache == HTTPCacheSettings(maxBytes: 4096, directory: "/tmp/gw-c"))
        for (json, path, message) in [
            (#"{"maxBytes": 0}"#, "cache.maxBytes", "0 is out of range"),
            (#"{"size": 1}"#, "cache.size", "unknown field"),
            (#"{"directory": "/nonexistent/a/b"}"#, "cache.directory", "cannot write to \"/nonexistent/a\""),
            ("1", "cache", "expected true, false or an object"),
        ] {
            do {
                _ = try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "cache": \#(json)}"#)
                Issue.record("\(json) was accepted")
            } catch {
                #expect(error.path == path)
                #expect(error.message.contains(message), "\(error.message)")
            }
        }
        let route = try GatewayConfig(json: #"""
            {"baseURL": "http://127.0.0.1:1", "routes": {"r": {"method": "GET", "pathPattern": "/r", "cache": false}}}
            """#)
        #expect(route.routes["r"]?.cache == false)
    }
}
