/// The objects a response's descriptors mapped, keyed by key path, with first/all accessors
/// and the response metadata (RestKit's `RKMappingResult`: `dictionary`, `array`,
/// `firstObject`, `count`).
///
/// Key paths are the descriptors' key paths as written (`""` for the whole body); under
/// each is one mapped object or an array of them. Decided differently from RestKit: the
/// flattened order across key paths is the descriptors' registration order (RestKit's is
/// undefined), and "nothing mapped" is an empty result, not nil.
public struct MappingResult: Sendable {
    /// The JSON object keyed by key path (``Response/mapped``), `{}` when nothing was mapped.
    public let dictionary: JSONValue
    /// The response metadata (see ``MappingContext``); nil when no descriptor matched.
    public let metadata: JSONValue?

    /// A result over a mapped dictionary (nil: nothing mapped).
    public init(dictionary: JSONValue?, metadata: JSONValue?) {
        self.dictionary = dictionary ?? .object()
        self.metadata = metadata
    }

    /// The key paths that mapped something, in registration order.
    public var keyPaths: [String] { dictionary.node.members.map(\.key) }

    /// Every object mapped at `keyPath`: the elements of an array, or the one object;
    /// empty when nothing was mapped there.
    public func all(at keyPath: String) -> [JSONNode] {
        guard let node = dictionary.node[keyPath] else { return [] }
        return node.kind == .array ? node.elements : [node]
    }

    /// The first object mapped at `keyPath`, or nil.
    public func first(at keyPath: String) -> JSONNode? { all(at: keyPath).first }

    /// Every object of every key path, flattened in key-path order (RestKit's `array`).
    public var array: [JSONNode] { keyPaths.flatMap { all(at: $0) } }

    /// The first object of the first key path (RestKit's `firstObject`).
    public var firstObject: JSONNode? { array.first }

    /// The number of objects over all key paths.
    public var count: Int { keyPaths.reduce(0) { $0 + all(at: $1).count } }

    /// The number of objects at `keyPath` (0 when nothing was mapped there).
    public func count(at keyPath: String) -> Int { all(at: keyPath).count }

    /// Decodes the value at `keyPath` (an object or an array) into `T`.
    /// - Throws: `DecodingError`, or ``MappingError`` when nothing was mapped at `keyPath`.
    public func decode<T: Decodable>(_ type: T.Type, at keyPath: String = "") throws -> T {
        guard let node = dictionary.node[keyPath] else {
            throw MappingError("nothing was mapped at key path \"\(keyPath)\"", keyPath: keyPath)
        }
        return try JSONNodeDecoder().decode(type, from: node)
    }

    /// Decodes every object at `keyPath` into `T` (one element for a single object).
    public func decodeAll<T: Decodable>(_ type: T.Type, at keyPath: String = "") throws -> [T] {
        var result: [T] = []
        for node in all(at: keyPath) { result.append(try JSONNodeDecoder().decode(type, from: node)) }
        return result
    }
}

extension Response {
    /// The mapped objects as a ``MappingResult`` (empty when nothing was mapped).
    public var result: MappingResult { MappingResult(dictionary: mapped, metadata: metadata) }
}
