import CJansson
import GatewireJSON
import Glibc

/// Every mapping of an ``ObjectMapper`` compiled for ``MappingWalk``: made once (when the
/// mapper is built from config), then read-only and shared by every thread that maps.
///
/// What the walk reads per object is in trivially copyable structs in memory the program
/// owns (``MappingPlan``): source and destination keys as C strings with their lengths (so
/// Jansson is called without making a `String` per key), special roots (`@root`,
/// `@metadata`, `@parent`) split off, and relationships pointing straight at their nested
/// plan. So the walk makes no reference-count traffic per value. The mappings as written are
/// kept for error messages (names, key paths), which are built only on failure.
final class MappingProgram: @unchecked Sendable {
    // @unchecked: every stored property is set in init and never changed; `plans` and the
    // C strings and key arrays its structs point into are freed in deinit only.

    /// The mappings, in plan order.
    let mappings: [ObjectMapping]
    /// Mapping name -> plan index (the first mapping of a name wins; names are unique in a mapper).
    let index: [String: Int]
    /// One plan per mapping, in `mappings` order.
    let plans: UnsafeMutableBufferPointer<MappingPlan>
    private let storage = CKeyStorage()
    /// The program whose plans this one's relationships point into, kept alive with it.
    private let base: MappingProgram?

    /// Compiles `mappings`. A relationship names its nested mapping among `mappings` first,
    /// then in `base`; an unknown name fails only when a relationship finds a value to map.
    init(_ mappings: [ObjectMapping], base: MappingProgram? = nil) {
        self.mappings = mappings
        self.base = base
        var index: [String: Int] = [:]
        for (position, mapping) in mappings.enumerated() where index[mapping.name] == nil { index[mapping.name] = position }
        self.index = index
        plans = .allocate(capacity: mappings.count)
        // Two passes: every plan's address exists before relationships point at it.
        for position in mappings.indices {
            (plans.baseAddress! + position).initialize(to: MappingPlan(program: self, index: position))
        }
        for (position, mapping) in mappings.enumerated() {
            plans[position].compile(mapping, storage: storage) { name in
                if let local = index[name] { return UnsafePointer(plans.baseAddress! + local) }
                return base?.plan(named: name)
            }
        }
    }

    deinit {
        _ = plans.deinitialize()
        plans.deallocate()
    }

    /// The plan of the mapping called `name`, if any (valid while this program lives).
    func plan(named name: String) -> UnsafePointer<MappingPlan>? {
        index[name].map { UnsafePointer(plans.baseAddress! + $0) }
    }
}

/// One ``ObjectMapping`` compiled: what ``MappingWalk`` reads per object, all trivially
/// copyable and pointing into memory its ``MappingProgram`` owns (valid while it lives).
struct MappingPlan {
    /// Per attribute, in output order (index `i` is `mapping.attributes[i]`).
    private(set) var attributes = UnsafeBufferPointer<PlannedAttribute>(start: nil, count: 0)
    /// Per relationship, in output order (index `i` is `mapping.relationships[i]`).
    private(set) var relationships = UnsafeBufferPointer<PlannedRelationship>(start: nil, count: 0)
    /// Whether the mapping is dynamic (the walk then picks another plan per object).
    private(set) var isDynamic = false
    /// The program that owns this plan (unowned: the program owns its plans).
    unowned(unsafe) let program: MappingProgram
    /// This plan's index in `program`.
    let index: Int

    /// An empty plan for mapping `index` of `program`; ``compile(_:storage:target:)`` fills it
    /// once every plan of the program has its address.
    init(program: MappingProgram, index: Int) {
        self.program = program
        self.index = index
    }

    /// The mapping as written (for error messages and dynamic picks; not for the hot path).
    var mapping: ObjectMapping { program.mappings[index] }

    /// The source key path of attribute `i` after its special root, for ``JSONKeyPath``'s full walk.
    func attributeRest(_ i: Int) -> JSONKeyPath { CKeyStorage.rest(mapping.attributes[i].source) }

    /// As ``attributeRest(_:)``, for relationship `i`.
    func relationshipRest(_ i: Int) -> JSONKeyPath { CKeyStorage.rest(mapping.relationships[i].source) }

    /// Fills the planned forms of `mapping`; `target` gives a relationship's nested plan by
    /// mapping name (nil: unknown).
    fileprivate mutating func compile(_ mapping: ObjectMapping, storage: CKeyStorage,
                                      target: (String) -> UnsafePointer<MappingPlan>?) {
        isDynamic = mapping.dynamic != nil
        attributes = storage.buffer(mapping.attributes.map { attribute in
            PlannedAttribute(source: storage.path(attribute.source), destination: storage.key(attribute.destination),
                             type: attribute.type, dateFormat: attribute.dateFormat, required: attribute.required)
        })
        relationships = storage.buffer(mapping.relationships.map { relationship in
            PlannedRelationship(source: storage.path(relationship.source), destination: storage.key(relationship.destination),
                                target: target(relationship.mapping))
        })
    }
}

/// A key as a NUL-terminated C string and its length up to the first NUL (what Jansson's
/// C-string key functions would read). Borrowed from the program that made it.
struct CKey {
    /// The NUL-terminated bytes.
    let chars: UnsafePointer<CChar>
    /// The bytes before the NUL.
    let count: Int
}

/// Where a planned source key path starts: the object being mapped, or a special root.
enum PlannedRoot {
    case node, root, metadata, parent

    /// The root's name as written in key paths (for error messages); "" for `.node`.
    var name: String {
        switch self {
        case .node: ""
        case .root: SourceRoot.root.rawValue
        case .metadata: SourceRoot.metadata.rawValue
        case .parent: SourceRoot.parent.rawValue
        }
    }
}

/// A source key path: its root and the keys after it (empty: the root value itself).
struct PlannedPath {
    /// Where the path starts.
    let root: PlannedRoot
    /// The keys after the root, in order.
    let keys: UnsafeBufferPointer<CKey>
}

/// One attribute of a ``MappingPlan``.
struct PlannedAttribute {
    /// Where the value is read.
    let source: PlannedPath
    /// The key written in the mapped object.
    let destination: CKey
    /// The coercion (nil: the value as parsed), as ``AttributeMapping/type``.
    let type: AttributeType?
    /// How a date is read, as ``AttributeMapping/dateFormat``.
    let dateFormat: DateFormat
    /// Whether a missing or `null` value fails the mapping.
    let required: Bool
}

/// One relationship of a ``MappingPlan``; `target` is the nested plan (nil: no mapping has
/// that name).
struct PlannedRelationship {
    /// Where the nested representation is read.
    let source: PlannedPath
    /// The key written in the mapped object.
    let destination: CKey
    /// The nested mapping's plan (in this program or its base).
    let target: UnsafePointer<MappingPlan>?
}

/// Owns the C strings and arrays of one program (`malloc`ed, freed in deinit).
private final class CKeyStorage {
    private var blocks: [UnsafeMutableRawPointer] = []

    deinit {
        for block in blocks { free(block) }
    }

    /// `text` as a C string (up to its first NUL, as `withCString` would pass it).
    func key(_ text: String) -> CKey {
        let chars = strdup(text)!
        blocks.append(UnsafeMutableRawPointer(chars))
        return CKey(chars: UnsafePointer(chars), count: strlen(chars))
    }

    /// `elements` copied into memory owned here.
    func buffer<T>(_ elements: [T]) -> UnsafeBufferPointer<T> {
        // Trivial element types only (pointers and integers): freed with free(), never deinitialized.
        let raw = malloc(MemoryLayout<T>.stride * max(elements.count, 1))!
        blocks.append(raw)
        let memory = raw.bindMemory(to: T.self, capacity: max(elements.count, 1))
        memory.initialize(from: elements, count: elements.count)
        return UnsafeBufferPointer(start: memory, count: elements.count)
    }

    /// `keyPath` planned: its special root split off, the rest as C keys.
    func path(_ keyPath: JSONKeyPath) -> PlannedPath {
        var root = PlannedRoot.node
        if let (special, _) = SourceRoot.split(keyPath) {
            switch special {
            case .root: root = .root
            case .metadata: root = .metadata
            case .parent: root = .parent
            }
        }
        return PlannedPath(root: root, keys: buffer(CKeyStorage.rest(keyPath).components.map(key)))
    }

    /// `keyPath` after its special root (the whole path when it has none).
    static func rest(_ keyPath: JSONKeyPath) -> JSONKeyPath { SourceRoot.split(keyPath)?.1 ?? keyPath }
}
