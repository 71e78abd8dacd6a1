/// Decodes `Decodable` Swift types straight from a Jansson tree: no second parse, no
/// conversion to Swift dictionaries first (the role of Foundation's `JSONDecoder`, which is
/// not available in the core).
///
/// - Integer types are exact: a JSON integer is read as Jansson's 64-bit value and must fit
///   the type; a JSON real must be whole and fit. Otherwise `DecodingError.dataCorrupted`.
/// - `Double`/`Float` accept integers and reals. `Bool` only `true`/`false`. `String` only
///   strings (no number-to-string conversion: map with ``AttributeType/string`` for that).
/// - `Optional` properties: a missing key or `null` is nil (`decodeIfPresent`).
/// - `[String: T]` decodes from an object, arrays from arrays, nested types recursively.
/// - Dates: use ``GatewireDate``, decoded from the ISO 8601 text the mapper emits.
///
/// Errors are the standard `DecodingError` cases with the coding path of the value.
///
/// ```swift
/// let user = try JSONNodeDecoder().decode(User.self, from: outcome.mapped!.node["user"]!)
/// ```
package struct JSONNodeDecoder {
    /// Passed to the types being decoded as `Decoder.userInfo`.
    package var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// A decoder with no user info.
    package init() {}

    /// Decodes `type` from `node`, which must stay alive (its owning ``JSONValue``) meanwhile.
    /// - Throws: `DecodingError` (typeMismatch, valueNotFound, keyNotFound, dataCorrupted).
    package func decode<T: Decodable>(_ type: T.Type, from node: JSONNode) throws -> T {
        try NodeDecoding.decode(type, node, path: [], userInfo: userInfo)
    }

    /// Decodes `type` from the tree held by `value`.
    package func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try withExtendedLifetime(value) { try decode(type, from: value.node) }
    }
}

/// The shared conversions of the containers below.
enum NodeDecoding {
    static func decode<T: Decodable>(_ type: T.Type, _ node: JSONNode, path: [any CodingKey],
                                     userInfo: [CodingUserInfoKey: any Sendable]) throws -> T {
        switch type {
        case is Bool.Type: return try bool(node, path) as! T
        case is String.Type: return try string(node, path) as! T
        case is Double.Type: return try double(node, path) as! T
        case is Float.Type: return Float(try double(node, path)) as! T
        case is Int.Type: return try integer(Int.self, node, path) as! T
        case is Int8.Type: return try integer(Int8.self, node, path) as! T
        case is Int16.Type: return try integer(Int16.self, node, path) as! T
        case is Int32.Type: return try integer(Int32.self, node, path) as! T
        case is Int64.Type: return try integer(Int64.self, node, path) as! T
        case is UInt.Type: return try integer(UInt.self, node, path) as! T
        case is UInt8.Type: return try integer(UInt8.self, node, path) as! T
        case is UInt16.Type: return try integer(UInt16.self, node, path) as! T
        case is UInt32.Type: return try integer(UInt32.self, node, path) as! T
        case is UInt64.Type: return try integer(UInt64.self, node, path) as! T
        default: return try T(from: NodeDecoder(node: node, codingPath: path, userInfo: userInfo))
        }
    }

    static func mismatch(_ type: Any.Type, _ node: JSONNode, _ path: [any CodingKey]) -> DecodingError {
        if node.isNull {
            return .valueNotFound(type, .init(codingPath: path, debugDescription: "Expected \(type) but found null"))
        }
        return .typeMismatch(type, .init(codingPath: path, debugDescription: "Expected \(type) but found \(node.kind.name)"))
    }

    static func bool(_ node: JSONNode, _ path: [any CodingKey]) throws -> Bool {
        guard let value = node.bool else { throw mismatch(Bool.self, node, path) }
        return value
    }

    static func string(_ node: JSONNode, _ path: [any CodingKey]) throws -> String {
        guard let value = node.string else { throw mismatch(String.self, node, path) }
        return value
    }

    static func double(_ node: JSONNode, _ path: [any CodingKey]) throws -> Double {
        guard let value = node.number else { throw mismatch(Double.self, node, path) }
        return value
    }

    static func integer<T: FixedWidthInteger>(_ type: T.Type, _ node: JSONNode, _ path: [any CodingKey]) throws -> T {
        switch node.kind {
        case .integer:
            let value = node.integer!
            guard let exact = T(exactly: value) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Number \(value) does not fit in \(T.self)"))
            }
            return exact
        case .real:
            let value = node.number!
            guard let exact = T(exactly: value) else {
                throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Number \(value) is not a whole number that fits in \(T.self)"))
            }
            return exact
        default:
            throw mismatch(T.self, node, path)
        }
    }
}

/// An array index as a coding key.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { return nil }
}

/// A key named by a string, for `superDecoder()`.
struct NamedKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

/// The `Decoder` over one node.
struct NodeDecoder: Decoder {
    let node: JSONNode
    let codingPath: [any CodingKey]
    let sendableUserInfo: [CodingUserInfoKey: any Sendable]
    var userInfo: [CodingUserInfoKey: Any] { sendableUserInfo }

    init(node: JSONNode, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.node = node
        self.codingPath = codingPath
        self.sendableUserInfo = userInfo
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard node.kind == .object else { throw NodeDecoding.mismatch([String: Any].self, node, codingPath) }
        return KeyedDecodingContainer(KeyedNodeContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard node.kind == .array else { throw NodeDecoding.mismatch([Any].self, node, codingPath) }
        return UnkeyedNodeContainer(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleNodeContainer(decoder: self) }

    func child(_ node: JSONNode, _ key: any CodingKey) -> NodeDecoder {
        NodeDecoder(node: node, codingPath: codingPath + [key], userInfo: sendableUserInfo)
    }
}

struct KeyedNodeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: NodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { decoder.node.members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { decoder.node[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONNode {
        guard let node = decoder.node[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value for key \"\(key.stringValue)\""))
        }
        return node
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key).isNull }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try NodeDecoding.decode(type, try member(key), path: codingPath + [key], userInfo: decoder.sendableUserInfo)
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeValue(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeValue(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeValue(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeValue(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeValue(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeValue(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeValue(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeValue(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeValue(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeValue(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeValue(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeValue(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeValue(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeValue(type, key) }

    private func decodeValue<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try NodeDecoding.decode(type, try member(key), path: codingPath + [key], userInfo: decoder.sendableUserInfo)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder.child(try member(key), key).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(try member(key), key).unkeyedContainer()
    }
    func superDecoder() throws -> any Decoder {
        let key = NamedKey("super")
        guard let node = decoder.node["super"] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value for key \"super\""))
        }
        return decoder.child(node, key)
    }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder.child(try member(key), key) }
}

struct UnkeyedNodeContainer: UnkeyedDecodingContainer {
    let decoder: NodeDecoder
    let elements: [JSONNode]
    var currentIndex = 0

    init(decoder: NodeDecoder) {
        self.decoder = decoder
        elements = decoder.node.elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next<T>(_ type: T.Type) throws -> (JSONNode, any CodingKey) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [IndexKey(currentIndex)],
                                                          debugDescription: "Unkeyed container is at end"))
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], IndexKey(currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // Advance only on success, as Foundation's decoder does.
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [IndexKey(currentIndex)],
                                                          debugDescription: "Unkeyed container is at end"))
        }
        let value: T = try NodeDecoding.decode(type, elements[currentIndex], path: codingPath + [IndexKey(currentIndex)],
                                               userInfo: decoder.sendableUserInfo)
        currentIndex += 1
        return value
    }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try decodeValue(type) }
    mutating func decode(_ type: String.Type) throws -> String { try decodeValue(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decodeValue(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decodeValue(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decodeValue(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decodeValue(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decodeValue(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decodeValue(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decodeValue(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decodeValue(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeValue(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeValue(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeValue(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeValue(type) }

    private mutating func decodeValue<T: Decodable>(_ type: T.Type) throws -> T { try decode(type) as T }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (node, key) = try next(KeyedDecodingContainer<NestedKey>.self)
        return try decoder.child(node, key).container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (node, key) = try next((any UnkeyedDecodingContainer).self)
        return try decoder.child(node, key).unkeyedContainer()
    }
    mutating func superDecoder() throws -> any Decoder {
        let (node, key) = try next((any Decoder).self)
        return decoder.child(node, key)
    }
}

struct SingleNodeContainer: SingleValueDecodingContainer {
    let decoder: NodeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.node.isNull }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try NodeDecoding.decode(type, decoder.node, path: codingPath, userInfo: decoder.sendableUserInfo)
    }
    func decode(_ type: Bool.Type) throws -> Bool { try decodeValue(type) }
    func decode(_ type: String.Type) throws -> String { try decodeValue(type) }
    func decode(_ type: Double.Type) throws -> Double { try decodeValue(type) }
    func decode(_ type: Float.Type) throws -> Float { try decodeValue(type) }
    func decode(_ type: Int.Type) throws -> Int { try decodeValue(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decodeValue(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decodeValue(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decodeValue(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decodeValue(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decodeValue(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeValue(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeValue(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeValue(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeValue(type) }

    private func decodeValue<T: Decodable>(_ type: T.Type) throws -> T { try decode(type) as T }
}
