import Gatewire
import GatewireOpenAPI
import Glibc
import Testing

/// The shared real documents (Tests/fixtures/openapi, SOURCES.md there): each config passes
/// the validation `gatewire check` runs, with no warning; every operation is a route or a
/// report line at the operation; importing twice gives the same bytes.
@Suite struct RealDocumentTests {
    /// Each document, its operations (SOURCES.md's count) and the routes made.
    static let documents: [(file: String, operations: Int, routes: Int)] = [
        ("stripe/spec3-2022-04-12.json", 417, 417),
        ("real/twilio-api-v2010.json", 197, 197),
        ("real/spotify-web-api.yml", 97, 97),
        ("real/google-maps-platform.yml", 17, 17),
        ("oai/v3.0/petstore.yaml", 3, 3),
        ("oai/v3.0/petstore-expanded.yaml", 4, 4),
        ("oai/v3.0/api-with-examples.yaml", 2, 2),
        ("oai/v3.0/callback-example.yaml", 1, 1),
        ("oai/v3.0/link-example.yaml", 6, 6),
        ("oai/v3.0/uspto.yaml", 3, 3),
        ("oai/v3.1/webhook-example.yaml", 0, 0),
        ("oai/v3.1/non-oauth-scopes.yaml", 1, 1),
    ]

    @Test(arguments: documents)
    func importsAsAValidConfig(_ document: (file: String, operations: Int, routes: Int)) throws {
        let path = Support.fixtures + "/" + document.file
        try #require(access(path, R_OK) == 0, "the shared fixture \(path) is missing")
        let result = try OpenAPIImporter.importDocument(atPath: path)
        let config = try GatewayConfig(json: result.config)
        #expect(config.warnings == [])
        #expect(result.operationCount == document.operations)
        #expect(result.routeCount == document.routes)
        #expect(config.routes.count == document.routes)
        let unrouted = result.report.lines.filter { $0.reason == "path_not_expressible" }
        #expect(result.routeCount + unrouted.count == result.operationCount)
        for line in result.report.lines {
            #expect(line.pointer.isEmpty || line.pointer.hasPrefix("/"), "not a JSON pointer: \(line.pointer)")
            #expect(!line.reason.isEmpty && !line.message.isEmpty)
        }
        let again = try OpenAPIImporter.importDocument(atPath: path)
        #expect(again.config == result.config)
        #expect(again.report == result.report)
    }

    /// The report lines by reason of the real documents, as docs/openapi.md gives them.
    static let reasons: [(file: String, counts: [String: Int])] = [
        ("stripe/spec3-2022-04-12.json", ["union_as_json": 698, "pagination_not_expressible": 7, "response_without_mapping": 33,
                                          "security_alternative_not_chosen": 1,
                                          "operation_server_ignored": 1, "response_not_json": 1]),
        ("real/twilio-api-v2010.json", ["pagination_not_expressible": 1, "response_status_not_mapped": 1]),
        ("real/spotify-web-api.yml", ["pagination_not_expressible": 6, "response_without_mapping": 2,
                                      "token_placeholder": 1, "request_body_not_mapped": 1]),
        ("real/google-maps-platform.yml", ["operation_server_ignored": 16, "response_not_json": 2,
                                           "property_name_not_mappable": 1]),
    ]

    @Test(arguments: reasons)
    func reportsWhatTheConfigCannotExpress(_ document: (file: String, counts: [String: Int])) throws {
        let path = Support.fixtures + "/" + document.file
        try #require(access(path, R_OK) == 0, "the shared fixture \(path) is missing")
        #expect(try OpenAPIImporter.importDocument(atPath: path).report.countsByReason == document.counts)
    }

    @Test func stripeListsMapTheirDataAndTimestampsAreEpochSeconds() throws {
        let path = Support.fixtures + "/stripe/spec3-2022-04-12.json"
        try #require(access(path, R_OK) == 0, "the shared fixture \(path) is missing")
        let result = try OpenAPIImporter.importDocument(atPath: path)
        #expect(try Support.value(result.config, "baseURL") == "\"https://api.stripe.com\"")
        #expect(try Support.value(result.config, "routes", "GetCustomers")
            == #"{"method":"GET","pagination":{"hasMoreKeyPath":"has_more","itemsKeyPath":"data","parameter":"starting_after","#
            + #""style":"keyset"},"pathPattern":"/v1/customers"}"#)
        #expect(try Support.value(result.config, "routes", "GetCustomersCustomer")
            == #"{"method":"GET","pathPattern":"/v1/customers/:customer"}"#)
        let config = try GatewayConfig(json: result.config)
        let lists = config.catalog.responseDescriptors.filter { $0.pathPattern?.pattern == "/v1/customers" && $0.methods == [.get] }
        #expect(lists.map(\.mapping) == ["customer"])
        #expect(lists.map(\.keyPath.description) == ["data"])
        #expect(try Support.value(result.config, "mappings", "charge", "attributes", "created")
            == #"{"dateFormat":"epochSeconds","required":true,"type":"date"}"#)
        #expect(try Support.value(result.config, "mappings", "charge", "attributes", "customer") == #"{"type":"json"}"#)
        // Stripe's `default` error on every operation: one error descriptor for them all.
        #expect(try Support.value(result.config, "errorDescriptors") == #"[{"mapping":"error"}]"#)
    }
}
