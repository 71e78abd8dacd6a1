import CJansson
import Glibc

/// A raw Jansson node, as the mapper's hot path handles it: no Swift object per value.
///
/// Ownership follows Jansson's words: a *borrowed* pointer is valid while whatever holds the
/// tree keeps it (never released by the receiver); a *new reference* is owned by the
/// receiver, who passes it on (e.g. to `json_object_setn_new_nocheck`) or releases it with
/// `json_decref`. Each function below says which it returns.
package typealias JSONPointer = UnsafeMutablePointer<json_t>

// The small accessors are @inlinable: the mapping walk (another module) calls them for every
// value, and a call across modules cost (b) 1.3% of its instructions.
extension UnsafeMutablePointer where Pointee == json_t {
    /// The node's Jansson type (`JSON_TRUE` and `JSON_FALSE` are distinct here).
    @inlinable package var type: json_type { pointee.type }

    /// Whether this is a JSON object.
    @inlinable package var isObject: Bool { pointee.type == JSON_OBJECT }

    /// The UTF-8 bytes of a string node (its full length, U+0000 included), borrowed from the
    /// node: valid while the node lives. Only for string nodes.
    @inlinable package var stringBytes: UnsafeBufferPointer<UInt8> {
        let length = json_string_length(self)
        return UnsafeBufferPointer(start: UnsafeRawPointer(json_string_value(self)!).assumingMemoryBound(to: UInt8.self),
                                   count: length)
    }

    /// Whether this string node's bytes are exactly `literal` (ASCII).
    @inlinable package func stringEquals(_ literal: StaticString) -> Bool {
        let bytes = stringBytes
        return bytes.count == literal.utf8CodeUnitCount
            && (bytes.count == 0 || memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0)
    }

    /// A new reference to this node (the same node, shared).
    @inlinable package func newReference() -> UnsafeMutablePointer<json_t> { json_incref(self)! }

    /// This node as JSON text (`flags` as `gw_json_dump_flags` makes them; the default is
    /// compact with every real's 17 digits, as ``JSONValue/serialized(pretty:significantDigits:)``).
    ///
    /// Written through `json_dump_callback` into a Swift buffer: Jansson never hands out
    /// memory here, so the text is right whatever allocator Jansson has (see ``JSONArena``).
    package func serialized(flags: Int = gw_json_dump_flags(0, 17)) -> String {
        var text = TextBuffer()
        defer { free(text.bytes) }
        let status = withUnsafeMutablePointer(to: &text) { buffer in
            json_dump_callback(self, { chunk, size, buffer in
                buffer!.assumingMemoryBound(to: TextBuffer.self).pointee.append(chunk!, size) ? 0 : -1
            }, buffer, flags)
        }
        guard status == 0, let bytes = text.bytes else { return "null" }  // only on allocation failure
        return String(decoding: UnsafeBufferPointer(start: bytes, count: text.count), as: UTF8.self)
    }
}

/// The growing `malloc`ed buffer ``JSONPointer``'s `serialized` writes into (Jansson's
/// callback hands it many small chunks: a plain copy each, no Swift collection per chunk).
private struct TextBuffer {
    var bytes: UnsafeMutablePointer<UInt8>?
    var count = 0
    var capacity = 0

    /// Appends `size` bytes at `chunk`; false when memory ran out.
    mutating func append(_ chunk: UnsafePointer<CChar>, _ size: Int) -> Bool {
        if count + size > capacity {
            let grown = max(4096, capacity * 2, count + size)
            guard let moved = realloc(bytes, grown) else { return false }
            bytes = moved.assumingMemoryBound(to: UInt8.self)
            capacity = grown
        }
        memcpy(bytes! + count, chunk, size)
        count += size
        return true
    }
}

/// A new reference to a JSON string holding `bytes` (valid UTF-8 the caller vouches for:
/// Jansson does not check it). Falls back to `null` only when Jansson cannot allocate.
package func newJSONString(validUTF8 bytes: UnsafeBufferPointer<UInt8>) -> JSONPointer {
    let made = bytes.withMemoryRebound(to: CChar.self) { chars in
        chars.baseAddress.map { json_stringn_nocheck($0, chars.count) } ?? json_string("")
    }
    return made ?? json_null()
}

/// A new reference to a JSON string holding `text` (`String` is valid UTF-8).
package func newJSONString(_ text: String) -> JSONPointer {
    var text = text
    return text.withUTF8 { newJSONString(validUTF8: $0) }
}
