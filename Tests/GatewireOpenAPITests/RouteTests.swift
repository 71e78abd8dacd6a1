import GatewireOpenAPI
import Testing

/// Servers, operations and routes, and the report lines about them.
@Suite struct RouteTests {
    static let servers = """
        openapi: 3.1.0
        info: {title: t, version: "1"}
        servers:
          - url: "https://{region}.example.com/{base}"
            variables:
              region: {default: eu, enum: [eu, us]}
              base: {default: v2}
          - url: /relative
        paths: {}
        """

    @Test func serverVariablesTakeTheirDefaultsAndServerPicksOne() throws {
        let first = try Support.imported(Self.servers)
        #expect(try Support.value(first.config, "baseURL") == "\"https://eu.example.com/v2\"")
        #expect(Support.reasons(first.report) == ["/servers/1 server_not_chosen", "/servers/0/variables/region server_variable_default"])
        let second = try Support.imported(Self.servers, server: 1)
        #expect(try Support.value(second.config, "baseURL") == "\"https://server.invalid/relative\"")
        #expect(Support.reasons(second.report) == ["/servers/0 server_not_chosen", "/servers/1/url server_relative"])
        #expect(throws: OpenAPIImportError(document: "doc.yaml", pointer: "/servers",
                                           message: "there is no server 2: the document lists 2 (0...1)")) {
            try OpenAPIImporter.importDocument(text: Self.servers, name: "doc.yaml", server: 2)
        }
    }

    @Test func operationsBecomeRoutesNamedByOperationIdOrPath() throws {
        let result = try Support.imported("""
            openapi: 3.0.0
            info: {title: t, version: "1"}
            servers: [{url: "https://api.example.com"}]
            paths:
              /users/{user-id}/keys/{key}:
                parameters: [{name: user-id, in: path, required: true, schema: {type: string}}]
                get:
                  parameters: [{name: fields, in: query, required: true, schema: {type: string}},
                               {name: page, in: query, schema: {type: integer}}]
                  responses: {"204": {description: none}}
                delete: {operationId: dropKey, responses: {"204": {description: none}}}
              /urn:{id}:
                put: {operationId: dropKey, responses: {"204": {description: none}}}
              /files/*:
                get: {operationId: wildcard, responses: {"204": {description: none}}}
            """)
        #expect(try Support.value(result.config, "routes") == """
            {"dropKey":{"method":"PUT","pathPattern":"/urn\\\\::id"},\
            "dropKey_2":{"method":"DELETE","pathPattern":"/users/:user_id/keys/:key"},\
            "get_users_user_id_keys_key":{"method":"GET","pathPattern":"/users/:user_id/keys/:key","requiredQuery":["fields"]}}
            """)
        #expect(Support.reasons(result.report) == [
            "/paths/~1files~1*/get path_not_expressible",
            "/paths/~1users~1{user-id}~1keys~1{key}/get path_parameter_renamed",
            "/paths/~1users~1{user-id}~1keys~1{key}/get pagination_not_expressible",  // a page number without a total
            "/paths/~1users~1{user-id}~1keys~1{key}/delete/operationId operation_id_duplicate",
            "/paths/~1users~1{user-id}~1keys~1{key}/delete path_parameter_renamed",
        ])
        #expect(result.operationCount == 4)
        #expect(result.routeCount == 3)
    }
}
