import GatewireJSON

/// A response or request body that could not be parsed or mapped.
///
/// Produced by ``JSONKeyPath`` walking, attribute coercion (``AttributeType``), the
/// ``ObjectMapper``, ``RequestDescriptor`` and the ``ResponseMapper``. A call that ends
/// with one fails with kind ``ErrorKind/mapping``.
package struct MappingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the value could not be mapped, e.g. `"12abc" is not an integer`.
    package let message: String
    /// Where: the key path from the body's root, e.g. `items[2].user.login`; empty for the
    /// whole body.
    package let keyPath: String
    /// For a body that is not valid JSON: the 1-based line of the first error (Jansson's count).
    package let line: Int?
    /// For a body that is not valid JSON: the 1-based column of the first error.
    package let column: Int?

    /// An error at `keyPath` (from the body's root); `line`/`column` only for parse errors.
    package init(_ message: String, keyPath: String = "", line: Int? = nil, column: Int? = nil) {
        self.message = message
        self.keyPath = keyPath
        self.line = line
        self.column = column
    }

    /// A parse error of a response body, keeping Jansson's line and column.
    package init(parse error: JSONParseError) {
        self.init("invalid JSON: \(error.message)", line: error.line, column: error.column)
    }

    /// `items[2].amount: "12abc" is not an integer`, or
    /// `invalid JSON at line 3, column 7: ...` for parse errors.
    package var description: String {
        if let line, let column {
            return "invalid JSON at line \(line), column \(column): "
                + (message.hasPrefix("invalid JSON: ") ? String(message.dropFirst(14)) : message)
        }
        return keyPath.isEmpty ? message : "\(keyPath): \(message)"
    }
}
