import GatewireBase
import GatewireJSON
import GatewireMapping

/// How a request body is built from a caller's JSON object: its mapping applied in reverse,
/// wrapped under ``rootKeyPath`` (RestKit's `RKRequestDescriptor` with the mapping's
/// `inverseMapping`).
///
/// For each attribute, the value at the *destination* key of the caller's object is written
/// at the *source* key path of the body; dotted source paths create nested objects
/// (`"address.city"` -> `{"address": {"city": ...}}`). A `null` value is written as `null`;
/// a missing one too by default (RestKit 0.22+, `assignsDefaultValueForMissingAttributes =
/// YES`), or left out with ``missingAttributes`` ``MissingAttributes/omit`` (RestKit's flag
/// set to NO; what an API that reads an absent form field as "unchanged" and an empty one as
/// "unset", such as Stripe's, needs). Values are copied
/// as they are, without coercion: a date given as ISO 8601 text stays that text.
/// Relationships recurse with their mapping; an array of objects gives an array.
///
/// Example: mapping `User` {`full_name` -> `name`}, root key path `user`:
/// `{"name": "Ann"}` -> `{"user": {"full_name": "Ann"}}`.
package struct RequestDescriptor: Sendable, Hashable {
    /// The name of the ``ObjectMapping`` applied in reverse.
    package var mapping: String
    /// The key path the body is wrapped under (dotted: nested objects); nil for none.
    package var rootKeyPath: JSONKeyPath?
    /// The methods it applies to (all methods for "any").
    package var methods: Set<HTTPMethod>
    /// The caller's name for the kind of object (the Codable type's name, the C type tag);
    /// nil matches any.
    package var objectType: String?
    /// How the mapped object is sent in a body: JSON (the default), a form, or multipart fields.
    /// For GET, HEAD and DELETE there is no body: the mapped attributes become path and
    /// query parameters (flattened as ``FormEncoding/pairs(_:includeNulls:)``), whatever the format.
    package var format: BodyFormat = .json
    /// What a key the caller's object lacks becomes in the body (config `"missingAttributes"`).
    package var missingAttributes: MissingAttributes = .null

    /// How a request descriptor writes an attribute or relationship the caller's object lacks.
    package enum MissingAttributes: String, Sendable, Hashable, CaseIterable {
        /// As `null` (RestKit 0.22+'s default; an empty field in a form), the default.
        case null
        /// Not at all: only the keys the object has (and its explicit `null`s) are written.
        case omit
    }

    /// The body encodings of a request descriptor (config `"format"`).
    package enum BodyFormat: String, Sendable, Hashable, CaseIterable {
        /// `application/json`.
        case json
        /// `application/x-www-form-urlencoded` (see ``FormEncoding``).
        case form
        /// `multipart/form-data` (RFC 7578): one text part per field, named and flattened as
        /// ``FormEncoding/pairs(_:includeNulls:)`` names form fields (`user[name]`,
        /// `user[tags][]`, as Rails reads them and AFNetworking writes them; null is empty
        /// text); a call may add file and byte parts after them.
        case multipart

        /// The `Content-Type` sent with this format (for multipart, libcurl adds `; boundary=...`).
        package var contentType: String {
            switch self {
            case .json: "application/json"
            case .form: "application/x-www-form-urlencoded"
            case .multipart: "multipart/form-data"
            }
        }
    }

    /// The Swift builder form; a root `rootKeyPath` means no wrapping, like nil.
    package init(mapping: String, rootKeyPath: JSONKeyPath? = nil, methods: Set<HTTPMethod> = Set(HTTPMethod.allCases),
                objectType: String? = nil) {
        self.mapping = mapping
        self.rootKeyPath = rootKeyPath.flatMap { $0.isRoot ? nil : $0 }
        self.methods = methods
        self.objectType = objectType
    }

    /// The config form: `{"objectType": "User", "mapping": "User", "rootKeyPath": "user", "method": "POST",
    /// "format": "form", "missingAttributes": "omit"}` (only `mapping` is required; `method` as
    /// in ``ResponseDescriptor``; `format` is `json` (default), `form` or `multipart`;
    /// `missingAttributes` is `null` (default) or `omit`).
    /// - Throws: ``ConfigError`` naming the field; unknown fields are rejected.
    package init(config node: ConfigNode) throws(ConfigError) {
        try node.rejectUnknownKeys(["mapping", "rootKeyPath", "method", "objectType", "format", "missingAttributes"])
        var format = BodyFormat.json
        if let formatNode = try node.optional("format") {
            let name = try formatNode.string()
            guard let parsed = BodyFormat(rawValue: name) else {
                throw formatNode.error("unknown format \"\(name)\" (expected json, form or multipart)")
            }
            format = parsed
        }
        self.init(mapping: try node.required("mapping").string(),
                  rootKeyPath: try node.optional("rootKeyPath").map { node throws(ConfigError) in JSONKeyPath(try node.string()) },
                  methods: try ResponseDescriptor.methods(config: node.optional("method")),
                  objectType: try node.optional("objectType")?.string())
        self.format = format
        if let missingNode = try node.optional("missingAttributes") {
            let name = try missingNode.string()
            guard let parsed = MissingAttributes(rawValue: name) else {
                throw missingNode.error("unknown value \"\(name)\" (expected null or omit)")
            }
            missingAttributes = parsed
        }
    }

    /// The request body for `object` (a JSON object, or an array of them).
    /// - Parameter object: the caller's object as JSON: an object, or an array of them.
    /// - Parameter mapper: resolves this descriptor's mapping and its relationships.
    /// - Throws: ``MappingError`` when `object` is not an object or array of objects, when
    ///   a mapping is unknown, or when two source paths collide (`a` and `a.b`).
    package func body(for object: JSONNode, mapper: ObjectMapper) throws(MappingError) -> JSONValue {
        guard let mapping = mapper.mappings[self.mapping] else { throw MappingError("unknown mapping \"\(self.mapping)\"") }
        guard mapping.dynamic == nil else {
            throw MappingError("the dynamic mapping \"\(self.mapping)\" cannot build a request body (name a concrete mapping)")
        }
        let inner = try RequestDescriptor.inverse(object, mapping, mapper, omitMissing: missingAttributes == .omit,
                                                  path: "", depth: 0)
        guard let rootKeyPath else { return inner }
        let wrapped = JSONValue.object()
        try RequestDescriptor.set(inner, at: rootKeyPath.components, in: wrapped, path: "")
        return wrapped
    }

    private static func inverse(_ node: JSONNode, _ mapping: ObjectMapping, _ mapper: ObjectMapper, omitMissing: Bool,
                                path: String, depth: Int) throws(MappingError) -> JSONValue {
        guard depth < mapper.maxDepth else { throw MappingError("objects nested deeper than \(mapper.maxDepth) levels", keyPath: path) }
        switch node.kind {
        case .null:
            return .null()
        case .array:
            let result = JSONValue.array()
            for (index, element) in node.elements.enumerated() where !element.isNull {
                result.append(try inverse(element, mapping, mapper, omitMissing: omitMissing, path: "\(path)[\(index)]",
                                          depth: depth))
            }
            return result
        case .object:
            break
        default:
            // A mapping of the value itself ("@value" -> key) inverts to that value only when
            // given the object; a bare scalar is passed through.
            return node.retained()
        }
        if mapping.attributes.count == 1, mapping.relationships.isEmpty, mapping.attributes[0].source.isRoot {
            return node[mapping.attributes[0].destination]?.retained() ?? .null()
        }
        let result = JSONValue.object()
        for attribute in mapping.attributes where !attribute.source.isRoot {
            guard let given = node[attribute.destination] else {
                if !omitMissing { try set(.null(), at: attribute.source.components, in: result, path: path) }
                continue
            }
            try set(given.retained(), at: attribute.source.components, in: result, path: path)
        }
        for relationship in mapping.relationships where !relationship.source.isRoot {
            let where_ = JSONKeyPath.join(path, relationship.destination)
            guard let nested = mapper.mappings[relationship.mapping] else {
                throw MappingError("unknown mapping \"\(relationship.mapping)\"", keyPath: where_)
            }
            guard let child = node[relationship.destination] else {
                if !omitMissing { try set(.null(), at: relationship.source.components, in: result, path: path) }
                continue
            }
            let value = try inverse(child, nested, mapper, omitMissing: omitMissing, path: where_, depth: depth + 1)
            try set(value, at: relationship.source.components, in: result, path: path)
        }
        return result
    }

    /// Writes `value` at `components` inside `object`, creating intermediate objects.
    static func set(_ value: JSONValue, at components: [String], in object: JSONValue, path: String) throws(MappingError) {
        var current = object
        var where_ = path
        for key in components.dropLast() {
            where_ = JSONKeyPath.join(where_, key)
            if let existing = current.node[key] {
                guard existing.kind == .object else {
                    throw MappingError("cannot nest a value under \(existing.kind.name) written by another attribute", keyPath: where_)
                }
                current = existing.retained()
            } else {
                let created = JSONValue.object()
                current.set(key, created)
                current = created
            }
        }
        current.set(components.last ?? "", value)
    }
}
