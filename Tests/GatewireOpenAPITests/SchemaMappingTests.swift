import GatewireOpenAPI
import Testing

/// Schemas to mappings, one rule per test, each against the whole expected mapping.
@Suite struct SchemaMappingTests {
    /// A document whose only operation returns `schema` (YAML, indented under `responses.200`),
    /// with `components` (YAML, indented under `components.schemas`).
    func document(response schema: String, schemas: String = "") -> String {
        """
        openapi: 3.0.3
        info: {title: t, version: "1"}
        servers: [{url: "https://api.example.com/v1/"}]
        paths:
          /things:
            get:
              operationId: listThings
              responses:
                "200":
                  description: ok
                  content:
                    application/json:
                      schema: \(schema)
        components:
          schemas:
        \(schemas)
        """
    }

    @Test func typesRequiredAndDates() throws {
        let result = try Support.imported(document(response: "{$ref: '#/components/schemas/Thing'}", schemas: """
                Thing:
                  type: object
                  required: [id, created, note]
                  properties:
                    id: {type: integer, format: int64}
                    price: {type: number}
                    paid: {type: boolean}
                    name: {type: string}
                    created: {type: integer, format: unix-time}
                    updated: {type: string, format: date-time}
                    day: {type: string, format: date}
                    note: {type: string, nullable: true}
                    extra: {type: object, additionalProperties: true}
                    anything: {}
                    tags: {type: array, items: {type: string}}
                    grid: {type: array, items: {type: array, items: {type: integer}}}
                    "a.b": {type: string}
        """))
        #expect(try Support.value(result.config, "mappings", "Thing") == """
            {"attributes":{"a\\\\.b":{"to":"a.b","type":"string"},"anything":{"type":"json"},\
            "created":{"dateFormat":"epochSeconds","required":true,"type":"date"},\
            "day":{"dateFormat":"iso8601","type":"date"},"extra":{"type":"json"},"grid":{"type":"json"},\
            "id":{"required":true,"type":"integer"},"name":{"type":"string"},"note":{"type":"string"},\
            "paid":{"type":"boolean"},"price":{"type":"number"},"tags":{"type":"string"},\
            "updated":{"dateFormat":"iso8601","type":"date"}}}
            """)
        #expect(try Support.value(result.config, "baseURL") == "\"https://api.example.com/v1\"")
        #expect(try Support.value(result.config, "responseDescriptors") == """
            [{"mapping":"Thing","method":"GET","pathPattern":"/things","statusCodes":200}]
            """)
    }

    @Test func nullableBothWaysIsNotRequired() throws {
        let result = try Support.imported(document(response: "{$ref: '#/components/schemas/N'}", schemas: """
                N:
                  type: object
                  required: [a, b, c, d]
                  properties:
                    a: {type: string, nullable: true}
                    b: {type: [string, "null"]}
                    c: {oneOf: [{type: string}, {type: "null"}]}
                    d: {type: string}
        """))
        #expect(try Support.value(result.config, "mappings", "N") == """
            {"attributes":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"},\
            "d":{"required":true,"type":"string"}}}
            """)
    }

    @Test func allOfMergesEveryMember() throws {
        let result = try Support.imported(document(response: "{$ref: '#/components/schemas/Dog'}", schemas: """
                Named:
                  type: object
                  required: [name]
                  properties: {name: {type: string}}
                Aged:
                  type: object
                  required: [age]
                  properties: {age: {type: integer}, name: {type: integer}}
                Dog:
                  allOf:
                    - $ref: '#/components/schemas/Named'
                    - $ref: '#/components/schemas/Aged'
                    - type: object
                      properties: {bark: {type: boolean}}
                  properties: {tail: {type: boolean}}
                  required: [tail]
        """))
        // The later member's "name" (an integer) replaces the earlier one; required from all.
        #expect(try Support.value(result.config, "mappings", "Dog") == """
            {"attributes":{"age":{"required":true,"type":"integer"},"bark":{"type":"boolean"},\
            "name":{"required":true,"type":"integer"},"tail":{"required":true,"type":"boolean"}}}
            """)
    }

    @Test func nestedObjectsArraysAndRecursionAreRelationships() throws {
        let result = try Support.imported(document(response: "{$ref: '#/components/schemas/Node'}", schemas: """
                Node:
                  type: object
                  properties:
                    children: {type: array, items: {$ref: '#/components/schemas/Node'}}
                    owner:
                      type: object
                      properties: {login: {type: string}}
                    labels:
                      type: array
                      items: {type: object, properties: {text: {type: string}}}
        """))
        #expect(try Support.value(result.config, "mappings") == """
            {"Node":{"relationships":{"children":{"mapping":"Node"},"labels":{"mapping":"Node.labels"},\
            "owner":{"mapping":"Node.owner"}}},"Node.labels":{"attributes":{"text":{"type":"string"}}},\
            "Node.owner":{"attributes":{"login":{"type":"string"}}}}
            """)
    }

    @Test func discriminatorWithMappingIsDynamic() throws {
        let result = try Support.imported(document(response: "{$ref: '#/components/schemas/Pet'}", schemas: """
                Pet:
                  oneOf: [{$ref: '#/components/schemas/Cat'}, {$ref: '#/components/schemas/Dog'}]
                  discriminator:
                    propertyName: kind
                    mapping: {cat: '#/components/schemas/Cat', dog: Dog}
                Cat: {type: object, properties: {kind: {type: string}, purrs: {type: boolean}}}
                Dog: {type: object, properties: {kind: {type: string}, barks: {type: boolean}}}
        """))
        #expect(try Support.value(result.config, "mappings", "Pet") == """
            {"dynamic":{"keyPath":"kind","mappings":{"cat":"Cat","dog":"Dog"}}}
            """)
    }

    @Test func discriminatorWithoutMappingUsesTheEnumValueElseTheComponentName() throws {
        // Spotify's unions: a discriminator with a propertyName only.
        let result = try Support.imported(document(response: "{$ref: '#/components/schemas/Item'}", schemas: """
                Item:
                  oneOf: [{$ref: '#/components/schemas/Track'}, {$ref: '#/components/schemas/Episode'}]
                  discriminator: {propertyName: type}
                Track: {type: object, properties: {type: {type: string, enum: [track]}, name: {type: string}}}
                Episode: {type: object, properties: {type: {type: string}, show: {type: string}}}
        """))
        #expect(try Support.value(result.config, "mappings", "Item") == """
            {"dynamic":{"keyPath":"type","mappings":{"Episode":"Episode","track":"Track"}}}
            """)
    }

    @Test func unionWithoutDiscriminatorIsJSONAndReported() throws {
        let result = try Support.imported(document(response: "{$ref: '#/components/schemas/Charge'}", schemas: """
                Charge:
                  type: object
                  properties:
                    customer:
                      anyOf: [{type: string}, {$ref: '#/components/schemas/Customer'}]
                    card:
                      anyOf: [{$ref: '#/components/schemas/Customer'}]
                      nullable: true
                Customer: {type: object, properties: {id: {type: string}}}
        """))
        #expect(try Support.value(result.config, "mappings", "Charge") == """
            {"attributes":{"customer":{"type":"json"}},"relationships":{"card":{"mapping":"Customer"}}}
            """)
        #expect(Support.reasons(result.report) == ["/components/schemas/Charge/properties/customer/anyOf union_as_json"])
    }

    @Test func listWrapperMapsItsArrayAndErrorsTakeTheirCodes() throws {
        let text = """
            openapi: 3.0.0
            info: {title: t, version: "1"}
            servers: [{url: "https://api.stripe.com/"}]
            paths:
              /v1/customers:
                get:
                  operationId: GetCustomers
                  responses:
                    "200":
                      description: ok
                      content:
                        application/json:
                          schema:
                            type: object
                            properties:
                              data: {type: array, items: {$ref: '#/components/schemas/customer'}}
                              has_more: {type: boolean}
                              object: {type: string, enum: [list]}
                    "404":
                      description: missing
                      content: {application/json: {schema: {$ref: '#/components/schemas/error'}}}
                    "4XX":
                      description: client
                      content: {application/problem+json: {schema: {$ref: '#/components/schemas/problem'}}}
                    default:
                      description: other
                      content: {application/json: {schema: {$ref: '#/components/schemas/error'}}}
                    x-codegen-response: {skip: true}
            components:
              schemas:
                customer: {type: object, properties: {id: {type: string}}}
                error: {type: object, properties: {message: {type: string}}}
                problem: {type: object, properties: {title: {type: string}}}
            """
        let result = try Support.imported(text)
        #expect(try Support.value(result.config, "responseDescriptors") == """
            [{"keyPath":"data","mapping":"customer","method":"GET","pathPattern":"/v1/customers","statusCodes":200}]
            """)
        // 404 and default (the 5xx: 4XX takes the other 4xx) share one descriptor.
        #expect(try Support.value(result.config, "errorDescriptors") == """
            [{"mapping":"error","method":"GET","pathPattern":"/v1/customers","statusCodes":[404,"5xx"]},\
            {"mapping":"problem","method":"GET","pathPattern":"/v1/customers","statusCodes":["400-403","405-499"]}]
            """)
        #expect(result.report.lines.isEmpty)  // the x- key is an extension, not a status
    }
}
