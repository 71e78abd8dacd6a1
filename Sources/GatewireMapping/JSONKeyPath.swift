import CJansson
import GatewireJSON

/// A dotted path into a JSON body, such as `items`, `user.address.city` or `meta\.data.id`.
///
/// Follows RestKit's `valueForKeyPath:` (KVC) rules with two deliberate differences:
/// - `\.` escapes a literal dot inside a key (RestKit has no escape, issue #1532), and `\\`
///   a literal backslash. `a\.b.c` is the key `a.b` followed by the key `c`.
/// - A path that runs into a string, number or boolean is a ``MappingError`` naming the
///   path; in RestKit it raises (a crash, issue #2042).
///
/// A key path is the mapper's way of addressing a body (mappings name their sources with
/// it, descriptors their objects), so it lives in the mapping layer with the ``MappingError``
/// it throws; the JSON layer itself only looks up members and elements (``JSONNode``).
///
/// The empty path (`""`) means the whole body (``isRoot``). Walking rules:
/// - a missing key, or `null` before the last key, means "not found" (nil); a `null` at the
///   end is returned as `null` (the mapper maps it to `null`);
/// - a path through an array yields an array of the sub-values of its elements (KVC
///   collection semantics); elements where the rest of the path finds nothing or `null` are skipped.
package struct JSONKeyPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The keys in order, unescaped. Empty for the root.
    package let components: [String]

    /// Parses a dotted path; `\.` is a literal dot and `\\` a literal backslash.
    /// Any other character after `\` is kept as is, with its backslash.
    package init(_ path: String) {
        var components: [String] = []
        guard !path.isEmpty else {
            self.components = []
            return
        }
        var current = ""
        var iterator = path.makeIterator()
        while let character = iterator.next() {
            switch character {
            case "\\":
                switch iterator.next() {
                case "."?: current.append(".")
                case "\\"?: current.append("\\")
                case let other?: current.append("\\"); current.append(other)
                case nil: current.append("\\")
                }
            case ".":
                components.append(current)
                current = ""
            default:
                current.append(character)
            }
        }
        components.append(current)
        self.components = components
    }

    /// A path from already unescaped keys (a key may contain dots).
    package init(components: [String]) { self.components = components }

    /// A literal path, parsed like ``init(_:)`` (never fails).
    package init(stringLiteral value: String) { self.init(value) }

    /// The whole body.
    package static let root = JSONKeyPath(components: [])

    /// Whether this path is the whole body (the empty string).
    package var isRoot: Bool { components.isEmpty }

    /// The path as written, with dots inside keys escaped as `\.`; `""` for the root.
    package var description: String {
        components.map { $0.replacingAll("\\", with: "\\\\").replacingAll(".", with: "\\.") }
            .joined(separator: ".")
    }

    /// The value at this path in `node`, or nil when nothing is found.
    ///
    /// A plain path returns the node itself (shared, not copied); a path through an array
    /// returns a new array of the elements' sub-values.
    /// - Parameter node: the JSON to look in.
    /// - Parameter base: the path of `node` from the body's root, used in error messages (and
    ///   evaluated only when the walk leaves plain objects).
    /// - Throws: ``MappingError`` when the path runs into a string, number or boolean.
    package func value(in node: JSONNode, at base: @autoclosure () -> String = "") throws(MappingError) -> JSONValue? {
        // The common case, objects all the way down, needs no path strings (they are only for
        // error messages); anything else (an array, null, a scalar) takes the full walk.
        var current = node.pointer
        for key in components {
            guard gw_json_typeof(current) == JSON_OBJECT else { return try walk(node, from: 0, path: base()) }
            guard let child = key.withCString({ json_object_get(current, $0) }) else { return nil }
            current = child
        }
        return JSONValue(retaining: current)
    }

    private func walk(_ node: JSONNode, from index: Int, path: String) throws(MappingError) -> JSONValue? {
        if index == components.count { return node.retained() }  // may be `null`: the caller decides
        switch node.kind {
        case .object:
            let key = components[index]
            guard let child = node[key] else { return nil }
            return try walk(child, from: index + 1, path: JSONKeyPath.join(path, key))
        case .array:
            let result = JSONValue.array()
            for (position, element) in node.elements.enumerated() where !element.isNull {
                if let value = try walk(element, from: index, path: "\(path)[\(position)]"), !value.node.isNull {
                    result.append(value)
                }
            }
            return result
        case .null:
            return nil
        default:
            let rest = JSONKeyPath(components: Array(components[index...]))
            throw MappingError(
                "key path runs into \(node.kind.name) before \"\(rest)\" (the key path is \"\(self)\")",
                keyPath: path)
        }
    }

    /// `base.path` for error messages, or `path` when `base` is empty.
    package func appended(to base: String) -> String {
        if isRoot { return base }
        return base.isEmpty ? description : "\(base).\(description)"
    }

    /// `base.key` with the key escaped, or `key` when `base` is empty.
    package static func join(_ base: String, _ key: String) -> String {
        let escaped = JSONKeyPath(components: [key]).description
        return base.isEmpty ? escaped : "\(base).\(escaped)"
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation).
    package func replacingAll(_ target: Character, with replacement: String) -> String {
        guard contains(target) else { return self }
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
