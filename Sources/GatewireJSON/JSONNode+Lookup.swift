import CJansson

/// Lookups that take C strings and allocate nothing, for readers that walk many nodes (the C
/// ABI's typed reads of mapped objects).
extension JSONNode {
    /// The member named by the NUL-terminated `key` of an object, or nil when absent or when
    /// this is not an object. The key is matched whole (a `.` in it is part of the name).
    package func member(_ key: UnsafePointer<CChar>) -> JSONNode? {
        json_object_get(pointer, key).map { JSONNode($0, owner: owner) }
    }

    /// The element at `index` of an array, or nil when out of range or not an array.
    package func element(at index: Int) -> JSONNode? {
        guard index >= 0, kind == .array else { return nil }
        return json_array_get(pointer, index).map { JSONNode($0, owner: owner) }
    }

    /// The node at a dotted key path below this one: segments separated by `.`, each a
    /// member name of an object, or, on an array, a decimal index (`home.cityName`,
    /// `posts.0.title`). An empty path is this node. nil when a segment is missing, an
    /// index is out of range or not all digits, or a node on the way is a scalar.
    package func descendant(atPath path: UnsafePointer<CChar>) -> JSONNode? {
        var node = pointer
        var start = path
        while start.pointee != 0 {
            var end = start
            while end.pointee != 0, end.pointee != 0x2E { end += 1 }  // "."
            let length = end - start
            guard let next = Self.child(of: node, segment: start, length: length) else { return nil }
            node = next
            start = end.pointee == 0 ? end : end + 1
        }
        return JSONNode(node, owner: owner)
    }

    /// One step of ``descendant(atPath:)``.
    private static func child(of node: UnsafeMutablePointer<json_t>, segment: UnsafePointer<CChar>,
                              length: Int) -> UnsafeMutablePointer<json_t>? {
        switch gw_json_typeof(node) {
        case JSON_OBJECT:
            return json_object_getn(node, segment, length)
        case JSON_ARRAY:
            guard length > 0, length <= 18 else { return nil }
            var index = 0
            for offset in 0..<length {
                let digit = Int(segment[offset]) - 0x30
                guard (0...9).contains(digit) else { return nil }
                index = index * 10 + digit
            }
            return json_array_get(node, index)
        default:
            return nil
        }
    }

    /// A string node's bytes in place (NUL-terminated; may contain U+0000 before `count`),
    /// valid while the tree lives, or nil when this is not a string.
    package var stringBytes: UnsafeBufferPointer<CChar>? {
        guard kind == .string, let chars = json_string_value(pointer) else { return nil }
        return UnsafeBufferPointer(start: chars, count: json_string_length(pointer))
    }
}
