import GatewireOpenAPI
import Testing

/// Security schemes, request bodies and pagination, each against the expected config.
@Suite struct SecurityBodyPagingTests {
    /// A document with `schemes` (YAML under `components.securitySchemes`), the document's
    /// `security` and one GET whose own `security` is `operationSecurity` (nil: none of its own).
    func securityDocument(_ schemes: String, security: String, operationSecurity: String? = nil) -> String {
        """
        openapi: 3.0.0
        info: {title: t, version: "1"}
        servers: [{url: "https://api.example.com"}]
        security: \(security)
        paths:
          /a:
            get:
              \(operationSecurity.map { "security: \($0)" } ?? "")
              responses: {"204": {description: none}}
          /b:
            get: {responses: {"204": {description: none}}}
        components:
          securitySchemes:
        \(schemes)
        """
    }

    @Test func eachSchemeBecomesAuthOrAHeaderWithPlaceholders() throws {
        let basic = try Support.imported(securityDocument("    basicAuth: {type: http, scheme: basic}\n"
            + "    bearerAuth: {type: http, scheme: bearer}\n", security: "[{basicAuth: []}, {bearerAuth: []}]"))
        #expect(try Support.value(basic.config, "auth")
            == #"{"password":"<basicAuth password>","type":"basic","username":"<basicAuth username>"}"#)
        #expect(Support.reasons(basic.report) == ["/security/1 security_alternative_not_chosen"])

        let bearer = try Support.imported(securityDocument("    jwt: {type: http, scheme: Bearer, bearerFormat: JWT}\n", security: "[{jwt: []}]"))
        #expect(try Support.value(bearer.config, "auth") == #"{"token":"<jwt token>","type":"bearer"}"#)
        #expect(bearer.report.lines.isEmpty)

        let header = try Support.imported(securityDocument("    key: {type: apiKey, in: header, name: X-API-Key}\n"
            + "    user: {type: http, scheme: basic}\n", security: "[{key: [], user: []}]"))
        #expect(try Support.value(header.config, "headers") == #"{"X-API-Key":"<key api key>"}"#)
        #expect(try Support.value(header.config, "auth", "type") == #""basic""#)

        let query = try Support.imported(securityDocument("    key: {type: apiKey, in: query, name: key}\n", security: "[{key: []}]"))
        #expect(try Support.value(query.config, "auth") == "absent")
        #expect(try Support.value(query.config, "plugins") == #"[{"name":"apiKey","query":"key","value":"<key api key>"}]"#)
        #expect(Support.reasons(query.report) == [])

        let oauth = try Support.imported(securityDocument("""
                oauth:
                  type: oauth2
                  flows: {clientCredentials: {tokenUrl: "https://auth.example.com/token", scopes: {read: r}}}

            """, security: "[{oauth: [read]}]"))
        #expect(try Support.value(oauth.config, "auth") == #"{"token":"<oauth token>","type":"bearer"}"#)
        #expect(Support.reasons(oauth.report) == ["/components/securitySchemes/oauth token_placeholder"])

        let openID = try Support.imported(securityDocument("    oidc: {type: openIdConnect, openIdConnectUrl: \"https://a.example/.well-known/openid-configuration\"}\n",
                                                           security: "[{oidc: []}]"))
        #expect(try Support.value(openID.config, "auth") == #"{"token":"<oidc token>","type":"bearer"}"#)
        #expect(Support.reasons(openID.report) == ["/components/securitySchemes/oidc token_placeholder"])

        let cookie = try Support.imported(securityDocument("    session: {type: apiKey, in: cookie, name: sid}\n", security: "[{session: []}]"))
        #expect(try Support.value(cookie.config, "headers") == "absent")
        #expect(Support.reasons(cookie.report) == ["/components/securitySchemes/session security_scheme_not_expressible"])
    }

    @Test func operationsThatDifferFromTheConfigsCredentialsAreReported() throws {
        let result = try Support.imported(securityDocument("    a: {type: http, scheme: basic}\n    b: {type: http, scheme: bearer}\n",
                                                           security: "[{a: []}]", operationSecurity: "[{b: []}]"))
        // One operation each: a tie, broken by the scheme names' order.
        #expect(try Support.value(result.config, "auth", "type") == #""basic""#)
        #expect(Support.reasons(result.report) == ["/paths/~1a/get/security operation_security_differs"])
        let open = try Support.imported(securityDocument("    a: {type: http, scheme: basic}\n", security: "[{a: []}]",
                                                         operationSecurity: "[]"))
        #expect(Support.reasons(open.report) == ["/paths/~1a/get/security operation_without_security"])
    }

    @Test func requestBodiesAreRequestDescriptorsWithTheirFormat() throws {
        let result = try Support.imported("""
            openapi: 3.0.0
            info: {title: t, version: "1"}
            servers: [{url: "https://api.example.com"}]
            paths:
              /v1/customers:
                post:
                  operationId: PostCustomers
                  requestBody:
                    content:
                      application/x-www-form-urlencoded:
                        schema: {type: object, properties: {email: {type: string}, metadata: {type: object}}}
                  responses: {"204": {description: none}}
              /v1/files:
                post:
                  operationId: PostFiles
                  requestBody:
                    content:
                      multipart/form-data: {schema: {$ref: '#/components/schemas/Upload'}}
                      application/json: {schema: {$ref: '#/components/schemas/Upload'}}
                  responses: {"204": {description: none}}
              /v1/search:
                get:
                  operationId: GetSearch
                  requestBody:
                    content:
                      application/x-www-form-urlencoded: {schema: {type: object, properties: {}, additionalProperties: false}}
                  responses: {"204": {description: none}}
            components:
              schemas:
                Upload: {type: object, required: [purpose], properties: {purpose: {type: string}}}
            """)
        #expect(try Support.value(result.config, "requestDescriptors") == """
            [{"format":"form","mapping":"PostCustomers.request","method":"POST","missingAttributes":"omit","objectType":"PostCustomers"},\
            {"mapping":"Upload","method":"POST","missingAttributes":"omit","objectType":"PostFiles"}]
            """)
        #expect(try Support.value(result.config, "routes") == """
            {"GetSearch":{"method":"GET","pathPattern":"/v1/search"},\
            "PostCustomers":{"method":"POST","objectType":"PostCustomers","pathPattern":"/v1/customers"},\
            "PostFiles":{"method":"POST","objectType":"PostFiles","pathPattern":"/v1/files"}}
            """)
        #expect(try Support.value(result.config, "mappings", "PostCustomers.request")
            == #"{"attributes":{"email":{"type":"string"},"metadata":{"type":"json"}}}"#)
        #expect(Support.reasons(result.report) == ["/paths/~1v1~1files/post/requestBody/content/multipart~1form-data request_media_not_chosen"])
    }

    /// A document whose GET /items takes `parameters` (YAML) and answers `schema`, with `headers`.
    func pagingDocument(parameters: String, schema: String, headers: String = "{}") -> String {
        """
        openapi: 3.0.0
        info: {title: t, version: "1"}
        servers: [{url: "https://api.example.com"}]
        paths:
          /items:
            get:
              parameters: \(parameters)
              responses:
                "200":
                  description: ok
                  headers: \(headers)
                  content: {application/json: {schema: \(schema)}}
        """
    }

    static let item = "{type: object, properties: {id: {type: string}}}"

    @Test func eachPaginationForm() throws {
        let link = try Support.imported(pagingDocument(parameters: "[{name: page, in: query, schema: {type: integer}}]",
                                                       schema: "{type: array, items: \(Self.item)}",
                                                       headers: "{Link: {schema: {type: string}}}"))
        #expect(try Support.value(link.config, "routes", "get_items", "pagination") == #"{"style":"link"}"#)

        let cursor = try Support.imported(pagingDocument(
            parameters: "[{name: cursor, in: query, schema: {type: string}}]",
            schema: "{type: object, properties: {channels: {type: array, items: \(Self.item)}, "
                + "response_metadata: {type: object, properties: {next_cursor: {type: string}}}}}"))
        #expect(try Support.value(cursor.config, "routes", "get_items", "pagination")
            == #"{"cursorKeyPath":"response_metadata.next_cursor","parameter":"cursor","style":"cursor"}"#)

        let token = try Support.imported(pagingDocument(
            parameters: "[{name: pagetoken, in: query, schema: {type: string}}]",
            schema: "{type: object, properties: {results: {type: array, items: \(Self.item)}, next_page_token: {type: string}}}"))
        #expect(try Support.value(token.config, "routes", "get_items", "pagination")
            == #"{"cursorKeyPath":"next_page_token","parameter":"pagetoken","style":"cursor"}"#)

        let page = try Support.imported(pagingDocument(
            parameters: "[{name: page, in: query, schema: {type: integer}}, {name: per_page, in: query, schema: {type: integer, default: 30}}]",
            schema: "{type: object, properties: {items: {type: array, items: \(Self.item)}, total_count: {type: integer}}}"))
        #expect(try Support.value(page.config, "routes", "get_items", "pagination")
            == #"{"pageParameter":"page","perPage":30,"perPageParameter":"per_page","style":"page","totalKeyPath":"total_count"}"#)

        let stripe = try Support.imported(pagingDocument(
            parameters: "[{name: starting_after, in: query, schema: {type: string}}, {name: limit, in: query, schema: {type: integer}}]",
            schema: "{type: object, properties: {data: {type: array, items: \(Self.item)}, has_more: {type: boolean}}}"))
        #expect(try Support.value(stripe.config, "routes", "get_items", "pagination")
            == #"{"hasMoreKeyPath":"has_more","itemsKeyPath":"data","parameter":"starting_after","style":"keyset"}"#)
        #expect(Support.reasons(stripe.report) == [])

        let azure = pagingDocument(parameters: "[]", schema: "{type: object, properties: {value: {type: array, items: \(Self.item)}, "
            + "nextLink: {type: string}}}").withAzurePageable()
        let pageable = try Support.imported(azure)
        #expect(try Support.value(pageable.config, "routes", "get_items", "pagination")
            == #"{"style":"nextURL","urlKeyPath":"nextLink"}"#)
        #expect(Support.reasons(pageable.report) == [])

        let twilio = try Support.imported(pagingDocument(
            parameters: "[{name: PageToken, in: query, schema: {type: string}}, {name: Page, in: query, schema: {type: integer}}]",
            schema: "{type: object, properties: {messages: {type: array, items: \(Self.item)}, next_page_uri: {type: string, nullable: true}}}"))
        #expect(try Support.value(twilio.config, "routes", "get_items", "pagination")
            == #"{"style":"nextURL","urlKeyPath":"next_page_uri"}"#)

        let elsewhere = try Support.imported(pagingDocument(
            parameters: "[{name: ending_before, in: query, schema: {type: string}}]",
            schema: "{type: object, properties: {data: {type: array, items: \(Self.item)}}}"))
        #expect(try Support.value(elsewhere.config, "routes", "get_items", "pagination") == "absent")
        #expect(Support.reasons(elsewhere.report) == ["/paths/~1items/get pagination_not_expressible"])
    }

    @Test func theSameDocumentInAnotherKeyOrderGivesTheSameBytes() throws {
        let a = """
            {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "servers": [{"url": "https://x.example.com"}],
             "paths": {"/b": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json":
                        {"schema": {"$ref": "#/components/schemas/B"}}}}}}},
                       "/a": {"post": {"responses": {"default": {"description": "e"}}}, "get": {"responses": {"204": {"description": "n"}}}}},
             "components": {"schemas": {"B": {"type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "integer"}}},
                                        "A": {"type": "object", "properties": {"b": {"$ref": "#/components/schemas/B"}}}}}}
            """
        let b = """
            {"components": {"schemas": {"A": {"properties": {"b": {"$ref": "#/components/schemas/B"}}, "type": "object"},
                                        "B": {"properties": {"a": {"type": "integer"}, "z": {"type": "string"}}, "type": "object"}}},
             "paths": {"/a": {"get": {"responses": {"204": {"description": "n"}}}, "post": {"responses": {"default": {"description": "e"}}}},
                       "/b": {"get": {"responses": {"200": {"content": {"application/json":
                        {"schema": {"$ref": "#/components/schemas/B"}}}, "description": "ok"}}}}},
             "servers": [{"url": "https://x.example.com"}], "info": {"version": "1", "title": "t"}, "openapi": "3.0.0"}
            """
        let first = try Support.imported(a).config
        #expect(first == (try Support.imported(b).config))
        #expect(first == """
            {
              "baseURL": "https://x.example.com",
              "mappings": {
                "A": {
                  "relationships": {
                    "b": {
                      "mapping": "B"
                    }
                  }
                },
                "B": {
                  "attributes": {
                    "a": {
                      "type": "integer"
                    },
                    "z": {
                      "type": "string"
                    }
                  }
                }
              },
              "responseDescriptors": [
                {
                  "mapping": "B",
                  "method": "GET",
                  "pathPattern": "/b",
                  "statusCodes": 200
                }
              ],
              "routes": {
                "get_a": {
                  "method": "GET",
                  "pathPattern": "/a"
                },
                "get_b": {
                  "method": "GET",
                  "pathPattern": "/b"
                },
                "post_a": {
                  "method": "POST",
                  "pathPattern": "/a"
                }
              }
            }

            """)
    }
}

private extension String {
    /// The paging document with Azure's `x-ms-pageable` on its GET (the next page's URL in the body).
    func withAzurePageable() -> String {
        var result = ""
        for line in split(separator: "\n", omittingEmptySubsequences: false) {
            result += line + "\n"
            if line == "    get:" { result += "      x-ms-pageable: {nextLinkName: nextLink}\n" }
        }
        return result
    }
}
