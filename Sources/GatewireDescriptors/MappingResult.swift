import GatewireJSON
import GatewireMapping

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
    /// The response metadata (see `MappingContext`); nil when no descriptor matched.
    public let metadata: JSONValue?
    /// What ``decode(_:at:)`` and ``decodeAll(_:at:)`` throw for a `MappingError`: the error
    /// itself, or for a response's result its `GatewireError` of kind `mapping`.
    private let failure: @Sendable (MappingError) -> any Error

    /// A result over a mapped dictionary (nil: nothing mapped), whose decoding throws
    /// `MappingError`.
    package init(dictionary: JSONValue?, metadata: JSONValue?) {
        self.init(dictionary: dictionary, metadata: metadata) { $0 }
    }

    /// A result over a mapped dictionary (nil: nothing mapped) whose decoding throws
    /// `failure(error)` for each `MappingError`: a response's result throws the error its
    /// callers catch (`GatewireError` of kind `mapping`, with the response).
    package init(dictionary: JSONValue?, metadata: JSONValue?, failure: @escaping @Sendable (MappingError) -> any Error) {
        self.dictionary = dictionary ?? .object()
        self.metadata = metadata
        self.failure = failure
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

    /// Decodes the value at `keyPath` (an object or an array) into `T`, straight from
    /// Jansson's tree.
    /// - Throws: a `MappingError` (a response's result: the `GatewireError` of kind `mapping`
    ///   that ``Response/decode(_:at:)`` throws too) when nothing was mapped at `keyPath`
    ///   (naming the key paths that were), or when the shape does not fit `T` (the
    ///   `DecodingError`'s description as its message).
    public func decode<T: Decodable>(_ type: T.Type, at keyPath: String = "") throws -> T {
        guard let node = dictionary.node[keyPath] else {
            let known = keyPaths.map { "\"\($0)\"" }.joined(separator: ", ")
            throw failure(MappingError("nothing was mapped at key path \"\(keyPath)\""
                + (known.isEmpty ? " (no descriptor mapped this response)" : " (mapped: \(known))")))
        }
        return try decoded(type, from: node, at: keyPath)
    }

    /// Decodes every object at `keyPath` into `T` (one element for a single object).
    /// - Throws: as ``decode(_:at:)`` for a shape that does not fit.
    public func decodeAll<T: Decodable>(_ type: T.Type, at keyPath: String = "") throws -> [T] {
        var result: [T] = []
        for node in all(at: keyPath) { result.append(try decoded(type, from: node, at: keyPath)) }
        return result
    }

    private func decoded<T: Decodable>(_ type: T.Type, from node: JSONNode, at keyPath: String) throws -> T {
        do {
            return try JSONNodeDecoder().decode(type, from: node)
        } catch {
            throw failure(MappingError("does not decode as \(T.self): \(error)", keyPath: keyPath))
        }
    }
}
