import GatewireJSON

/// What the importer could not express in the gateway config, or expressed approximately:
/// one ``Line`` per place, in the order the importer met them (the document's keys sorted),
/// written as JSON Lines (``jsonLines``).
///
/// Nothing of the document is dropped without a line here, except what the config has no use
/// for at all (descriptions, examples, `x-` extensions) and the approximations docs/openapi.md
/// states once for every document.
public struct ImportReport: Sendable, Equatable {
    /// One thing not expressed, or approximated.
    public struct Line: Sendable, Equatable {
        /// A JSON pointer (RFC 6901) into the document the line is about (`/paths/~1pets/get`).
        public let pointer: String
        /// A short stable code (`operation_server_ignored`, `union_as_json`, ...; every code
        /// is listed in docs/openapi.md).
        public let reason: String
        /// What was dropped or approximated, and why, in words.
        public let message: String
        /// The file, when the line is about another file than the document (a `$ref` to
        /// `schemas.yaml`); nil for the document itself.
        public let document: String?

        /// A line about `pointer` (of `document`, when another file than the imported one).
        public init(pointer: String, reason: String, message: String, document: String? = nil) {
            self.pointer = pointer
            self.reason = reason
            self.message = message
            self.document = document
        }

        /// The line as one JSON object: `{"pointer", "reason", "message"}` (and `"document"`
        /// for another file), keys sorted, no newline.
        public var json: String {
            let object = JSONValue.object()
            object.set("pointer", .string(pointer))
            object.set("reason", .string(reason))
            object.set("message", .string(message))
            if let document { object.set("document", .string(document)) }
            return DeterministicJSON.text(object, indented: false)
        }
    }

    /// The lines, in the order they were found.
    public private(set) var lines: [Line] = []
    /// The places and reasons already reported, so that a schema met twice gives one line.
    private var reported: Set<String> = []

    /// An empty report.
    public init() {}

    /// Adds a line.
    mutating func add(_ pointer: String, _ reason: String, _ message: String, document: String? = nil) {
        guard reported.insert("\(document ?? "")#\(pointer) \(reason)").inserted else { return }
        lines.append(Line(pointer: pointer, reason: reason, message: message, document: document))
    }

    /// The number of lines per reason code.
    public var countsByReason: [String: Int] {
        var counts: [String: Int] = [:]
        for line in lines { counts[line.reason, default: 0] += 1 }
        return counts
    }

    /// Every line as JSON Lines: one JSON object per line, each ended by `\n` (empty text
    /// for an empty report).
    public var jsonLines: String { lines.map { $0.json + "\n" }.joined() }
}
