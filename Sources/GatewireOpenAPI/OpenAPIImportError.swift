/// Why a document could not be imported at all: it cannot be read or parsed, it is not an
/// OpenAPI 3.0/3.1 document, or a reference in it cannot be followed (dangling, cyclic).
///
/// What the importer can import with a loss is not an error but a line of the
/// ``ImportReport``; an error means no config was made.
public struct OpenAPIImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file the error is in, as it was named (the document, or a file one of its
    /// `$ref`s names).
    public let document: String
    /// A JSON pointer (RFC 6901) to the place in `document` (`/paths/~1pets/get`), or empty
    /// when the error is about the text itself (then `line` says where) or the whole file.
    public let pointer: String
    /// The 1-based line of a syntax error in the text, or nil.
    public let line: Int?
    /// The 1-based column of a syntax error in the text, or nil.
    public let column: Int?
    /// Why, in words a user can act on.
    public let message: String

    /// An error at `pointer` of `document` (empty pointer: the whole file).
    public init(document: String, pointer: String = "", line: Int? = nil, column: Int? = nil, message: String) {
        self.document = document
        self.pointer = pointer
        self.line = line
        self.column = column
        self.message = message
    }

    /// `petstore.yaml: line 3, column 7: why`, `petstore.yaml#/paths/~1pets: why` or `petstore.yaml: why`.
    public var description: String {
        if let line, let column { return "\(document): line \(line), column \(column): \(message)" }
        return pointer.isEmpty ? "\(document): \(message)" : "\(document)#\(pointer): \(message)"
    }
}
