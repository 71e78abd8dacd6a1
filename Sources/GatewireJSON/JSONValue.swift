import CGatewireArena
import CJansson

/// One JSON value held in Jansson's tree (`json_t`), owned by this object.
///
/// Gatewire parses each body once with Jansson and never converts the tree into Swift
/// collections: mapping walks the tree through ``JSONNode`` views, builds its output as a
/// new Jansson tree, and `JSONDecoder` decodes `Decodable` types straight from it.
///
/// The object holds one Jansson reference and releases it in `deinit`. A value is
/// mutated only while it is being built (by the code that created it) and is read-only
/// once shared; Jansson's reference counts are atomic, so shared values are `Sendable`.
public final class JSONValue: @unchecked Sendable, CustomStringConvertible {
    /// The Jansson value; valid for the lifetime of this object.
    package let pointer: UnsafeMutablePointer<json_t>
    /// The thread that built the tree in its arena, where its reference is released (the
    /// transport's worker pool; see ``JSONTreeHome``); nil: released wherever the last Swift
    /// reference goes.
    package let home: (any JSONTreeHome)?

    /// Takes over one reference the caller owns (a "new reference" in Jansson's terms).
    package init(taking pointer: UnsafeMutablePointer<json_t>) {
        self.pointer = pointer
        home = nil
    }

    /// Adds a reference to a borrowed Jansson value and holds it.
    package init(retaining pointer: UnsafeMutablePointer<json_t>) {
        self.pointer = json_incref(pointer)!
        home = nil
    }

    /// The same tree, released on the thread `home` names (its arena holds the tree).
    package init(_ value: JSONValue, home: any JSONTreeHome) {
        pointer = json_incref(value.pointer)!
        self.home = home
    }

    deinit {
        if let home {
            let tree = HandedOverTree(pointer: pointer)
            if home.release({ tree.release() }) { return }
        }
        HandedOverTree(pointer: pointer).release()
    }

    /// A view of the root for walking the tree (it keeps this value alive).
    public var node: JSONNode { JSONNode(pointer, owner: self) }

    /// Parses UTF-8 JSON text of any top-level type (RFC 8259). A key repeated in one object
    /// keeps its last value, unless `rejectingDuplicateKeys` makes it an error.
    /// - Throws: ``JSONParseError`` with Jansson's message and the 1-based line and column.
    package static func parse(_ bytes: UnsafeRawBufferPointer, rejectingDuplicateKeys: Bool = false)
        throws(JSONParseError) -> JSONValue
    {
        let flags = gw_json_load_flags(rejectingDuplicateKeys ? 1 : 0)
        var error = json_error_t()
        let parsed: UnsafeMutablePointer<json_t>?
        if let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) {
            parsed = json_loadb(base, bytes.count, flags, &error)
        } else {
            parsed = json_loads("", flags, &error)  // empty input: Jansson's own error
        }
        guard let parsed else {
            throw JSONParseError(error)
        }
        return JSONValue(taking: parsed)
    }

    /// Parses UTF-8 JSON text of any top-level type (see the byte form).
    /// - Throws: ``JSONParseError`` with the line and column of the first error.
    public static func parse(_ text: String, rejectingDuplicateKeys: Bool = false) throws(JSONParseError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { bytes in
            Result { () throws(JSONParseError) in
                try parse(UnsafeRawBufferPointer(bytes), rejectingDuplicateKeys: rejectingDuplicateKeys)
            }
        }
        return try result.get()
    }

    /// Reads and parses the UTF-8 JSON file at `path` (Jansson's `json_load_file`, which reads
    /// it in pieces: the text is never held whole). A key repeated in one object keeps its
    /// last value, unless `rejectingDuplicateKeys` makes it an error.
    /// - Throws: ``JSONParseError``: for invalid JSON with its line and column; for a file that
    ///   cannot be opened with line -1 and Jansson's message naming the file and the reason
    ///   (`unable to open x.json: No such file or directory`).
    package static func load(file path: String, rejectingDuplicateKeys: Bool = false) throws(JSONParseError) -> JSONValue {
        var error = json_error_t()
        guard let loaded = json_load_file(path, gw_json_load_flags(rejectingDuplicateKeys ? 1 : 0), &error) else {
            throw JSONParseError(error)
        }
        return JSONValue(taking: loaded)
    }

    /// The value as JSON text: compact by default, or indented by two spaces.
    /// - Parameter pretty: indent by two spaces; false (default) writes compact text.
    /// - Parameter significantDigits: digits of real numbers, 1...17; the default 17 writes
    ///   every double so that it reads back exactly (so 0.1 reads `0.10000000000000001`).
    public func serialized(pretty: Bool = false, significantDigits: Int = 17) -> String {
        pointer.serialized(flags: gw_json_dump_flags(pretty ? 2 : 0, Int32(min(17, max(1, significantDigits)))))
    }

    public var description: String { serialized() }

    // MARK: Building (only before the value is shared)

    /// A new empty JSON object.
    public static func object() -> JSONValue { JSONValue(taking: json_object()) }
    /// A new empty JSON array.
    public static func array() -> JSONValue { JSONValue(taking: json_array()) }
    /// A JSON string (invalid UTF-8 is repaired to U+FFFD by Swift's `String`).
    public static func string(_ value: String) -> JSONValue {
        var value = value
        let made = value.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                chars.baseAddress.map { json_stringn($0, chars.count) } ?? json_string("")
            }
        }
        return JSONValue(taking: made ?? json_null())
    }
    /// A JSON integer (exact, 64-bit).
    public static func integer(_ value: Int64) -> JSONValue { JSONValue(taking: json_integer(value)) }
    /// A JSON real number; NaN and infinities, which JSON cannot hold, become `null`.
    public static func number(_ value: Double) -> JSONValue {
        JSONValue(taking: value.isFinite ? json_real(value) : json_null())
    }
    /// `true` or `false`.
    public static func bool(_ value: Bool) -> JSONValue { JSONValue(taking: value ? json_true() : json_false()) }
    /// `null`.
    public static func null() -> JSONValue { JSONValue(taking: json_null()) }

    /// Sets `key` of this object to `value` (Jansson adds its own reference).
    public func set(_ key: String, _ value: JSONValue) {
        _ = key.withCString { json_object_set(pointer, $0, value.pointer) }
    }

    /// Appends `value` to this array.
    public func append(_ value: JSONValue) {
        _ = json_array_append(pointer, value.pointer)
    }
}

/// The one reference to a tree that a ``JSONValue`` gives up, released on whichever thread runs
/// ``release()``.
private struct HandedOverTree: @unchecked Sendable {
    // @unchecked: the reference is handed over whole (its JSONValue is gone) and released
    // exactly once; Jansson's reference counts are atomic.
    let pointer: UnsafeMutablePointer<json_t>

    func release() {
        json_decref(pointer)
        gw_arena_flush()  // an arena tree's slots go back to the pool now (see JSONArena)
    }
}

/// A JSON text that Jansson could not parse.
public struct JSONParseError: Error, Sendable, CustomStringConvertible {
    /// Jansson's message, e.g. "'[' or '{' expected near 'x'".
    public let message: String
    /// 1-based line of the error (Jansson's count).
    public let line: Int
    /// 1-based column of the error, in characters.
    public let column: Int
    /// 0-based byte offset of the error.
    public let position: Int

    package init(_ error: json_error_t) {
        var copy = error
        message = withUnsafeBytes(of: &copy.text) {
            String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self))
        }
        line = Int(error.line)
        column = Int(error.column)
        position = Int(error.position)
    }

    public var description: String {
        // Jansson reports errors that are not about the text (a file it cannot open) at line -1.
        line < 0 ? message : "invalid JSON at line \(line), column \(column): \(message)"
    }
}
