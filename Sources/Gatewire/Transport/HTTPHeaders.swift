/// An ordered list of HTTP header fields with case-insensitive lookup (RFC 9110 section 5.1).
///
/// Order and duplicates are kept as received or added; ``subscript(_:)`` gives the first
/// value of a name, ``values(for:)`` all of them.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field line.
    public struct Field: Sendable, Equatable {
        /// The field name as sent or received (compare case-insensitively).
        public var name: String
        /// The field value, without surrounding whitespace.
        public var value: String
        /// One field line `name: value`.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field] = []

    /// No fields.
    public init() {}

    /// These fields, in this order.
    public init(_ fields: [Field]) { self.fields = fields }

    /// `["Accept": "application/json"]`, in literal order.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value of `name` (case-insensitive), or nil.
    public subscript(_ name: String) -> String? {
        let key = name.lowercased()
        return fields.first { $0.name.lowercased() == key }?.value
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        let key = name.lowercased()
        return fields.filter { $0.name.lowercased() == key }.map(\.value)
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Appends a field, keeping any others of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field (appended if it was absent).
    public mutating func set(_ name: String, _ value: String) {
        let key = name.lowercased()
        if let first = fields.firstIndex(where: { $0.name.lowercased() == key }) {
            fields.removeAll { $0.name.lowercased() == key }
            fields.insert(Field(name: name, value: value), at: first)
        } else {
            fields.append(Field(name: name, value: value))
        }
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        let key = name.lowercased()
        fields.removeAll { $0.name.lowercased() == key }
    }

    /// Adds or replaces every field of `other` (later wins).
    public mutating func merge(_ other: HTTPHeaders) {
        for field in other.fields { set(field.name, field.value) }
    }

    /// The number of field lines.
    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}
