import Gatewire
import GatewireJSON
import GatewireOpenAPI
import Glibc
import Testing

/// The config imported from Stripe's OpenAPI document, against Stripe's own example objects
/// (`fixtures3.json`, Tests/fixtures/openapi): each object that a generated GET route's
/// response descriptor maps at the body is served by the test server on loopback at that
/// route's path, called through the route, and must map without an error, with every
/// attribute of the mapping that the object has present and of the schema's type.
@Suite struct OpenAPIStripeFixtureTests {
    static let shared = TestServer.repoRoot + "/Tests/fixtures/openapi/stripe"

    /// The objects whose fixture (a later commit of Stripe's repository than the 2022-04-12
    /// document) lacks a field the document requires, or has null where it is not nullable:
    /// the mapping holds the document's `required`, so these fail as they should, each with
    /// the message naming the field.
    static let drift: [String: String] = [
        "invoice": #"required attribute "paid" of invoice is missing"#,
        "issuing.authorization": #"required attribute "first_name" of issuing_cardholder_individual is null"#,
        "issuing.card": #"required attribute "first_name" of issuing_cardholder_individual is null"#,
        "issuing.cardholder": #"required attribute "first_name" of issuing_cardholder_individual is null"#,
        "issuing.settlement": #"required attribute "interchange_fees" of issuing.settlement is missing"#,
        "subscription": #"required attribute "current_period_end" of subscription is missing"#,
    ]

    @Test func everyFixtureObjectMapsOnItsGeneratedRoute() async throws {
        try #require(access(Self.shared + "/spec3-2022-04-12.json", R_OK) == 0, "the shared Stripe fixtures are missing")
        let imported = try OpenAPIImporter.importDocument(atPath: Self.shared + "/spec3-2022-04-12.json")
        let config = try JSONValue.parse(imported.config).node
        let fixtures = try #require(TestFiles.read(Self.shared + "/fixtures3.json"))
        let resources = try #require(try JSONValue.parse(fixtures).node["resources"])
        // The GET route and pattern that maps each mapping at the body ("" key path), first by pattern.
        var routeOf: [String: (route: String, pattern: String)] = [:]
        let routes = try #require(config["routes"]).members
        for descriptor in try #require(config["responseDescriptors"]).elements where descriptor["keyPath"] == nil {
            guard descriptor["method"]?.string == "GET", let mapping = descriptor["mapping"]?.string,
                  let pattern = descriptor["pathPattern"]?.string, routeOf[mapping] == nil,
                  let route = routes.first(where: { $0.value["method"]?.string == "GET" && $0.value["pathPattern"]?.string == pattern })
            else { continue }
            routeOf[mapping] = (route.key, pattern)
        }
        let folder = TestFiles.folder("gw-stripe-fixtures")
        defer { _ = system("rm -rf '\(folder)'") }
        let server = try TestServer(arguments: ["--fixtures", folder])
        defer { server.stop() }
        var mapped = 0
        var failures: [String] = []
        for (name, object) in resources.members.sorted(by: { $0.key < $1.key }) {
            guard let (route, pattern) = routeOf[name] else { continue }
            // Each object under a folder of its own (base URL .../fixture/NAME), so that
            // /v1/balance (a file) and /v1/balance/history/:id (a folder) never collide.
            var parameters: [String: any ParameterValue] = ["content_type": "application/json"]
            var path = ""
            for segment in pattern.split(separator: "/") {
                if segment.hasPrefix(":") { parameters[String(segment.dropFirst())] = "x"; path += "/x" } else { path += "/" + segment }
            }
            let file = "\(folder)/\(name)\(path)"
            #expect(system("mkdir -p '\(file[..<file.lastIndex(of: "/")!])'") == 0)
            #expect(TestFiles.write(object.serialized(), to: file))
            var gateway = try GatewayConfig(json: imported.config)
            gateway.baseURL = "\(server.baseURL)/fixture/\(name)"
            gateway.retryPolicy = .none
            let client = try Client(config: gateway)
            defer { client.close() }
            let response: Response
            do {
                response = try await client.send(Request(route: route, parameters: parameters))
            } catch {
                failures.append(name)
                #expect("\(error)".contains(Self.drift[name] ?? "(not a known drift)"), "\(name): \(error)")
                continue
            }
            let result = try #require(response.mapped?.node[""], "\(name): nothing mapped on \(route)")
            let attributes = config["mappings"]?[name]?["attributes"]?.members ?? []
            for (source, field) in attributes {
                guard let value = object[source], !value.isNull else { continue }
                let out = try #require(result[source], "\(name).\(source) is not mapped")
                let expected: [JSONNode.Kind] = switch field["type"]?.string {
                case "integer": [.integer]
                case "number": [.integer, .real]
                case "boolean": [.bool]
                case "string", "date": value.kind == .array ? [.array] : [.string]
                default: [value.kind]
                }
                #expect(expected.contains(out.kind), "\(name).\(source): \(out.kind), the schema says \(field.serialized())")
            }
            mapped += 1
        }
        #expect(failures == Self.drift.keys.sorted())
        #expect(mapped + failures.count == 68)  // of the 176 objects, those a 2022-04-12 GET route maps at the body
    }
}
