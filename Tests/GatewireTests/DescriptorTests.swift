import Gatewire
import Testing

/// The config of DESIGN.md's sketch, with other root keys the catalog must ignore.
let gatewayConfig = #"""
{
  "baseURL": "http://127.0.0.1:8080/api/v1",
  "headers": {"Accept": "application/json"},
  "retry": {"maxRetries": 3},
  "mappings": {
    "User":  {"attributes": {"email": "email",
                             "full_name": {"to": "name", "type": "string", "required": true},
                             "created_at": {"to": "createdAt", "type": "date"}},
              "relationships": {"address": {"to": "address", "mapping": "Address"}}},
    "Address": {"attributes": {"city": "city", "zip": {"to": "postalCode", "type": "string"}}},
    "Error": {"attributes": {"code": "code", "title": "title", "details": "details"}}
  },
  "routes": {"user": {"method": "GET", "pathPattern": "/users/:id"}},
  "requestDescriptors":  [{"objectType": "User", "mapping": "User", "rootKeyPath": "user"}],
  "responseDescriptors": [{"mapping": "User", "method": "GET", "pathPattern": "/users/:id",
                           "keyPath": "user", "statusCodes": "2xx"}],
  "errorDescriptors":    [{"mapping": "Error", "keyPath": "error", "statusCodes": "4xx"}],
  "plugins": [{"name": "log", "redactHeaders": ["X-Api-Key"]}]
}
"""#

func catalog(_ text: String) throws -> MappingCatalog {
    let (value, node) = try config(text)
    return try withExtendedLifetime(value) { try MappingCatalog(config: node) }
}

func catalogError(_ text: String) throws -> ConfigError? {
    do { _ = try catalog(text); return nil } catch let error as ConfigError { return error }
}

@Suite struct DescriptorTests {
    @Test func readsTheDesignSketch() throws {
        let catalog = try catalog(gatewayConfig)
        #expect(catalog.mappings.map(\.name) == ["User", "Address", "Error"])
        #expect(catalog.mapping(named: "Address")?.attributes[1] == AttributeMapping("zip", to: "postalCode", type: .string))
        let response = try #require(catalog.responseDescriptors.first)
        #expect(response.methods == [.get])
        #expect(response.pathPattern?.pattern == "/users/:id")
        #expect(response.keyPath == JSONKeyPath("user"))
        #expect(response.statusCodes == .successful)
        #expect(response.description == "GET /users/:id @user 2xx -> User")
        let error = try #require(catalog.errorDescriptors.first)
        #expect(error.methods.count == HTTPMethod.allCases.count)
        #expect(error.statusCodes == .class(4))
        #expect(catalog.requestDescriptors == [RequestDescriptor(mapping: "User", rootKeyPath: JSONKeyPath("user"), objectType: "User")])
        #expect(catalog.warnings().isEmpty)
    }

    @Test func defaultsForDescriptors() throws {
        let catalog = try catalog(#"""
            {"mappings": {"M": {}},
             "responseDescriptors": [{"mapping": "M"}, {"mapping": "M", "method": ["get", "POST"]}, {"mapping": "M", "method": "ANY"}],
             "errorDescriptors": [{"mapping": "M"}]}
            """#)
        #expect(catalog.responseDescriptors[0].methods == Set(HTTPMethod.allCases))
        #expect(catalog.responseDescriptors[0].pathPattern == nil)
        #expect(catalog.responseDescriptors[0].keyPath.isRoot)
        #expect(catalog.responseDescriptors[0].statusCodes == .successful)
        #expect(catalog.responseDescriptors[1].methods == [.get, .post])
        #expect(catalog.responseDescriptors[2].methods == Set(HTTPMethod.allCases))
        #expect(catalog.errorDescriptors[0].statusCodes == .failures)
    }

    @Test func unknownMappingNamesAreReportedWithTheField() throws {
        let error = try catalogError(#"""
            {"mappings": {"User": {}, "Address": {}}, "responseDescriptors": [{"mapping": "Usr"}]}
            """#)
        #expect(error?.description == #"responseDescriptors[0].mapping: unknown mapping "Usr" (known: Address, User)"#)
        let nested = try catalogError(#"""
            {"mappings": {"User": {"relationships": {"home": {"mapping": "Adress"}}}, "Address": {}}}
            """#)
        #expect(nested?.description == #"mappings.User.relationships.home.mapping: unknown mapping "Adress" (known: Address, User)"#)
        #expect(try catalogError(#"{"mappings": {"E": {}}, "errorDescriptors": [{"mapping": "X"}]}"#)?.path == "errorDescriptors[0].mapping")
        #expect(try catalogError(#"{"requestDescriptors": [{"mapping": "X"}]}"#)?.description
            == #"requestDescriptors[0].mapping: unknown mapping "X" (known: none)"#)
    }

    @Test func unknownAndMistypedFieldsAreRejected() throws {
        #expect(try catalogError(#"{"mappings": {"M": {}}, "responseDescriptors": [{"mapping": "M", "keypath": "x"}]}"#)?.path
            == "responseDescriptors[0].keypath")
        #expect(try catalogError(#"{"mappings": {"M": {"attribute": {}}}}"#)?.path == "mappings.M.attribute")
        #expect(try catalogError(#"{"mappings": {"M": {}}, "responseDescriptors": [{"mapping": "M", "method": "FETCH"}]}"#)?.path
            == "responseDescriptors[0].method")
        #expect(try catalogError(#"{"mappings": {"M": {}}, "responseDescriptors": [{"mapping": "M", "pathPattern": "/a?b"}]}"#)?.path
            == "responseDescriptors[0].pathPattern")
        #expect(try catalogError(#"{"mappings": {"M": {}}, "responseDescriptors": [{"mapping": "M", "statusCodes": [200, 700]}]}"#)?.path
            == "responseDescriptors[0].statusCodes[1]")
        #expect(try catalogError(#"{"mappings": {"M": {}}, "responseDescriptors": {"mapping": "M"}}"#)?.path == "responseDescriptors")
        #expect(try catalogError(#"{"mappings": {"M": {}}, "requestDescriptors": [{"mapping": "M", "root": "x"}]}"#)?.path
            == "requestDescriptors[0].root")
    }

    @Test func builderChecksReferencesToo() throws {
        #expect(throws: ConfigError(path: "responseDescriptors[1].mapping", message: #"unknown mapping "Nope" (known: A)"#)) {
            try MappingCatalog(mappings: [ObjectMapping(name: "A")],
                               responseDescriptors: [ResponseDescriptor(mapping: "A"), ResponseDescriptor(mapping: "Nope")])
        }
        #expect(throws: ConfigError.self) { try MappingCatalog(mappings: [ObjectMapping(name: "A"), ObjectMapping(name: "A")]) }
    }

    @Test func warningsForSuspiciousSetups() throws {
        let catalog = try catalog(#"""
            {"mappings": {"M": {}, "N": {}},
             "responseDescriptors": [{"mapping": "M", "method": "GET", "pathPattern": "/users/:id", "keyPath": "user"},
                                     {"mapping": "N", "method": "GET", "pathPattern": "/users/:id", "keyPath": "user"},
                                     {"mapping": "N", "method": "GET", "pathPattern": "/users/:id", "keyPath": "user", "statusCodes": 304},
                                     {"mapping": "M", "statusCodes": [200, 404]}],
             "errorDescriptors": [{"mapping": "M", "statusCodes": "2xx"}],
             "requestDescriptors": [{"mapping": "M", "objectType": "U"}, {"mapping": "N", "objectType": "U", "method": "POST"}]}
            """#)
        let warnings = catalog.warnings()
        #expect(warnings.count == 4)
        #expect(warnings[0] == "responseDescriptors[1] has the same method, pathPattern and keyPath as responseDescriptors[0] (GET /users/:id @user 2xx -> N); the later one wins")
        #expect(warnings[1].hasPrefix("responseDescriptors[3].statusCodes (200,404) lists 4xx/5xx codes"))
        #expect(warnings[2].hasPrefix("errorDescriptors[0].statusCodes (2xx) lists only 2xx codes"))
        #expect(warnings[3].hasPrefix("requestDescriptors[1] has the same objectType (U)"))
    }
}

@Suite struct RequestDescriptorTests {
    let user = ObjectMapping(
        name: "User",
        attributes: [.init("full_name", to: "name", type: .string, required: true), .init("email"),
                     .init("created_at", to: "createdAt", type: .date), .init("profile.bio", to: "bio")],
        relationships: [.init("address", mapping: "Address"), .init("tags", mapping: "Tag")])
    let address = ObjectMapping(name: "Address", attributes: [.init("zip", to: "postalCode", type: .string)])
    let tag = ObjectMapping(name: "Tag", attributes: [.init("@value", to: "name")])

    @Test func buildsBodyUnderRootKeyPath() throws {
        let mapper = ObjectMapper(mappings: [user, address, tag])
        let descriptor = RequestDescriptor(mapping: "User", rootKeyPath: JSONKeyPath("user"))
        let object = try json(#"{"name": "Ann", "createdAt": "2017-10-10T16:00:00.000Z", "bio": "hi", "email": null, "address": {"postalCode": "75001"}, "tags": [{"name": "a"}, {"name": "b"}], "extra": 1}"#)
        let body = try descriptor.body(for: object.node, mapper: mapper)
        #expect(body.serialized()
            == #"{"user":{"full_name":"Ann","email":null,"created_at":"2017-10-10T16:00:00.000Z","profile":{"bio":"hi"},"address":{"zip":"75001"},"tags":["a","b"]}}"#)
    }

    @Test("missingAttributes omit: keys the object lacks (attributes, nested ones, relationships) are left out; explicit nulls stay; the config reads it and refuses another value")
    func missingAttributesOmit() throws {
        let mapper = ObjectMapper(mappings: [user, address, tag])
        var descriptor = RequestDescriptor(mapping: "User", rootKeyPath: JSONKeyPath("user"))
        descriptor.missingAttributes = .omit
        let object = try json(#"{"name": "Ann", "email": null, "address": {}}"#)
        #expect(try descriptor.body(for: object.node, mapper: mapper).serialized()
            == #"{"user":{"full_name":"Ann","email":null,"address":{}}}"#)
        let read = try RequestDescriptor(config: ConfigNode(json(#"{"mapping": "User", "missingAttributes": "omit"}"#).node))
        #expect(read.missingAttributes == .omit)
        #expect(try RequestDescriptor(config: ConfigNode(json(#"{"mapping": "User"}"#).node)).missingAttributes == .null)
        #expect(throws: ConfigError.self) {
            try RequestDescriptor(config: ConfigNode(json(#"{"mapping": "User", "missingAttributes": "skip"}"#).node))
        }
    }

    @Test func simpleExampleAndMissingValuesBecomeNull() throws {
        let mapping = ObjectMapping(name: "User", attributes: [.init("full_name", to: "name")])
        let catalog = try MappingCatalog(mappings: [mapping],
                                         requestDescriptors: [RequestDescriptor(mapping: "User", rootKeyPath: JSONKeyPath("user"), objectType: "User")])
        let object = try json(#"{"name":"Ann"}"#)
        #expect(try catalog.requestBody(for: object.node, objectType: "User", method: .post)?.serialized() == #"{"user":{"full_name":"Ann"}}"#)
        let empty = try json("{}")
        #expect(try catalog.requestBody(for: empty.node, objectType: "User", method: .put)?.serialized() == #"{"user":{"full_name":null}}"#)
        #expect(try catalog.requestBody(for: empty.node, objectType: "Other", method: .put) == nil)
        let list = try json(#"[{"name":"A"},{"name":"B"}]"#)
        #expect(try RequestDescriptor(mapping: "User").body(for: list.node, mapper: catalog.mapper).serialized()
            == #"[{"full_name":"A"},{"full_name":"B"}]"#)
    }

    @Test func roundTripsThroughTheResponseMapping() throws {
        let mapper = ObjectMapper(mappings: [user, address, tag])
        let response = try json(#"{"full_name": "Ann", "email": "ann@example.com", "created_at": "2017-10-10T18:00:00+02:00", "profile": {"bio": "hi"}, "address": {"zip": "75001"}, "tags": ["a"]}"#)
        let mapped = try mapper.map(response.node, with: "User")
        #expect(mapped.serialized()
            == #"{"name":"Ann","email":"ann@example.com","createdAt":"2017-10-10T16:00:00.000Z","bio":"hi","address":{"postalCode":"75001"},"tags":[{"name":"a"}]}"#)
        let body = try RequestDescriptor(mapping: "User").body(for: mapped.node, mapper: mapper)
        #expect(body.serialized()
            == #"{"full_name":"Ann","email":"ann@example.com","created_at":"2017-10-10T16:00:00.000Z","profile":{"bio":"hi"},"address":{"zip":"75001"},"tags":["a"]}"#)
        #expect(try mapper.map(body.node, with: "User").serialized() == mapped.serialized())
    }

    @Test func collidingSourcePathsAreAnError() throws {
        let mapping = ObjectMapping(name: "M", attributes: [.init("a", to: "x"), .init("a.b", to: "y")])
        let object = try json(#"{"x": 1, "y": 2}"#)
        let error = try #require(throws: MappingError.self) {
            try RequestDescriptor(mapping: "M").body(for: object.node, mapper: ObjectMapper(mappings: [mapping]))
        }
        #expect(error.keyPath == "a")
    }
}
