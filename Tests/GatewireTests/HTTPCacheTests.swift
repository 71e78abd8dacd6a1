import Gatewire
import Testing

/// The client's HTTP cache against a real httpbin (`/cache`, `/cache/N`, `/etag/E`,
/// `/response-headers`) and the scripted server's `/cacheable/KEY` (which counts the
/// requests it saw and echoes their header fields): what reached the server, and what the
/// caller got (``Response/fromCache``, ``Response/revalidated``, the same mapped objects).
@Suite(.serialized) struct HTTPCacheTests {
    /// Records the header fields of each request a plugin saw go out (`willSend`).
    final class Sent: Plugin, @unchecked Sendable {
        private let requests = Lock<[HTTPHeaders]>([])
        func willSend(_ request: HTTPRequest, context: PluginContext) { requests.withLock { $0.append(request.headers) } }
        var all: [HTTPHeaders] { requests.withLock { $0 } }
    }

    static func client(_ baseURL: String, _ extra: String = "", plugins: [any Plugin] = []) throws -> Client {
        let config = try GatewayConfig(json: #"""
            {"baseURL": "\#(baseURL)", "cache": true, "retry": {"maxRetries": 0}\#(extra),
             "mappings": {"Echo": {"attributes": {"url": "url", "key": "key", "attempt": "attempt"}}},
             "responseDescriptors": [{"mapping": "Echo"}]}
            """#)
        return try Client(config: config, plugins: plugins)
    }

    /// How many requests the scripted server saw for `key`.
    static func count(_ server: TestServer, _ key: String) async throws -> Int {
        let response = try await Client(baseURL: server.baseURL).send(.get("/sequence/\(key)/count"))
        return Int(response.body?.node["count"]?.integer ?? -1)
    }

    @Test func aFreshResponseIsServedWithoutARequestAndMappedAsTheOriginal() async throws {
        let httpbin = try HTTPBinServer()
        let sent = Sent()
        let client = try Self.client(httpbin.baseURL, plugins: [sent])
        let events = Lock<[String]>([])
        client.addEventMonitor { event in events.withLock { $0.append(event.kind.rawValue) } }
        let first = try await client.send(.get("/cache/60"))
        #expect(!first.fromCache && !first.revalidated)
        #expect(first.attempts.map(\.status) == [200])
        let second = try await client.send(.get("/cache/60"))
        #expect(second.fromCache && !second.revalidated)
        #expect(second.attempts.isEmpty)  // nothing went on the wire
        #expect(second.status == 200)
        #expect(second.http.body == first.http.body)
        #expect(second.mapped?.serialized() == first.mapped?.serialized())
        #expect(second.mapped?.node[""]?["url"]?.string == httpbin.baseURL + "/cache/60")
        #expect(sent.all.count == 1)  // willSend ran for the one request sent
        #expect(events.withLock { $0 } == ["call_started", "attempt_started", "attempt_finished", "call_finished",
                                           "call_started", "call_finished"])
    }

    /// A call whose body goes to a sink never holds the body, so the cache neither serves it
    /// (the body goes to the file from the network) nor keeps its response.
    @Test func aCallWithABodySinkBypassesTheCache() async throws {
        let httpbin = try HTTPBinServer()
        let folder = DownloadFiles.folder()
        let client = try Self.client(httpbin.baseURL)
        let stored = try await client.send(.get("/cache/60"))
        #expect(!stored.fromCache && stored.attempts.count == 1)
        var download = Request.get("/cache/60")
        download.options.bodySink = .file(folder + "/first.json")
        let streamed = try await client.send(download)
        #expect(!streamed.fromCache)
        #expect(streamed.attempts.map(\.status) == [200])  // it went on the wire
        #expect(DownloadFiles.read(folder + "/first.json")?.count == Int(streamed.attempts[0].bytesReceived))
        #expect(try await client.send(.get("/cache/60")).fromCache)  // what was stored is still there

        let fresh = try Self.client(httpbin.baseURL)
        var first = Request.get("/cache/60")
        first.options.bodySink = .file(folder + "/second.json")
        #expect(try await fresh.send(first).attempts.count == 1)
        let after = try await fresh.send(.get("/cache/60"))
        #expect(!after.fromCache && after.attempts.count == 1)  // the streamed response was not kept
    }

    @Test func aStaleResponseIsRevalidatedAndA304BecomesTheStoredResponse() async throws {
        let httpbin = try HTTPBinServer()
        for path in ["/cache", "/etag/v1-tag"] {
            let sent = Sent()
            let client = try Self.client(httpbin.baseURL, plugins: [sent])
            let first = try await client.send(.get(path))
            #expect(first.status == 200 && !first.fromCache)
            let second = try await client.send(.get(path))
            #expect(second.fromCache && second.revalidated, "\(path)")
            #expect(second.attempts.map(\.status) == [304])  // what the wire said
            #expect(second.status == 200)                      // what the caller gets
            #expect(second.http.body == first.http.body)
            #expect(second.mapped?.serialized() == first.mapped?.serialized())
            let conditional = try #require(sent.all.last)
            if path == "/cache" {
                #expect(conditional["If-Modified-Since"] == first.http.headers["Last-Modified"])
            }
            #expect(conditional["If-None-Match"] == first.http.headers["ETag"])
            #expect(sent.all.first?["If-None-Match"] == nil)
        }
    }

    @Test func noStoreAndNoCacheAreHonoured() async throws {
        let server = try TestServer()
        let client = try Self.client(server.baseURL)
        for _ in 0..<2 { _ = try await client.send(.get("/cacheable/ns-1", parameters: ["cc": "no-store, max-age=60"])) }
        #expect(try await Self.count(server, "ns-1") == 2)
        // no-cache: stored, but every use asks the server (a 304 here).
        let first = try await client.send(.get("/cacheable/nc-1", parameters: ["cc": "no-cache, max-age=60", "etag": "\"e1\""]))
        let second = try await client.send(.get("/cacheable/nc-1", parameters: ["cc": "no-cache, max-age=60", "etag": "\"e1\""]))
        #expect(!first.fromCache)
        #expect(second.revalidated)
        #expect(second.mapped?.node[""]?["attempt"]?.integer == 1)  // the stored body: the first answer's
        #expect(try await Self.count(server, "nc-1") == 2)
        // private: this is a private cache, which may keep it (RFC 9111 section 5.2.2.7).
        for _ in 0..<3 { _ = try await client.send(.get("/cacheable/pv-1", parameters: ["cc": "private, max-age=60"])) }
        #expect(try await Self.count(server, "pv-1") == 1)
    }

    @Test func varyKeysTheStoredResponseByTheSelectedRequestFields() async throws {
        let server = try TestServer()
        let client = try Self.client(server.baseURL)
        func send(_ language: String) async throws -> Response {
            var request = Request.get("/cacheable/vary-1", parameters: ["cc": "max-age=60", "vary": "Accept-Language"])
            request.headers.set("Accept-Language", language)
            return try await client.send(request)
        }
        let english = try await send("en")
        let again = try await send("en")
        #expect(!english.fromCache && again.fromCache)
        let french = try await send("fr")  // another variant: asks the server
        #expect(!french.fromCache)
        #expect(french.mapped?.node[""]?["attempt"]?.integer == 2)
        #expect(try await Self.count(server, "vary-1") == 2)
        var star = Request.get("/cacheable/vary-2", parameters: ["cc": "max-age=60", "vary": "*"])
        star.headers.set("Accept-Language", "en")
        for _ in 0..<2 { #expect(!(try await client.send(star)).fromCache) }
        #expect(try await Self.count(server, "vary-2") == 2)
    }

    @Test func aResponseToAnAuthorizedRequestIsKeptOnlyWhenItSaysSo() async throws {
        let server = try TestServer()
        let client = try Self.client(server.baseURL, #", "auth": {"type": "bearer", "token": "T"}"#)
        for _ in 0..<2 { _ = try await client.send(.get("/cacheable/auth-1", parameters: ["cc": "max-age=60"])) }
        #expect(try await Self.count(server, "auth-1") == 2)
        for _ in 0..<2 { _ = try await client.send(.get("/cacheable/auth-2", parameters: ["cc": "public, max-age=60"])) }
        #expect(try await Self.count(server, "auth-2") == 1)
        let echoed = try await client.send(.get("/cacheable/auth-2", parameters: ["cc": "public, max-age=60"]))
        #expect(echoed.fromCache)
    }

    @Test func expiresAgeAndHttpbinsResponseHeaders() async throws {
        let httpbin = try HTTPBinServer()
        let client = try Self.client(httpbin.baseURL)
        let fresh = ["Cache-Control": "max-age=60"]
        _ = try await client.send(.get("/response-headers", parameters: fresh))
        #expect(try await client.send(.get("/response-headers", parameters: fresh)).fromCache)
        // Age: 120 makes a max-age=60 response stale on arrival; without a validator, a miss.
        let aged = ["Cache-Control": "max-age=60", "Age": "120"]
        _ = try await client.send(.get("/response-headers", parameters: aged))
        #expect(!(try await client.send(.get("/response-headers", parameters: aged)).fromCache))
        // An Expires in the past, or one that is not a date, is stale.
        let expired = ["Expires": "Thu, 01 Jan 1970 00:00:00 GMT"]
        _ = try await client.send(.get("/response-headers", parameters: expired))
        #expect(!(try await client.send(.get("/response-headers", parameters: expired)).fromCache))
    }

    @Test func anUnsafeCallDropsTheStoredResponseAndARouteMayOptOut() async throws {
        let server = try TestServer()
        let client = try Self.client(server.baseURL, #"""
            , "routes": {"fresh": {"method": "GET", "pathPattern": "/cacheable/route-1", "cache": false},
                         "change": {"method": "POST", "pathPattern": "/cacheable/put-1"}}
            """#)
        let query = ["cc": "max-age=60"]
        _ = try await client.send(.get("/cacheable/put-1", parameters: query))
        #expect(try await client.send(.get("/cacheable/put-1", parameters: query)).fromCache)
        _ = try await client.send(Request(.post, "/cacheable/put-1", parameters: query))
        #expect(!(try await client.send(.get("/cacheable/put-1", parameters: query)).fromCache))
        #expect(try await Self.count(server, "put-1") == 3)
        for _ in 0..<2 { _ = try await client.send(Request(route: "fresh", parameters: query)) }
        #expect(try await Self.count(server, "route-1") == 2)
    }

    @Test func aRouteAloneMayTurnTheCacheOn() async throws {
        let server = try TestServer()
        let config = try GatewayConfig(json: #"""
            {"baseURL": "\#(server.baseURL)",
             "routes": {"cached": {"method": "GET", "pathPattern": "/cacheable/only-1", "cache": true}}}
            """#)
        let client = try Client(config: config)
        for _ in 0..<2 { _ = try await client.send(Request(route: "cached", parameters: ["cc": "max-age=60"])) }
        for _ in 0..<2 { _ = try await client.send(.get("/cacheable/only-2", parameters: ["cc": "max-age=60"])) }
        #expect(try await Self.count(server, "only-1") == 1)
        #expect(try await Self.count(server, "only-2") == 2)
    }
}
