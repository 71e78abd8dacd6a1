import CJansson

/// A read-only view of one node of a Jansson tree, for walking a parsed body without copies.
///
/// It keeps the tree's owning ``JSONValue`` alive, so a node stays valid however long it is
/// kept (`try JSONValue.parse(text).node["id"]` is safe). The node itself is not retained
/// separately: it lives as long as its tree, which is read-only once shared.
public struct JSONNode {
    /// The Jansson node; valid while `owner` lives.
    package let pointer: UnsafeMutablePointer<json_t>
    /// The value that owns the tree this node belongs to.
    package let owner: JSONValue

    package init(_ pointer: UnsafeMutablePointer<json_t>, owner: JSONValue) {
        self.pointer = pointer
        self.owner = owner
    }

    /// The node's JSON type.
    public enum Kind: Sendable, Equatable { case object, array, string, integer, real, bool, null }

    /// This node's JSON type (`true` and `false` are both `.bool`).
    public var kind: Kind {
        switch gw_json_typeof(pointer) {
        case JSON_OBJECT: .object
        case JSON_ARRAY: .array
        case JSON_STRING: .string
        case JSON_INTEGER: .integer
        case JSON_REAL: .real
        case JSON_TRUE, JSON_FALSE: .bool
        default: .null
        }
    }

    /// The member `key` of an object, or nil when absent or when this is not an object.
    public subscript(key: String) -> JSONNode? {
        key.withCString { json_object_get(pointer, $0) }.map { JSONNode($0, owner: owner) }
    }

    /// The number of elements of an array or members of an object; 0 otherwise.
    public var count: Int {
        switch kind {
        case .array: json_array_size(pointer)
        case .object: json_object_size(pointer)
        default: 0
        }
    }

    /// The elements of an array, in order; empty when this is not an array.
    public var elements: [JSONNode] {
        guard kind == .array else { return [] }
        return (0..<json_array_size(pointer)).map { JSONNode(json_array_get(pointer, $0)!, owner: owner) }
    }

    /// The members of an object in Jansson's order (insertion order since 2.8).
    public var members: [(key: String, value: JSONNode)] {
        var result: [(key: String, value: JSONNode)] = []
        var iterator = json_object_iter(pointer)
        while let it = iterator {
            result.append((String(cString: json_object_iter_key(it)), JSONNode(json_object_iter_value(it), owner: owner)))
            iterator = json_object_iter_next(pointer, it)
        }
        return result
    }

    /// The text of a string node (may contain U+0000), or nil.
    public var string: String? {
        guard kind == .string, let chars = json_string_value(pointer) else { return nil }
        let length = json_string_length(pointer)
        return chars.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    /// The exact value of an integer node, or nil.
    public var integer: Int64? { kind == .integer ? json_integer_value(pointer) : nil }

    /// The value of an integer or real node as a double, or nil.
    public var number: Double? {
        switch kind {
        case .integer: Double(json_integer_value(pointer))
        case .real: json_real_value(pointer)
        default: nil
        }
    }

    /// The value of a `true`/`false` node, or nil.
    public var bool: Bool? { kind == .bool ? gw_json_is_true(pointer) != 0 : nil }

    /// Whether this is JSON `null`.
    public var isNull: Bool { kind == .null }

    /// Whether this node and `other` are the same JSON value, by Jansson's `json_equal`:
    /// objects with the same members in any order, arrays element by element, strings by
    /// their bytes; an integer never equals a real (`1` is not `1.0`).
    public func isEqual(to other: JSONNode) -> Bool { json_equal(pointer, other.pointer) != 0 }

    /// A new owning reference to this node (shares the subtree; no copy).
    public func retained() -> JSONValue { JSONValue(retaining: pointer) }

    /// This node as compact JSON text.
    public func serialized() -> String { retained().serialized() }
}

extension JSONNode.Kind {
    /// The kind's name as a user reads it in an error message.
    package var name: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .integer: "an integer"
        case .real: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}
