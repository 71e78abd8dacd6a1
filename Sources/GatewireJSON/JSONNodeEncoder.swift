import CJansson

/// Encodes `Encodable` Swift types straight into a Jansson tree: no JSON text and no Swift
/// dictionaries in between (the role of Foundation's `JSONEncoder`, which is not available in
/// the core). The mirror of ``JSONNodeDecoder``: what this encoder writes, that decoder reads
/// back as the same value.
///
/// - Integers are exact JSON integers (Jansson's 64-bit signed value). A `UInt` or `UInt64`
///   above `Int64.max`, which Jansson cannot hold, is `EncodingError.invalidValue`.
/// - `Double` is a JSON real; `Float` is written as the `Double` of the same value, which
///   reads back as the same `Float`. NaN and the infinities, which JSON cannot hold, are
///   `EncodingError.invalidValue` (Foundation's default strategy).
/// - `Optional` properties: nil is omitted (the synthesized `encodeIfPresent`), which
///   ``JSONNodeDecoder`` reads back as nil, as it reads a `null`. An explicit `encodeNil`
///   and a nil element of an array (`[Int?]`) write `null`.
/// - `[String: T]` (and `[Int: T]`, with the integers as keys' text) is an object, arrays and
///   sets are arrays, nested types recurse. Members keep the order they were encoded in.
/// - A value that encodes nothing is `{}` when nested, and `EncodingError.invalidValue` at
///   the top level.
/// - Dates: ``GatewireDate`` (in `GatewireMapping`) encodes as its ISO 8601 text in UTC with
///   milliseconds, `2017-10-10T16:00:00.000Z`, the text the mapper emits and the decoder reads.
///
/// ```swift
/// let body = try JSONNodeEncoder().encode(["name": "Ann"])   // {"name": "Ann"}
/// ```
package struct JSONNodeEncoder {
    /// Passed to the types being encoded as `Encoder.userInfo`.
    package var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// An encoder with no user info.
    package init() {}

    /// The tree of `value`, a new ``JSONValue`` the caller owns (any JSON type at the top).
    /// - Throws: `EncodingError.invalidValue` (an integer beyond 64 bits, a non-finite
    ///   number, a top-level value that encodes nothing, with the coding path of the value),
    ///   or whatever `value`'s own `encode(to:)` throws.
    package func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        if let scalar = try NodeEncoding.scalar(value, path: []) { return JSONValue(taking: scalar) }
        let encoder = NodeEncoder(place: .root, codingPath: [], userInfo: userInfo)
        try value.encode(to: encoder)
        guard let root = encoder.takeRoot() else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values"))
        }
        return JSONValue(taking: root)
    }
}

/// The conversions of the containers below; each returns a new reference.
enum NodeEncoding {
    /// The node of a value that needs no container (strings, booleans, numbers), or nil for
    /// any other type. A dynamic cast per value, as Foundation's encoder does for its own
    /// special types.
    static func scalar<T: Encodable>(_ value: T, path: [any CodingKey]) throws -> JSONPointer? {
        switch value {
        case let value as String: newJSONString(value)
        case let value as Bool: value ? json_true() : json_false()
        case let value as Int: json_integer(Int64(value))
        case let value as Int64: json_integer(value)
        case let value as Double: try real(value, path: path)
        case let value as Int32: json_integer(Int64(value))
        case let value as Int16: json_integer(Int64(value))
        case let value as Int8: json_integer(Int64(value))
        case let value as UInt: try integer(value, path: path)
        case let value as UInt64: try integer(value, path: path)
        case let value as UInt32: json_integer(Int64(value))
        case let value as UInt16: json_integer(Int64(value))
        case let value as UInt8: json_integer(Int64(value))
        case let value as Float: try real(Double(value), path: path)
        default: nil
        }
    }

    static func integer<T: BinaryInteger>(_ value: T, path: [any CodingKey]) throws -> JSONPointer {
        guard let exact = Int64(exactly: value) else {
            throw EncodingError.invalidValue(value, .init(codingPath: path,
                debugDescription: "\(value) does not fit in a JSON integer (Jansson holds 64-bit signed integers)"))
        }
        return json_integer(exact)
    }

    static func real(_ value: Double, path: [any CodingKey]) throws -> JSONPointer {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: path,
                debugDescription: "\(value) is not a finite number, which JSON cannot hold"))
        }
        return json_real(value)
    }
}

/// The `Encoder` of one place in the tree being built: the root, an object's member or an
/// array's element. Every container writes into the tree as it goes, so nothing is copied
/// or merged afterwards; a nested value's place holds `{}` until the value writes there
/// (Foundation's encoder writes `{}` for a value that encodes nothing, too).
final class NodeEncoder: Encoder {
    enum Place {
        case root
        case member(JSONPointer, String)
        case element(JSONPointer, Int)
    }

    let place: Place
    let codingPath: [any CodingKey]
    let sendableUserInfo: [CodingUserInfoKey: any Sendable]
    var userInfo: [CodingUserInfoKey: Any] { sendableUserInfo }
    /// The value at the root (a reference this encoder owns until ``takeRoot()``).
    private var root: JSONPointer?
    /// References to the parent and to every container handed out, released in `deinit`: a
    /// container stays valid even when a misbehaving `encode(to:)` replaces what it writes to.
    private var held: [JSONPointer] = []

    init(place: Place, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.place = place
        self.codingPath = codingPath
        self.sendableUserInfo = userInfo
        switch place {
        case .root: break
        case .member(let parent, _), .element(let parent, _): held.append(json_incref(parent)!)
        }
    }

    deinit {
        if let root { json_decref(root) }
        for pointer in held { json_decref(pointer) }
    }

    /// The root value, handed to the caller (nil when nothing was encoded).
    func takeRoot() -> JSONPointer? {
        defer { root = nil }
        return root
    }

    /// What this place holds now (borrowed), or nil.
    private var current: JSONPointer? {
        switch place {
        case .root:
            root
        case .member(let object, let key):
            key.withCString { json_object_getn(object, $0, key.utf8.count) }
        case .element(let array, let index):
            json_array_get(array, index)
        }
    }

    /// Puts `value` (a new reference, taken over) at this place; returns it, borrowed.
    @discardableResult
    func store(_ value: JSONPointer) -> JSONPointer {
        switch place {
        case .root:
            if let root { json_decref(root) }
            root = value
        case .member(let object, let key):
            NodeEncoder.set(object, key, value)
        case .element(let array, let index):
            json_array_set_new(array, index, value)
        }
        return value
    }

    /// Sets member `key` of `object` to `value` (a new reference, taken over); the key may
    /// hold U+0000.
    static func set(_ object: JSONPointer, _ key: String, _ value: JSONPointer) {
        _ = key.withCString { json_object_setn_new_nocheck(object, $0, key.utf8.count, value) }
    }

    /// The object or array at this place, reused when a container asked for it before (a
    /// subclass and its superclass share one container, as with Foundation's encoder).
    private func holding(_ kind: json_type, _ make: () -> JSONPointer) -> JSONPointer {
        let node = current.flatMap { gw_json_typeof($0) == kind ? $0 : nil } ?? store(make())
        held.append(json_incref(node)!)
        return node
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedNodeEncodingContainer<Key>(encoder: self, object: holding(JSON_OBJECT) { json_object() }))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedNodeEncodingContainer(encoder: self, array: holding(JSON_ARRAY) { json_array() })
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleNodeEncodingContainer(encoder: self) }

    /// The encoder of a nested place, one key deeper.
    func child(_ place: Place, _ key: any CodingKey) -> NodeEncoder {
        NodeEncoder(place: place, codingPath: codingPath + [key], userInfo: sendableUserInfo)
    }
}

struct KeyedNodeEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: NodeEncoder
    /// The object written to (borrowed; the encoder holds a reference).
    let object: JSONPointer
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ key: Key, _ value: JSONPointer) { NodeEncoder.set(object, key.stringValue, value) }

    /// A nested place at `key`, holding `{}` until its value writes there.
    private func place(_ key: any CodingKey) -> NodeEncoder {
        NodeEncoder.set(object, key.stringValue, json_object())
        return encoder.child(.member(object, key.stringValue), key)
    }

    mutating func encodeNil(forKey key: Key) { set(key, json_null()) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let scalar = try NodeEncoding.scalar(value, path: codingPath + [key]) { return set(key, scalar) }
        try value.encode(to: place(key))
    }
    mutating func encode(_ value: Bool, forKey key: Key) { set(key, value ? json_true() : json_false()) }
    mutating func encode(_ value: String, forKey key: Key) { set(key, newJSONString(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(key, try NodeEncoding.real(value, path: codingPath + [key])) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try encode(Double(value), forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) { set(key, json_integer(Int64(value))) }
    mutating func encode(_ value: Int8, forKey key: Key) { set(key, json_integer(Int64(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) { set(key, json_integer(Int64(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) { set(key, json_integer(Int64(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) { set(key, json_integer(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(key, try NodeEncoding.integer(value, path: codingPath + [key])) }
    mutating func encode(_ value: UInt8, forKey key: Key) { set(key, json_integer(Int64(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) { set(key, json_integer(Int64(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) { set(key, json_integer(Int64(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(key, try NodeEncoding.integer(value, path: codingPath + [key])) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        place(key).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { place(key).unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { place(NamedKey("super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { place(key) }
}

struct UnkeyedNodeEncodingContainer: UnkeyedEncodingContainer {
    let encoder: NodeEncoder
    /// The array written to (borrowed; the encoder holds a reference).
    let array: JSONPointer
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { json_array_size(array) }

    private func append(_ value: JSONPointer) { json_array_append_new(array, value) }

    /// A nested place at the next index, holding `{}` until its value writes there.
    private func place() -> NodeEncoder {
        let index = count
        append(json_object())
        return encoder.child(.element(array, index), IndexKey(index))
    }

    mutating func encodeNil() { append(json_null()) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        if let scalar = try NodeEncoding.scalar(value, path: codingPath + [IndexKey(count)]) { return append(scalar) }
        try value.encode(to: place())
    }
    mutating func encode(_ value: Bool) { append(value ? json_true() : json_false()) }
    mutating func encode(_ value: String) { append(newJSONString(value)) }
    mutating func encode(_ value: Double) throws { append(try NodeEncoding.real(value, path: codingPath + [IndexKey(count)])) }
    mutating func encode(_ value: Float) throws { try encode(Double(value)) }
    mutating func encode(_ value: Int) { append(json_integer(Int64(value))) }
    mutating func encode(_ value: Int8) { append(json_integer(Int64(value))) }
    mutating func encode(_ value: Int16) { append(json_integer(Int64(value))) }
    mutating func encode(_ value: Int32) { append(json_integer(Int64(value))) }
    mutating func encode(_ value: Int64) { append(json_integer(value)) }
    mutating func encode(_ value: UInt) throws { append(try NodeEncoding.integer(value, path: codingPath + [IndexKey(count)])) }
    mutating func encode(_ value: UInt8) { append(json_integer(Int64(value))) }
    mutating func encode(_ value: UInt16) { append(json_integer(Int64(value))) }
    mutating func encode(_ value: UInt32) { append(json_integer(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { append(try NodeEncoding.integer(value, path: codingPath + [IndexKey(count)])) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        place().container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { place().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { place() }
}

struct SingleNodeEncodingContainer: SingleValueEncodingContainer {
    let encoder: NodeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() { encoder.store(json_null()) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        if let scalar = try NodeEncoding.scalar(value, path: codingPath) {
            encoder.store(scalar)
            return
        }
        try value.encode(to: encoder)  // the value's own containers write at this same place
    }
    mutating func encode(_ value: Bool) { encoder.store(value ? json_true() : json_false()) }
    mutating func encode(_ value: String) { encoder.store(newJSONString(value)) }
    mutating func encode(_ value: Double) throws { encoder.store(try NodeEncoding.real(value, path: codingPath)) }
    mutating func encode(_ value: Float) throws { try encode(Double(value)) }
    mutating func encode(_ value: Int) { encoder.store(json_integer(Int64(value))) }
    mutating func encode(_ value: Int8) { encoder.store(json_integer(Int64(value))) }
    mutating func encode(_ value: Int16) { encoder.store(json_integer(Int64(value))) }
    mutating func encode(_ value: Int32) { encoder.store(json_integer(Int64(value))) }
    mutating func encode(_ value: Int64) { encoder.store(json_integer(value)) }
    mutating func encode(_ value: UInt) throws { encoder.store(try NodeEncoding.integer(value, path: codingPath)) }
    mutating func encode(_ value: UInt8) { encoder.store(json_integer(Int64(value))) }
    mutating func encode(_ value: UInt16) { encoder.store(json_integer(Int64(value))) }
    mutating func encode(_ value: UInt32) { encoder.store(json_integer(Int64(value))) }
    mutating func encode(_ value: UInt64) throws { encoder.store(try NodeEncoding.integer(value, path: codingPath)) }
}
