import Gatewire
import Testing

/// Codable both ways: ``JSONNodeEncoder`` writes what ``JSONNodeDecoder`` reads back, and
/// Encodable bodies and objects go out through a real httpbin (``HTTPBinServer``), whose
/// `/anything` echoes the JSON it received under `json`; ``Response/decode(_:at:)`` decodes a
/// body no descriptor mapped.
@Suite(.serialized) struct CodableTests {
    struct Line: Codable, Equatable, Sendable {
        let sku: String
        let quantity: Int
        let price: Double
    }

    struct Order: Codable, Equatable, Sendable {
        let id: Int64
        let customer: String
        let note: String?
        let gift: Bool
        let placedAt: GatewireDate
        let deliverBy: GatewireDate?
        let lines: [Line]
        let tags: [String: String]
        let ratings: [Int?]
        let counters: [String: UInt32]
    }

    static let order = Order(
        id: 9_007_199_254_740_993,  // 2^53 + 1: beyond Int32 and beyond a double's exact integers
        customer: "Ann Lee", note: nil, gift: true,
        placedAt: GatewireDate(iso8601: "2026-03-01T09:30:15.250Z")!, deliverBy: nil,
        lines: [Line(sku: "A-1", quantity: 2, price: 9.99), Line(sku: "B-2 \"x\"", quantity: -1, price: 0.1)],
        tags: ["é": "ü"], ratings: [5, nil, 3], counters: ["max": UInt32.max])

    let httpbin: HTTPBinServer

    init() throws { httpbin = try HTTPBinServer() }

    func client(_ extra: String = "") throws -> Client {
        try Client(config: GatewayConfig(json: "{\"baseURL\": \"\(httpbin.baseURL)\"\(extra)}"))
    }

    // MARK: The encoder and the decoder

    @Test func anEncodedOrderIsTheJSONExpectedAndDecodesBackEqual() throws {
        let tree = try JSONNodeEncoder().encode(Self.order)
        #expect(tree.serialized() == """
            {"id":9007199254740993,"customer":"Ann Lee","gift":true,"placedAt":"2026-03-01T09:30:15.250Z",\
            "lines":[{"sku":"A-1","quantity":2,"price":9.9900000000000002},\
            {"sku":"B-2 \\"x\\"","quantity":-1,"price":0.10000000000000001}],\
            "tags":{"é":"ü"},"ratings":[5,null,3],"counters":{"max":4294967295}}
            """)  // nil optionals omitted; members in encoding order
        #expect(try JSONNodeDecoder().decode(Order.self, from: tree) == Self.order)
    }

    @Test func scalarsExplicitNullsAndEmptyValues() throws {
        struct Nothing: Encodable {
            func encode(to encoder: any Encoder) throws {}
        }
        struct Holder: Encodable {
            let inner = Nothing()
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(inner, forKey: .inner)
                try container.encodeNil(forKey: .missing)
            }
            enum CodingKeys: String, CodingKey { case inner, missing }
        }
        let encoder = JSONNodeEncoder()
        #expect(try encoder.encode(Int64.min).serialized() == "-9223372036854775808")
        #expect(try encoder.encode("a\"b").serialized() == "\"a\\\"b\"")
        #expect(try encoder.encode(Float(0.1)).node.number.map { Float($0) } == Float(0.1))
        #expect(try encoder.encode([1: "one"]).serialized() == "{\"1\":\"one\"}")
        #expect(try encoder.encode(["k\u{0}": "v\u{0}"]).serialized() == "{\"k\\u0000\":\"v\\u0000\"}")
        #expect(try encoder.encode(Set([7])).serialized() == "[7]")
        #expect(try encoder.encode(Holder()).serialized() == "{\"inner\":{},\"missing\":null}")
        #expect(try encoder.encode(Optional<Int>.none).serialized() == "null")
        #expect(try JSONNodeDecoder().decode([Int: String].self, from: encoder.encode([1: "one"])) == [1: "one"])
    }

    @Test func valuesJSONCannotHoldAreErrorsWithTheirCodingPath() throws {
        struct Reading: Encodable { let values: [Double] }
        struct Counter: Encodable { let count: UInt64 }
        struct Nothing: Encodable {
            func encode(to encoder: any Encoder) throws {}
        }
        let cases: [(any Encodable, [String], String)] = [
            (Reading(values: [1, .nan]), ["values", "Index 1"], "nan is not a finite number, which JSON cannot hold"),
            (Counter(count: UInt64(Int64.max) + 1), ["count"],
             "9223372036854775808 does not fit in a JSON integer (Jansson holds 64-bit signed integers)"),
            (Nothing(), [], "Top-level Nothing did not encode any values"),
        ]
        for (value, path, reason) in cases {
            do {
                _ = try JSONNodeEncoder().encode(value)
                Issue.record("\(value) encoded")
            } catch let EncodingError.invalidValue(_, context) {
                #expect(context.codingPath.map(\.stringValue) == path)
                #expect(context.debugDescription == reason)
            }
        }
    }

    @Test func datesRoundTripAsISO8601WithMilliseconds() throws {
        let dates = [GatewireDate(millisecondsSince1970: -62_135_596_800_000)!,  // 0001-01-01
                     GatewireDate(millisecondsSince1970: 0)!,
                     GatewireDate(millisecondsSince1970: 1_772_357_415_250)!,
                     GatewireDate(millisecondsSince1970: 253_402_300_799_999)!]  // 9999-12-31
        let tree = try JSONNodeEncoder().encode(dates)
        #expect(tree.serialized() == "[\"0001-01-01T00:00:00.000Z\",\"1970-01-01T00:00:00.000Z\","
            + "\"2026-03-01T09:30:15.250Z\",\"9999-12-31T23:59:59.999Z\"]")
        #expect(try JSONNodeDecoder().decode([GatewireDate].self, from: tree) == dates)
    }

    // MARK: Encodable bodies on the wire

    @Test func anEncodableBodyRoundTripsThroughTheServer() async throws {
        let response = try await client().send(Request.post("/anything", body: .json(Self.order)))
        #expect(response.http.headers["Content-Type"] == "application/json")
        let echoed = try JSONValue.parse(response.http.text).node
        #expect(echoed["headers"]?["Content-Type"]?.string == "application/json")
        #expect(echoed["json"]?["note"] == nil)  // nil optionals are omitted...
        #expect(echoed["json"]?["ratings"]?.elements[1].isNull == true)  // ...a nil element is null
        #expect(echoed["json"]?["id"]?.integer == 9_007_199_254_740_993)
        // No descriptor maps /anything: send(_:decoding:at:) decodes the body at "json".
        let decoded = try await client().send(Request.post("/anything", body: .encodable(Self.order)),
                                              decoding: Order.self, at: "json")
        #expect(decoded == Self.order)
    }

    @Test func aDictionaryLiteralIsAJSONBody() async throws {
        struct Echo: Decodable { let json: [String: String]; let method: String }
        let echo = try await client().send(Request.post("/anything", body: .json(["name": "Ann"])), decoding: Echo.self)
        #expect(echo.json == ["name": "Ann"])
        #expect(echo.method == "POST")
    }

    @Test func anEncodableObjectGoesThroughItsRequestDescriptor() async throws {
        struct Account: Encodable, Sendable {
            let id: Int
            let name: String
            let email: String?
            let joined: GatewireDate
        }
        let config = """
            , "routes": {"updateAccount": {"method": "PUT", "pathPattern": "/anything/accounts/:id", "objectType": "Account"}},
            "mappings": {"Account": {"attributes": {"full_name": "name", "contact.email": "email", "joined_at": "joined"}}},
            "requestDescriptors": [{"objectType": "Account", "mapping": "Account", "rootKeyPath": "user"}]
            """
        let account = Account(id: 42, name: "Ann Lee", email: nil, joined: GatewireDate(iso8601: "2020-02-29T12:00:00Z")!)
        let response = try await client(config).send(Request(route: "updateAccount", body: .object(account)))
        #expect(response.path == "/anything/accounts/42")  // the object's id filled the path
        let echoed = try JSONValue.parse(response.http.text).node
        // The descriptor writes a missing value as null (RestKit's rule for request bodies).
        #expect(echoed["json"]?.serialized()
            == "{\"user\":{\"contact\":{\"email\":null},\"full_name\":\"Ann Lee\",\"joined_at\":\"2020-02-29T12:00:00.000Z\"}}")
    }

    @Test func aBodyThatCannotBeEncodedFailsTheCallBeforeSending() async throws {
        struct Reading: Encodable, Sendable { let values: [Double] }
        let client = try self.client()
        let observed = Lock<[ErrorKind]>([])
        client.addFailureObserver { error in observed.withLock { $0.append(error.kind) } }
        do {
            _ = try await client.send(Request.post("/anything", body: .json(Reading(values: [.infinity]))))
            Issue.record("sent")
        } catch {
            #expect(error.kind == .invalidArgument)
            #expect(error.message == "the body could not be encoded at values[0]: inf is not a finite number, which JSON cannot hold")
            #expect(error.attempts.isEmpty)
        }
        #expect(observed.withLock { $0 } == [.invalidArgument])
    }

    // MARK: Decoding a body no descriptor maps

    struct Slide: Decodable { let title: String; let type: String }
    struct Slideshow: Decodable { let title: String; let author: String; let slides: [Slide] }

    @Test func aBodyNoDescriptorMapsIsDecodedWholeOrAtAKeyPath() async throws {
        struct Whole: Decodable { let slideshow: Slideshow }
        let client = try self.client()
        let whole = try await client.send(Request.get("/json"), decoding: Whole.self)
        #expect(whole.slideshow.title == "Sample Slide Show")
        #expect(whole.slideshow.slides.map(\.type) == ["all", "all"])
        let titles = try await client.send(Request.get("/json"), decoding: [String].self, at: "slideshow.slides.title")
        #expect(titles == ["Wake up to WonderWidgets!", "Overview"])
    }

    @Test func aMatchingDescriptorStillDecidesWhatIsDecoded() async throws {
        let config = """
            , "mappings": {"Show": {"attributes": {"title": "name"}}},
            "responseDescriptors": [{"mapping": "Show", "method": "GET", "pathPattern": "/json", "keyPath": "slideshow"}]
            """
        struct Show: Decodable { let name: String }
        let show = try await client(config).send(Request.get("/json"), decoding: Show.self, at: "slideshow")
        #expect(show.name == "Sample Slide Show")
        let client = try self.client(config)
        do {
            _ = try await client.send(Request.get("/json"), decoding: Slideshow.self)
            Issue.record("decoded the body although a descriptor mapped it")
        } catch {
            #expect(error.message == "nothing was mapped at key path \"\" (mapped: \"slideshow\")")
        }
    }

    @Test func decodingABodyThatIsNotJSONOrHasNothingThereIsAMappingFailure() async throws {
        let client = try self.client()
        let observed = Lock<Int>(0)
        client.addFailureObserver { _ in observed.withLock { $0 += 1 } }
        do {
            _ = try await client.send(Request.get("/html"), decoding: Slideshow.self)
            Issue.record("decoded HTML")
        } catch {
            #expect(error.kind == .mapping)
            #expect(error.status == 200)
            #expect(error.message.hasPrefix(
                "nothing was mapped and the body is not JSON (status 200, Content-Type text/html; charset=utf-8, "))
        }
        do {
            _ = try await client.send(Request.get("/json"), decoding: Slideshow.self, at: "show")
            Issue.record("decoded a missing key path")
        } catch {
            #expect(error.message == "nothing was mapped and the body has nothing at key path \"show\"")
        }
        do {
            _ = try await client.send(Request.get("/json"), decoding: Slideshow.self)
            Issue.record("decoded the wrong shape")
        } catch {
            #expect(error.kind == .mapping)
            #expect(error.message.hasPrefix("does not decode as Slideshow: DecodingError.keyNotFound: Key 'title' not found"))
        }
        #expect(observed.withLock { $0 } == 3)
    }

    // MARK: The README

    /// The README's "First call from Swift", as written there, with httpbin's port.
    @Test func theREADMEQuickstartRunsAsWritten() async throws {
        var config = try GatewayConfig(contentsOfFile: TestServer.repoRoot + "/examples/httpbin.json")
        config.baseURL = httpbin.baseURL
        let client = try Client(config: config)
        defer { client.close() }
        struct Signup: Codable { let name: String; let email: String?; let joined: GatewireDate }
        struct Echo: Decodable { let json: Signup }
        let signup = Signup(name: "Ann", email: nil, joined: GatewireDate(iso8601: "2026-03-01T09:30:00Z")!)
        let echo = try await client.send(.post("/anything", body: .json(signup)), decoding: Echo.self)
        #expect("\(echo.json.name) \(echo.json.joined)" == "Ann 2026-03-01T09:30:00.000Z")
        #expect(echo.json.email == nil)
        let search = Request.get("/anything/search", parameters: ["q": "gate wire", "page": 2, "ids": [1, 2]])
        #expect(try await client.send(search.validate(statusCode: [200])).path == "/anything/search?page=2&q=gate%20wire&ids=1&ids=2")
        struct Slide: Decodable { let kind: String; let title: String }
        struct Slideshow: Decodable { let title: String; let author: String; let slides: [Slide] }
        let show = try await client.send(Request(route: "slideshow"), decoding: Slideshow.self, at: "slideshow")
        #expect("\(show.title) \(show.author) \(show.slides.count)" == "Sample Slide Show Yours Truly 2")
    }
}
