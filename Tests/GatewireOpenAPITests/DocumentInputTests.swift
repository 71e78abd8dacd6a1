import GatewireOpenAPI
import Glibc
import Testing

/// Loading: YAML read by the core schema, `$ref`s to other files, and bad input, each a clear
/// error naming the place.
@Suite struct DocumentInputTests {
    static let head = """
        openapi: 3.0.3
        info: {title: t, version: "1"}
        servers: [{url: "https://api.example.com"}]

        """

    /// The mapping of the component `Thing` whose property `p` has `enum: [VALUES]`: shows how
    /// YAML scalars were read (the enum's first non-null value gives the type).
    func typeOf(enumValue value: String) throws -> String {
        let text = Self.head + """
            paths: {}
            components:
              schemas:
                Thing: {type: object, properties: {p: {enum: [\(value)]}}}
            """
        return try Support.value(try Support.imported(text).config, "mappings", "Thing", "attributes", "p", "type")
    }

    @Test func yamlScalarsFollowTheCoreSchema() throws {
        #expect(try typeOf(enumValue: "yes") == "\"string\"")      // YAML 1.1 would say true
        #expect(try typeOf(enumValue: "on") == "\"string\"")
        #expect(try typeOf(enumValue: "true") == "\"boolean\"")
        #expect(try typeOf(enumValue: "0o17") == "\"integer\"")
        #expect(try typeOf(enumValue: "0x1F") == "\"integer\"")
        #expect(try typeOf(enumValue: "-12") == "\"integer\"")
        #expect(try typeOf(enumValue: "-9223372036854775808") == "\"integer\"")   // Int64.min
        #expect(try typeOf(enumValue: "9223372036854775808") == "\"number\"")     // beyond 64 bits: a real
        #expect(try typeOf(enumValue: "1.5e3") == "\"number\"")
        #expect(try typeOf(enumValue: ".inf") == "\"string\"")       // JSON has no infinity
        #expect(try typeOf(enumValue: "'12'") == "\"string\"")       // quoted: a string
        #expect(try typeOf(enumValue: "~, 3") == "\"integer\"")      // ~ is null, skipped
    }

    @Test func numericKeysAreStringsAndAliasesShareTheirAnchor() throws {
        let result = try Support.imported(Self.head + """
            paths:
              /a:
                get:
                  responses:
                    200: &ok
                      description: ok
                      content: {application/json: {schema: {$ref: '#/components/schemas/A'}}}
              /b:
                get:
                  responses: {201: *ok}
            components:
              schemas:
                A: {type: object, properties: {id: {type: integer}}}
            """)
        #expect(try Support.value(result.config, "responseDescriptors") == """
            [{"mapping":"A","method":"GET","pathPattern":"/a","statusCodes":200},\
            {"mapping":"A","method":"GET","pathPattern":"/b","statusCodes":201}]
            """)
    }

    @Test func referencesToOtherFilesAreFollowed() throws {
        let folder = try Support.temporaryFolder()
        defer { _ = system("rm -rf '\(folder)'") }
        mkdir(folder + "/schemas", 0o755)
        let pet = "type: object\nproperties:\n  name: {type: string}\n  owner: {$ref: 'common.json#/Owner'}\n"
        let common = #"{"Owner": {"type": "object", "properties": {"login": {"type": "string"}}}}"#
        for (name, text) in [("/schemas/Pet.yaml", pet), ("/schemas/common.json", common)] {
            let fd = open(folder + name, O_WRONLY | O_CREAT, 0o644)
            _ = text.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        let document = folder + "/api.yaml"
        let fd = open(document, O_WRONLY | O_CREAT, 0o644)
        let text = Self.head + """
            paths:
              /pets:
                get:
                  responses:
                    "200":
                      description: ok
                      content: {application/json: {schema: {type: array, items: {$ref: 'schemas/Pet.yaml'}}}}
            """
        _ = text.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        let result = try OpenAPIImporter.importDocument(atPath: document)
        #expect(try Support.value(result.config, "mappings") == """
            {"Owner":{"attributes":{"login":{"type":"string"}}},\
            "Pet":{"attributes":{"name":{"type":"string"}},"relationships":{"owner":{"mapping":"Owner"}}}}
            """)
        #expect(try Support.value(result.config, "responseDescriptors") == """
            [{"mapping":"Pet","method":"GET","pathPattern":"/pets","statusCodes":200}]
            """)
    }

    /// The error importing `text` (named doc.yaml), as its description.
    func failure(_ text: String) -> String {
        do {
            _ = try OpenAPIImporter.importDocument(text: text, name: "doc.yaml")
            return "no error"
        } catch {
            return error.description
        }
    }

    @Test func notOpenAPIIsAnError() {
        #expect(failure("just: a mapping\n") == "doc.yaml: not an OpenAPI document: it has no \"openapi\" version string")
        #expect(failure("swagger: '2.0'\n") == "doc.yaml: not an OpenAPI document: it has no \"openapi\" version string "
            + "(Swagger 2.0 documents are not imported: convert them to OpenAPI 3 first)")
        #expect(failure("openapi: 2.5.0\n") == "doc.yaml#/openapi: OpenAPI 2.5.0 is not imported (only 3.0 and 3.1 are)")
        #expect(failure("[1, 2]") == "doc.yaml: not an OpenAPI document: the top level is an array, not an object")
        #expect(failure("{\"openapi\": \"3.0.0\",") == "doc.yaml: line 1, column 20: invalid JSON: string or '}' expected near end of file")
        #expect(failure("openapi: 3.0.0\n  bad: [\n") == "doc.yaml: line 2, column 6: mapping values are not allowed in this context")
        #expect(failure("a: 1\n---\nb: 2\n") == "doc.yaml: line 2, column 1: a YAML stream of several documents (an OpenAPI document is one)")
    }

    @Test func danglingAndCyclicReferencesAreErrorsNamingThePlace() {
        let dangling = Self.head + """
            paths:
              /a:
                get:
                  responses:
                    "200":
                      description: ok
                      content: {application/json: {schema: {$ref: '#/components/schemas/Nope'}}}
            """
        #expect(failure(dangling) == "doc.yaml#/paths/~1a/get/responses/200/content/application~1json/schema/$ref: the $ref "
            + "\"#/components/schemas/Nope\" names nothing: doc.yaml#/components/schemas/Nope does not exist (a dangling reference)")
        let cyclicAllOf = Self.head + """
            paths: {}
            components:
              schemas:
                A: {allOf: [{$ref: '#/components/schemas/B'}, {type: object}]}
                B: {allOf: [{$ref: '#/components/schemas/A'}, {type: object}]}
            """
        #expect(failure(cyclicAllOf) == "doc.yaml#/components/schemas/A: a cyclic allOf: doc.yaml#/components/schemas/A -> "
            + "doc.yaml#/components/schemas/B -> doc.yaml#/components/schemas/A")
        let cyclicReference = Self.head + """
            paths: {}
            components:
              schemas:
                A: {$ref: '#/components/schemas/B'}
                B: {$ref: '#/components/schemas/A'}
            """
        #expect(failure(cyclicReference) == "doc.yaml#/components/schemas/A: the $ref chain comes back to "
            + "doc.yaml#/components/schemas/A (a cycle of references)")
        #expect(failure(Self.head + "paths: {}\ncomponents: {schemas: {A: {$ref: 'other.yaml#/A'}}}\n")
            == "doc.yaml#/components/schemas/A/$ref: the reference names the file \"other.yaml\", but the document was given "
            + "as text (no folder to read it from)")
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let depth = 5000
        let yaml = "a: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        // The mapping is the first level: the 1000th sequence, at column 1003, is the 1001st.
        #expect(failure(yaml) == "doc.yaml: line 1, column 1003: nested deeper than 1000 mappings and sequences")
        let json = "{\"openapi\": \"3.0.0\", \"x\": " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        #expect(failure(json) == "doc.yaml: line 1, column 2074: invalid JSON: maximum parsing depth reached near '['")
        var schema = "{type: object}"
        for _ in 0..<100 { schema = "{allOf: [\(schema)]}" }
        let allOf = Self.head + "paths: {}\ncomponents: {schemas: {Deep: \(schema)}}\n"
        #expect(failure(allOf).hasSuffix("schemas nested deeper than 64 levels of allOf, oneOf and anyOf"))
        var properties = "{type: string}"
        for _ in 0..<300 { properties = "{type: object, properties: {p: \(properties)}}" }
        let nested = Self.head + "paths: {}\ncomponents: {schemas: {Nested: \(properties)}}\n"
        #expect(failure(nested) == "no error")  // 300 nested mappings, built from a queue
    }

    @Test func aliasesThatExpandWithoutBoundStopWithAnError() {
        // Each level names the one below ten times: 10^9 inline objects from 12 lines.
        var text = Self.head + "paths: {}\nx-levels:\n  - &l0 {type: object, properties: {v: {type: string}}}\n"
        for level in 1...9 {
            let names = (0..<10).map { "p\($0): *l\(level - 1)" }.joined(separator: ", ")
            text += "  - &l\(level) {type: object, properties: {\(names)}}\n"
        }
        text += "components: {schemas: {Bomb: *l9}}\n"
        #expect(failure(text).hasSuffix("the schemas make more than 25000 mappings (YAML aliases that repeat inline "
            + "schemas, each a mapping of its own where it is used)"))
    }

    @Test func aliasesThatRepeatAllOfMembersStopWithAnError() {
        // An allOf of ten aliases of an allOf of ten aliases...: 10^9 reads of one small schema.
        var text = Self.head + "paths: {}\nx-levels:\n  - &l0 {type: object, properties: {v: {type: string}}}\n"
        for level in 1...9 {
            text += "  - &l\(level) {allOf: [\((0..<10).map { _ in "*l\(level - 1)" }.joined(separator: ", "))]}\n"
        }
        text += "components: {schemas: {Bomb: *l9}}\n"
        #expect(failure(text).hasSuffix("the document makes more than 250000 schema reads (YAML aliases that repeat "
            + "allOf, oneOf or anyOf members)"))
    }

    @Test func aHugeFileIsRefusedBeforeItIsRead() throws {
        let path = try Support.temporaryFile("", suffix: ".json")
        defer { unlink(path) }
        #expect(truncate(path, 50_000_000) == 0)  // 50 MB (a sparse file)
        #expect(throws: OpenAPIImportError(document: path, message: "the document is 50000000 bytes, more than the 33554432 the importer reads")) {
            try OpenAPIImporter.importDocument(atPath: path)
        }
        #expect(throws: OpenAPIImportError(document: "/nonexistent/api.yaml", message: "cannot read the file: No such file or directory")) {
            try OpenAPIImporter.importDocument(atPath: "/nonexistent/api.yaml")
        }
    }
}
