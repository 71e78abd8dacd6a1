@testable import Gatewire
import Glibc
import Testing

/// Who the HTTP cache serves: a stored response only to a request with the same credentials
/// (API keys from a plugin or a call, `Authorization` whatever the response's
/// `Cache-Control`, the cookie jar's cookies), and a cache folder that trusts nothing it did
/// not write itself (its mode and owner, symbolic links, planted and oversized entries) and
/// keeps no secret in clear. Against the scripted server's `/cacheable/KEY`, which counts the
/// requests it saw and echoes their header fields.
@Suite(.serialized) struct CachePartitionTests {
    static func config(_ server: TestServer, _ extra: String) throws -> GatewayConfig {
        try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "retry": {"maxRetries": 0}\#(extra)}"#)
    }

    static func count(_ server: TestServer, _ key: String) async throws -> Int {
        Int(try await Client(baseURL: server.baseURL).send(.get("/sequence/\(key)/count")).body?.node["count"]?.integer ?? -1)
    }

    static func folder(mode: mode_t = 0o700) -> String {
        let directory = TestFiles.folder("gw-cache")
        chmod(directory, mode)
        return directory
    }

    @Test func twoAPIKeysSharingACacheFolderNeverSeeEachOthersResponses() async throws {
        let server = try TestServer()
        let directory = Self.folder()
        defer { system("rm -rf '\(directory)'") }
        func client(_ key: String) throws -> Client {
            try Client(config: Self.config(server, #"""
                , "cache": {"directory": "\#(directory)"}, "plugins": [{"name": "apiKey", "header": "X-Api-Key", "value": "\#(key)"}]
                """#))
        }
        let request = Request.get("/cacheable/keys-1", parameters: ["cc": "max-age=60"])
        let userA = try await client("KEY_USER_A").send(request)
        let userB = try await client("KEY_USER_B").send(request)
        #expect(!userB.fromCache)
        #expect(userB.body?.node["headers"]?["x-api-key"]?.string == "KEY_USER_B")
        let againA = try await client("KEY_USER_A").send(request)
        #expect(againA.fromCache)
        #expect(againA.body?.node["attempt"]?.integer == userA.body?.node["attempt"]?.integer)
        #expect(try await Self.count(server, "keys-1") == 2)
    }

    @Test func perCallSecretHeadersAndCookiesPartitionTheMemoryCache() async throws {
        let server = try TestServer()
        let client = try Client(config: Self.config(server, #", "cache": true"#))
        for (index, name) in ["X-Api-Key", "Cookie", "X-Auth-Token"].enumerated() {
            let key = "per-call-\(index)"
            func call(_ value: String) async throws -> Response {
                var request = Request.get("/cacheable/\(key)", parameters: ["cc": "private, max-age=60"])
                request.headers.set(name, value)
                return try await client.send(request)
            }
            #expect(!(try await call("USER_A")).fromCache)
            let other = try await call("USER_B")
            #expect(!other.fromCache, "\(name)")
            #expect(other.body?.node["headers"]?[name.lowercased()]?.string == "USER_B")
            #expect(try await call("USER_A").fromCache, "\(name)")
            #expect(try await Self.count(server, key) == 2)
        }
    }

    @Test func aPublicOrMustRevalidateAnswerToOneAuthorizationIsNotServedToAnother() async throws {
        let server = try TestServer()
        let client = try Client(config: Self.config(server, #", "cache": true"#))
        for (index, control) in ["public, max-age=60", "must-revalidate, max-age=60", "s-maxage=60, max-age=60"].enumerated() {
            let key = "shared-\(index)"
            func call(_ authorization: String?) async throws -> Response {
                var request = Request.get("/cacheable/\(key)", parameters: ["cc": control])
                if let authorization { request.headers.set("Authorization", authorization) }
                return try await client.send(request)
            }
            _ = try await call("Bearer USER_A")
            #expect(!(try await call("Bearer USER_B")).fromCache, "\(control)")
            #expect(!(try await call(nil)).fromCache, "\(control)")
            #expect(try await call("Bearer USER_A").fromCache, "\(control)")
            #expect(try await Self.count(server, key) == 3)
        }
    }

    @Test func theJarsCookiesPartitionTheCache() async throws {
        let server = try TestServer()
        let client = try Client(config: Self.config(server, #", "cache": true, "cookies": true"#))
        let page = Request.get("/cacheable/jar-page", parameters: ["cc": "private, max-age=60", "vary": "Cookie"])
        func logIn(_ user: String) async throws {
            _ = try await client.send(.get("/cacheable/jar-login", parameters: ["set_cookie": "sid=\(user); Path=/"]))
        }
        try await logIn("USER_A")
        let pageA = try await client.send(page)
        #expect(pageA.body?.node["headers"]?["cookie"]?.string == "sid=USER_A")
        try await logIn("USER_B")
        let pageB = try await client.send(page)
        #expect(!pageB.fromCache)
        #expect(pageB.body?.node["headers"]?["cookie"]?.string == "sid=USER_B")
        try await logIn("USER_A")
        let againA = try await client.send(page)
        #expect(againA.fromCache)
        #expect(againA.body?.node["headers"]?["cookie"]?.string == "sid=USER_A")
        #expect(againA.http.headers["Set-Cookie"] == nil)
    }

    @Test func aSharedFolderKeepsPrivateAnswersOnlyForCredentials() async throws {
        let server = try TestServer()
        let directory = Self.folder()
        defer { system("rm -rf '\(directory)'") }
        let client = try Client(config: Self.config(server, #", "cache": {"directory": "\#(directory)"}"#))
        let anonymous = Request.get("/cacheable/private-1", parameters: ["cc": "private, max-age=60"])
        for _ in 0..<2 { #expect(!(try await client.send(anonymous)).fromCache) }
        var keyed = Request.get("/cacheable/private-2", parameters: ["cc": "private, max-age=60"])
        keyed.headers.set("X-Api-Key", "K")
        #expect(!(try await client.send(keyed)).fromCache)
        #expect(try await client.send(keyed).fromCache)
    }

    @Test func aFolderOthersCanWriteOrALinkIsRefusedWithTheReason() throws {
        let open = Self.folder(mode: 0o777)
        let target = Self.folder()
        let link = target + "-link"
        symlink(target, link)
        defer { system("rm -rf '\(open)' '\(target)' '\(link)'") }
        for (path, reason) in [(open, "is writable by its group or others (mode 777)"), (link, "is a symbolic link")] {
            do {
                _ = try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "cache": {"directory": "\#(path)"}}"#)
                Issue.record("\(path) was accepted")
            } catch {
                #expect(error.path == "cache.directory")
                #expect(error.message == "the cache folder \"\(path)\" \(reason)\(reason.hasPrefix("is w") ? "; make it private (chmod go-w)" : "; name the folder itself")")
            }
        }
        chown(target, 65534, 65534)
        #expect(DiskCacheStore.folderProblem(target) == "\"\(target)\" is owned by user 65534, not by this user (\(geteuid()))")
    }

    @Test func aPlantedLinkOrOversizedEntryIsNeitherFollowedNorRead() throws {
        let directory = Self.folder()
        defer { system("rm -rf '\(directory)'") }
        let key = CacheKey(HTTPRequest(method: .get, url: "http://h/planted"), redactor: .standard, jarCookies: [])
        let name = "\(key.urlDigest.prefix(32))-\(key.digest.prefix(32)).entry"
        let victim = directory + "-victim"
        defer { unlink(victim) }
        #expect(TestFiles.write("precious", to: victim))
        symlink(victim, directory + "/" + name)
        let store = DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        #expect(store.entry(for: key, maxBodyBytes: 1 << 20) == nil)  // not followed to the victim
        store.store(CacheStoreTests.entry("http://h/planted", bytes: 10), for: key)
        #expect(TestFiles.read(victim) == "precious")
        var info = stat()
        #expect(lstat(directory + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
        #expect(store.entry(for: key, maxBodyBytes: 1 << 20)?.body.count == 10)
        #expect(store.entry(for: key, maxBodyBytes: 9) == nil)  // over the call's maxResponseBytes
        // A 300 MB file under the entry's name: past maxBytes, never read.
        #expect(truncate(directory + "/" + name, 300_000_000) == 0)
        #expect(DiskCacheStore(directory: directory, maxBytes: 1 << 20).entry(for: key, maxBodyBytes: 1 << 30) == nil)
    }

    @Test func theFolderHoldsNoSecretInClear() async throws {
        let server = try TestServer()
        let directory = Self.folder()
        defer { system("rm -rf '\(directory)'") }
        let client = try Client(config: Self.config(server, #", "cache": {"directory": "\#(directory)"}"#))
        var request = Request.get("/cacheable/clear-1", parameters: ["cc": "max-age=60", "api_key": "QUERY_SECRET",
                                                                     "vary": "X-Api-Key", "set_cookie": "sid=COOKIE_SECRET"])
        request.headers.set("X-Api-Key", "HEADER_SECRET")
        _ = try await client.send(request)
        let served = try await client.send(request)
        #expect(served.fromCache)
        #expect(served.http.headers["Set-Cookie"] == nil)
        // The entries' first lines: everything but the body (which the server wrote, echoing the request).
        let files = try #require(Self.read(pipe: "head -qn1 '\(directory)'/*.entry"))
        #expect(!files.isEmpty)
        for secret in ["QUERY_SECRET", "HEADER_SECRET", "COOKIE_SECRET", "clear-1"] {
            #expect(!files.contains(secret), "\(secret) is in the folder")
        }
    }

    static func read(pipe command: String) -> String? {
        guard let stream = popen(command, "r") else { return nil }
        defer { pclose(stream) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, stream)
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
