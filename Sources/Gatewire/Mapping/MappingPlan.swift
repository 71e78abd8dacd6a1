import CJansson
import Glibc

/// An ``ObjectMapping`` compiled for ``MappingWalk``: made once (when an ``ObjectMapper`` is
/// built from config), then read-only and shared by every thread that maps.
///
/// What the walk needs per object is in trivially copyable structs: source keys and
/// destination keys as C strings with their lengths (so Jansson is called without making a
/// Swift `String` per key), the special root (`@root`, `@metadata`, `@parent`) split off,
/// and relationships pointing at their nested plan by index. The original mapping is kept
/// for error messages (names, key paths as written), which are built only on failure.
final class MappingPlan: @unchecked Sendable {
    // @unchecked: every stored property is set in init and never changed; the C strings and
    // key arrays the planned structs point into are owned by `storage` and freed with it.

    /// The mapping as written.
    let mapping: ObjectMapping
    /// Per attribute, in output order (index `i` is `mapping.attributes[i]`).
    let attributes: [PlannedAttribute]
    /// Per relationship, in output order (index `i` is `mapping.relationships[i]`).
    let relationships: [PlannedRelationship]
    /// The source key path after its special root, per attribute, for the full walk
    /// (through arrays, with error messages) when the fast walk over objects cannot go on.
    let attributeRests: [KeyPath]
    /// As `attributeRests`, per relationship.
    let relationshipRests: [KeyPath]
    private let storage: CKeyStorage

    /// Compiles `mapping`; `index` gives the plan index of a mapping name (nil: unknown,
    /// which fails only when a relationship finds a value to map).
    init(_ mapping: ObjectMapping, index: (String) -> Int?) {
        let storage = CKeyStorage()
        self.mapping = mapping
        self.storage = storage
        var attributes: [PlannedAttribute] = []
        var attributeRests: [KeyPath] = []
        for attribute in mapping.attributes {
            let (source, rest) = storage.path(attribute.source)
            attributes.append(PlannedAttribute(source: source, destination: storage.key(attribute.destination),
                                               type: attribute.type, dateFormat: attribute.dateFormat,
                                               required: attribute.required))
            attributeRests.append(rest)
        }
        var relationships: [PlannedRelationship] = []
        var relationshipRests: [KeyPath] = []
        for relationship in mapping.relationships {
            let (source, rest) = storage.path(relationship.source)
            relationships.append(PlannedRelationship(source: source, destination: storage.key(relationship.destination),
                                                     target: index(relationship.mapping) ?? -1))
            relationshipRests.append(rest)
        }
        self.attributes = attributes
        self.relationships = relationships
        self.attributeRests = attributeRests
        self.relationshipRests = relationshipRests
    }
}

/// A key as a NUL-terminated C string and its length up to the first NUL (what Jansson's
/// C-string key functions would read). Borrowed from the ``CKeyStorage`` that made it.
struct CKey {
    let chars: UnsafePointer<CChar>
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
    let root: PlannedRoot
    let keys: UnsafeBufferPointer<CKey>
}

/// One attribute of a ``MappingPlan``.
struct PlannedAttribute {
    let source: PlannedPath
    let destination: CKey
    let type: AttributeType?
    let dateFormat: DateFormat
    let required: Bool
}

/// One relationship of a ``MappingPlan``; `target` is the nested plan's index in the
/// ``MappingProgram`` (-1: no mapping has that name).
struct PlannedRelationship {
    let source: PlannedPath
    let destination: CKey
    let target: Int
}

/// Owns the C strings and key arrays of one plan (`malloc`ed, freed in deinit).
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

    /// `keyPath` with its special root split off: the planned form and the rest as a key path.
    func path(_ keyPath: KeyPath) -> (PlannedPath, KeyPath) {
        var root = PlannedRoot.node
        var rest = keyPath
        if let (special, after) = SourceRoot.split(keyPath) {
            switch special {
            case .root: root = .root
            case .metadata: root = .metadata
            case .parent: root = .parent
            }
            rest = after
        }
        let count = rest.components.count
        let keys = UnsafeMutablePointer<CKey>.allocate(capacity: max(count, 1))
        blocks.append(UnsafeMutableRawPointer(keys))
        for (index, component) in rest.components.enumerated() { (keys + index).initialize(to: key(component)) }
        return (PlannedPath(root: root, keys: UnsafeBufferPointer(start: keys, count: count)), rest)
    }
}

/// Every mapping of an ``ObjectMapper`` compiled, with plans found by name or by index.
final class MappingProgram: Sendable {
    /// The plans; relationships refer to each other by index here.
    let plans: [MappingPlan]
    /// Mapping name -> index in `plans`.
    let index: [String: Int]

    /// Compiles every mapping (one per name).
    init(_ mappings: [String: ObjectMapping]) {
        let names = mappings.keys.sorted()
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() { index[name] = position }
        plans = names.map { MappingPlan(mappings[$0]!, index: { index[$0] }) }
        self.index = index
    }

    /// The plan of the mapping called `name`, if any.
    func plan(named name: String) -> MappingPlan? { index[name].map { plans[$0] } }

    /// The plan of `mapping`: the compiled one when it is this program's mapping of that
    /// name, else compiled now (its relationships resolved against this program).
    func plan(for mapping: ObjectMapping) -> MappingPlan {
        if let plan = plan(named: mapping.name), plan.mapping == mapping { return plan }
        return MappingPlan(mapping, index: { index[$0] })
    }
}
