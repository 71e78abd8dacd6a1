/// An ordered list of HTTP header fields with case-insensitive lookup (RFC 9110 section 5.1).
///
/// Order and duplicates are kept as received or added; ``subscript(_:)`` gives the first
/// value of a name, ``values(for:)`` all of them.
///
/// A response's headers stay libcurl's bytes (a `RawHeaderBlock`) until they are read:
/// ``fields`` splits them into strings once (from any thread), a lookup by name builds only
/// the value it returns, and the first change makes the fields an ordinary array.
///
/// Headers built or changed in Swift are checked as they enter: each field is checked once,
/// when it is added or set (`fieldProblem(name:value:)`, RFC 9110 sections 5.1 and 5.5), and
/// the verdict is kept, so `problem` checks nothing again and a copy carries it. That is the
/// one check of a call's headers: the call, its plugins and the transfer read the verdict.
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

    /// The fields when built or changed in Swift (empty while `raw` holds them).
    private var list: [Field] = []
    /// A received block not yet changed; when set, it holds every field and `list` is empty.
    private var raw: RawHeaderBlock?
    /// The first field of `list` that cannot be sent, as `fieldProblem(name:value:)`
    /// describes it, or nil: kept up to date by every change (see `problem`).
    private var listProblem: String?

    /// The fields in order.
    public var fields: [Field] { raw?.fields ?? list }

    /// Moves received fields into `list` before a change.
    private mutating func materialize() {
        guard let raw else { return }
        list = raw.fields
        self.raw = nil
        listProblem = Self.firstProblem(in: list)
    }

    /// After a change that added at most the field `name: value`: a list of valid fields
    /// stays valid when fields are removed, so only the new field needs a check; a list that
    /// had a bad field (rare: the call fails) is checked again whole, since the change may
    /// have removed it or put the new one before it.
    private mutating func recheck(_ added: (name: String, value: String)?) {
        if listProblem == nil {
            if let added { listProblem = Self.fieldProblem(name: added.name, value: added.value) }
        } else {
            listProblem = Self.firstProblem(in: list)
        }
    }

    /// No fields.
    public init() {}

    /// These fields, in this order (each checked once, here: `problem`).
    public init(_ fields: [Field]) {
        list = fields
        listProblem = Self.firstProblem(in: fields)
    }

    /// The fields of a received block, split into strings when first read.
    package init(_ raw: RawHeaderBlock) { self.raw = raw }

    /// `["Accept": "application/json"]`, in literal order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.map { Field(name: $0.0, value: $0.1) })
    }

    /// Same fields in the same order (however each side stores them).
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        if let left = lhs.raw, let right = rhs.raw, left === right { return true }
        return lhs.fields == rhs.fields
    }

    /// The first value of `name` (case-insensitive), or nil.
    public subscript(_ name: String) -> String? {
        if let raw { return raw.value(named: name) }
        guard !list.isEmpty else { return nil }
        var name = name
        return name.withUTF8 { wanted -> String? in
            let wantedIsASCII = wanted.allSatisfy { $0 < 0x80 }
            for field in list {
                var fieldName = field.name
                if fieldName.withUTF8({ RawHeaderBlock.sameName($0, wanted, wantedIsASCII: wantedIsASCII) }) { return field.value }
            }
            return nil
        }
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        let key = name.lowercased()
        return fields.filter { $0.name.lowercased() == key }.map(\.value)
    }

    /// Whether a field named `name` is present.
    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Appends a field, keeping any others of the same name. The field is checked here
    /// (`problem`); an invalid one is kept, and makes the headers unsendable.
    public mutating func add(_ name: String, _ value: String) {
        materialize()
        list.append(Field(name: name, value: value))
        recheck((name, value))
    }

    /// Replaces every field named `name` with one field (appended if it was absent). The
    /// field is checked here (`problem`); an invalid one is kept, and makes the headers
    /// unsendable.
    public mutating func set(_ name: String, _ value: String) {
        replace(name, value)
        recheck((name, value))
    }

    /// ``set(_:_:)`` without the check.
    private mutating func replace(_ name: String, _ value: String) {
        materialize()
        let key = name.lowercased()
        if let first = list.firstIndex(where: { $0.name.lowercased() == key }) {
            list.removeAll { $0.name.lowercased() == key }
            list.insert(Field(name: name, value: value), at: first)
        } else {
            list.append(Field(name: name, value: value))
        }
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        materialize()
        let key = name.lowercased()
        list.removeAll { $0.name.lowercased() == key }
        recheck(nil)
    }

    /// Adds or replaces every field of `other` (later wins). Fields `other` holds were
    /// checked when they entered it: valid into valid checks nothing again.
    public mutating func merge(_ other: HTTPHeaders) {
        for field in other.fields { replace(field.name, field.value) }
        if listProblem != nil || other.problem != nil { listProblem = Self.firstProblem(in: list) }
    }

    /// The first field that cannot be sent, as `fieldProblem(name:value:)` describes it, or
    /// nil when every field can. Checks nothing: the verdict was kept as the fields entered
    /// (received headers not yet changed are checked when read).
    package var problem: String? {
        guard let raw else { return listProblem }
        return Self.firstProblem(in: raw.fields)
    }

    /// The first field of `fields` that cannot be sent, or nil.
    private static func firstProblem(in fields: [Field]) -> String? {
        for field in fields {
            if let problem = Self.fieldProblem(name: field.name, value: field.value) { return problem }
        }
        return nil
    }

    /// The number of field lines.
    public var count: Int { raw?.count ?? list.count }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}
