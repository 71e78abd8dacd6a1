import CJansson
import CYAML
import GatewireJSON

/// A YAML document read into the same Jansson tree a JSON document gives, with libyaml's
/// event parser (Debian's libyaml 0.2.5), so that everything after loading sees one kind of
/// tree.
///
/// Rules: scalars as the core schema says (``YAMLScalar``); every mapping key becomes a string
/// as written (`200:` is the key `"200"`, as OpenAPI's response codes must be); an alias is
/// the anchored node itself, shared (no copy, so a "billion laughs" text costs no memory); a
/// later duplicate key replaces the earlier value (as Jansson's JSON parser does); one
/// document per stream. Nesting deeper than ``maxDepth`` is an error rather than a deep
/// recursion anywhere later.
enum YAMLDocument {
    /// The deepest nesting of mappings and sequences accepted (Jansson's JSON parser stops at 2048).
    static let maxDepth = 1000

    /// Parses the UTF-8 (or UTF-16, with a byte order mark) YAML text `bytes`.
    /// - Throws: ``OpenAPIImportError`` naming `document` with libyaml's message and the
    ///   1-based line and column, for a syntax error, an alias to an unknown anchor, a key that
    ///   is not a scalar, several documents, or nesting beyond ``maxDepth``.
    static func parse(_ bytes: UnsafeRawBufferPointer, document: String) throws(OpenAPIImportError) -> JSONValue {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw OpenAPIImportError(document: document, message: "cannot start the YAML parser (out of memory)")
        }
        defer { yaml_parser_delete(&parser) }
        let start = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(bitPattern: 1)!
        yaml_parser_set_input_string(&parser, start, bytes.count)
        var builder = Builder(document: document)
        defer { builder.releaseAll() }
        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(&parser, &event) == 1 else {
                let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
                let context = parser.context.map { String(cString: $0) + ": " } ?? ""
                throw OpenAPIImportError(document: document, line: Int(parser.problem_mark.line) + 1,
                                         column: Int(parser.problem_mark.column) + 1, message: context + problem)
            }
            defer { yaml_event_delete(&event) }
            let mark = (line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
            if event.type == YAML_STREAM_END_EVENT { break }
            try builder.take(event, at: mark)
        }
        guard let root = builder.root else {
            throw OpenAPIImportError(document: document, message: "the YAML text holds no document")
        }
        builder.root = nil
        return JSONValue(taking: root)
    }

    /// The tree being built from the events: a stack of open containers.
    private struct Builder {
        let document: String
        /// The finished document (a new reference), once its last event is read.
        var root: JSONPointer?
        /// Open mappings and sequences, innermost last; a mapping waits for a value when
        /// `key` is set.
        var stack: [(container: JSONPointer, key: String?, anchor: String?)] = []
        /// Anchored nodes by name (one reference each, released at the end).
        var anchors: [String: JSONPointer] = [:]
        var documents = 0

        init(document: String) { self.document = document }

        mutating func take(_ event: yaml_event_t, at mark: (line: Int, column: Int)) throws(OpenAPIImportError) {
            switch event.type {
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 { throw error("a YAML stream of several documents (an OpenAPI document is one)", mark) }
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text = UnsafeBufferPointer(start: scalar.value, count: scalar.length)
                if let top = stack.last, top.container.isObject, top.key == nil {
                    guard !text.contains(0) else { throw error("a mapping key holds a NUL character", mark) }
                    stack[stack.count - 1].key = String(decoding: text, as: UTF8.self)
                    if let anchor = scalar.anchor { remember(newJSONString(validUTF8: text), as: anchor) }
                    return
                }
                let value = YAMLScalar.value(text, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE,
                                             tag: scalar.tag.map { String(cString: $0) })
                if let anchor = scalar.anchor { remember(value, as: anchor) }
                try add(value, mark)
            case YAML_ALIAS_EVENT:
                let name = String(cString: event.data.alias.anchor)
                guard let node = anchors[name] else { throw error("an alias to the unknown anchor \"\(name)\"", mark) }
                if let top = stack.last, top.container.isObject, top.key == nil {
                    guard let key = node.stringKey else { throw error("a mapping key that is not a scalar (alias \"\(name)\")", mark) }
                    stack[stack.count - 1].key = key
                    return
                }
                try add(json_incref(node)!, mark)
            case YAML_MAPPING_START_EVENT, YAML_SEQUENCE_START_EVENT:
                if let top = stack.last, top.container.isObject, top.key == nil {
                    throw error("a mapping key that is not a scalar (JSON keys are strings)", mark)
                }
                guard stack.count < YAMLDocument.maxDepth else {
                    throw error("nested deeper than \(YAMLDocument.maxDepth) mappings and sequences", mark)
                }
                let isMapping = event.type == YAML_MAPPING_START_EVENT
                let container = isMapping ? json_object()! : json_array()!
                let anchor = isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor
                stack.append((container, nil, anchor.map { String(cString: $0) }))
            case YAML_MAPPING_END_EVENT, YAML_SEQUENCE_END_EVENT:
                let (container, _, anchor) = stack.removeLast()
                if let anchor { anchors[anchor] = json_incref(container)! }
                try add(container, mark)
            default:
                break  // stream start, document end: nothing to build
            }
        }

        /// Keeps a reference to an anchored node for its aliases.
        private mutating func remember(_ node: JSONPointer, as anchor: UnsafeMutablePointer<yaml_char_t>) {
            let name = String(cString: anchor)
            if let earlier = anchors[name] { json_decref(earlier) }  // a redefined anchor: later aliases mean the new one
            anchors[name] = json_incref(node)!
        }

        /// Puts `value` (a new reference, taken over) into the open container, or makes it the root.
        private mutating func add(_ value: JSONPointer, _ mark: (line: Int, column: Int)) throws(OpenAPIImportError) {
            guard let top = stack.last else {
                root = value
                return
            }
            if top.container.isObject {
                let key = top.key!
                _ = key.withCString { json_object_set_new(top.container, $0, value) }
                stack[stack.count - 1].key = nil
            } else {
                _ = json_array_append_new(top.container, value)
            }
        }

        private func error(_ message: String, _ mark: (line: Int, column: Int)) -> OpenAPIImportError {
            OpenAPIImportError(document: document, line: mark.line, column: mark.column, message: message)
        }

        /// Releases what an error left: the open containers, the anchors, a finished root.
        mutating func releaseAll() {
            for open in stack { json_decref(open.container) }
            stack = []
            for node in anchors.values { json_decref(node) }
            anchors = [:]
            if let root { json_decref(root) }
            root = nil
        }
    }
}

private extension UnsafeMutablePointer where Pointee == json_t {
    /// The text of a scalar node as a mapping key: a string as it is, a number or boolean as
    /// JSON writes it; nil for a mapping or sequence.
    var stringKey: String? {
        switch type {
        case JSON_STRING: return String(decoding: stringBytes, as: UTF8.self)
        case JSON_OBJECT, JSON_ARRAY: return nil
        default: return serialized()
        }
    }
}
