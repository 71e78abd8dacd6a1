import Gatewire
import Testing

/// Pagination in Swift: the AsyncSequence of pages, Decodable results, limits and errors.
/// (The shared case file covers each style through Swift, C and Python.)
@Suite(.serialized) struct PaginatorTests {
    struct Channel: Decodable, Equatable {
        let id: String
        let name: String
        let updated: GatewireDate
    }

    static func config(_ baseURL: String) throws -> GatewayConfig {
        try GatewayConfig(json: #"""
            {"baseURL": "\#(baseURL)",
             "routes": {"channels": {"method": "GET", "pathPattern": "/pages/slack",
                                     "pagination": {"style": "cursor", "cursorKeyPath": "response_metadata.next_cursor"}},
                        "issues": {"method": "GET", "pathPattern": "/pages/github-issues", "pagination": {"style": "link"}},
                        "plain": {"method": "GET", "pathPattern": "/pages/slack"}},
             "mappings": {"Channel": {"attributes": {"id": "id", "name": "name",
                                                     "updated": {"to": "updated", "type": "date", "dateFormat": "epochMilliseconds"}}}},
             "responseDescriptors": [{"mapping": "Channel", "pathPattern": "/pages/slack", "keyPath": "channels"}]}
            """#)
    }

    @Test func pagesAreAnAsyncSequenceOfDecodableResults() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try Client(config: try Self.config(server.baseURL))
        defer { client.close() }
        var names: [[String]] = []
        for try await page in client.pages(Request(route: "channels")) {
            let channels = try page.mappingResult.decodeAll(Channel.self, at: "channels")
            names.append(channels.map(\.name))
            #expect(channels.first?.updated == GatewireDate(millisecondsSince1970: 1_678_229_664_302))
        }
        #expect(names == [["general", "random"], ["random"]])
    }

    @Test func anExplicitPaginationReplacesTheRoutesAndMaxPagesStops() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try Client(config: try Self.config(server.baseURL))
        defer { client.close() }
        let paginator = try client.paginator(Request(route: "issues"), pagination: .link(maxPages: 2))
        #expect(try paginator.next()?.path == "/pages/github-issues")
        #expect(try paginator.next()?.path == "/pages/github-issues?per_page=3&page=2")
        #expect(try paginator.next() == nil)
        #expect(paginator.pageCount == 2)
        var count = 0
        for try await _ in client.pages(Request(route: "plain"), pagination: .cursor(at: "response_metadata.next_cursor")) {
            count += 1
        }
        #expect(count == 2)
    }

    @Test("keyset (Stripe's starting_after while has_more) and nextURL (Twilio's next_page_uri) walk every page, from the config or given")
    func keysetAndNextURL() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try Client(config: try GatewayConfig(json: #"""
            {"baseURL": "\#(server.baseURL)",
             "routes": {"charges": {"method": "GET", "pathPattern": "/pages/stripe-charges",
                                    "pagination": {"style": "keyset", "itemsKeyPath": "data", "parameter": "starting_after",
                                                   "hasMoreKeyPath": "has_more"}},
                        "messages": {"method": "GET", "pathPattern": "/pages/twilio-messages",
                                     "pagination": {"style": "nextURL", "urlKeyPath": "next_page_uri"}}}}
            """#))
        defer { client.close() }
        var paths: [String] = []
        var ids: [[String]] = []
        for try await page in client.pages(Request(route: "charges")) {
            paths.append(page.path)
            ids.append(try #require(page.body?.node["data"]).elements.compactMap { $0["id"]?.string })
        }
        #expect(ids == [["ch_1", "ch_2"], ["ch_3", "ch_4"], ["ch_5"]])
        #expect(paths == ["/pages/stripe-charges", "/pages/stripe-charges?starting_after=ch_2",
                          "/pages/stripe-charges?starting_after=ch_4"])
        var messages: [String] = []
        for try await page in client.pages(Request(route: "messages")) {
            messages += try #require(page.body?.node["messages"]).elements.compactMap { $0["sid"]?.string }
        }
        #expect(messages == ["SM0", "SM1", "SM2"])
        var given = 0
        for try await _ in client.pages(Request.get("/pages/twilio-messages"), pagination: .nextURL(at: "next_page_uri", maxPages: 2)) {
            given += 1
        }
        #expect(given == 2)
        let keyset = Pagination.keyset(items: "data", parameter: "starting_after", hasMore: "has_more")
        var pages = 0
        for try await _ in client.pages(Request.get("/pages/stripe-charges"), pagination: keyset) { pages += 1 }
        #expect(pages == 3)
    }

    @Test func aCursorPageThatIsNotValidJSONEndsTheWalkWithAMappingError() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try Client(config: try Self.config(server.baseURL))
        defer { client.close() }
        let seen = Lock<[GatewireError]>([])
        client.addFailureObserver { error in seen.withLock { $0.append(error) } }
        // No descriptor maps this path, but the cursor is read from the body, so the call
        // parses it and fails like a mapped one: Jansson's line and column, the query's
        // secret redacted, the failure observers told once.
        let request = Request.get("/fixture/nginx-502-bad-gateway.html",
                                  parameters: ["content_type": "application/json", "api_key": "s3cret"])
        let paginator = try client.paginator(request, pagination: .cursor(at: "next"))
        let error = #expect(throws: GatewireError.self) { try paginator.next() }
        #expect(error?.kind == .mapping)
        #expect(error?.status == 200)
        #expect(error?.message.hasPrefix("invalid JSON at line 1, column 1: ") == true)
        #expect(error?.path.contains("s3cret") == false)
        #expect(seen.withLock { $0.map(\.kind) } == [.mapping])
        #expect(try paginator.next() == nil)
        #expect(paginator.pageCount == 1)
        // The same call outside a paginator has nothing to map: it succeeds.
        #expect(try client.sendAndWait(request).status == 200)
    }

    @Test func aRouteWithoutPaginationIsAnInvalidArgument() async throws {
        let client = try Client(config: try Self.config("http://127.0.0.1:1"))
        defer { client.close() }
        let error = #expect(throws: GatewireError.self) { try client.paginator(Request(route: "plain")) }
        #expect(error?.kind == .invalidArgument)
        // A route the config does not have is named as unknown, not as lacking a pagination.
        let unknown = #expect(throws: GatewireError.self) { try client.paginator(Request(route: "nope")) }
        #expect(unknown?.message == "unknown route \"nope\" (known: channels, issues, plain)")
        #expect(error?.message.contains("routes.plain.pagination") == true)
        var iterator = client.pages(Request(route: "plain")).makeAsyncIterator()
        await #expect(throws: GatewireError.self) { _ = try await iterator.next() }
    }

    @Test(arguments: [
        ("http://h/api/items?page=2", "http://h/api", "/items?page=2"),
        ("http://h/api?page=2", "http://h/api/", "/?page=2"),
        ("http://h/apiv2/items", "http://h/api", nil),
        ("/items?page=2", "http://h", "/items?page=2"),
        ("/items?page=2", "http://h/api", nil),
        ("https://other/items", "http://h", nil),
        ("http://h/items?cursor=a:b", "http://h", "/items?cursor=a%3Ab"),
    ] as [(String, String, String?)])
    func linkTargetsMustLieUnderTheBaseURL(target: String, base: String, expected: String?) {
        #expect(Paginator.relativePathForTesting(target, baseURL: base) == expected)
    }
}

/// The README's mapping example (examples/stripe.json), as written there, against the test server.
@Suite struct ReadmeMappingExampleTests {
    struct Card: Decodable { let last4: String; let brand: String; let chargeId: String }
    struct Charge: Decodable { let id: String; let amount: Int64; let created: GatewireDate; let card: Card }

    @Test func theStripeExampleMapsAndPages() async throws {
        let server = try TestServer()
        defer { server.stop() }
        var config = try GatewayConfig(contentsOfFile: TestServer.repoRoot + "/examples/stripe.json")
        config.baseURL = server.baseURL
        let client = try Client(config: config)
        defer { client.close() }

        let response = try await client.send(Request(route: "charge"))
        let charge = try response.mappingResult.decode(Charge.self)  // key path "": the whole body
        #expect(charge.amount == 1061)
        #expect(charge.card.last4 == "4242")
        #expect(charge.card.chargeId == "ch_198c152iMoKf4jyWWYvyqjTX")
        #expect(charge.created == GatewireDate(millisecondsSince1970: 1_477_429_167_000))
        #expect(response.metadata?.node["headers"]?["content-type"]?.string == "application/json")

        var counts: [Int] = []
        for try await page in client.pages(Request(route: "channels")) { counts.append(page.mappingResult.count(at: "channels")) }
        #expect(counts == [2, 1])
    }
}
