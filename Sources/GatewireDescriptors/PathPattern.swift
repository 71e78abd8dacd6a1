import GatewireBase
import GatewireJSON

/// A path pattern such as `/users/:id`, `/repos/:owner/:repo/issues` or `/files/*`,
/// matched against a request path relative to the base URL.
///
/// Rules (after RestKit's `RKPathMatcher` and SOCKit, normalised where RestKit is uneven):
/// - Only the path is matched: a `?query` or `#fragment` on the request path is ignored
///   (as RestKit). A pattern may not contain `?`.
/// - A leading and a trailing slash are ignored on both sides, so `/users/1/`, `users/1` and
///   `/users/1` are the same path. Decided differently from RestKit, whose pattern form
///   depends on the base URL's trailing slash and which requires equal slash counts.
/// - The path is split at `/` first and each segment is percent-decoded afterwards, so
///   `%2F` inside a segment stays inside it; literal pattern segments are percent-decoded too.
/// - `:name` (name characters `[A-Za-z0-9_]`) captures a non-empty part of one segment. A
///   parameter takes characters up to the next literal text of its segment (`:id.json`
///   captures `7` from `7.json`), the last one in a segment takes the rest of the segment.
///   `\:` is a literal colon; a `:` not followed by a name character (an empty name, as in
///   `/x/:`) and a name used twice (`/x/:id/:id`) are errors (`parameterProblem(_:)`).
/// - A final `*` segment matches one or more remaining segments (not zero: `/files/*` does
///   not match `/files`), captured decoded and joined by `/` under the name `*`.
///
/// Not `ExpressibleByStringLiteral` on purpose: `PathPattern("/a?b")` would then silently
/// pick the literal initializer and trap instead of throwing.
public struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let pattern: String
    private let segments: [Segment]
    private let wildcard: Bool
    /// The segments' bytes when every segment is one ASCII literal (or empty) and there is no
    /// `*` (most descriptors' patterns); nil otherwise. See ``matchesLiterals(_:_:)``.
    private let asciiLiterals: [[UInt8]]?

    enum Piece: Sendable, Hashable { case literal(String), parameter(String) }
    typealias Segment = [Piece]

    /// Parses a pattern.
    /// - Throws: ``ConfigError`` (with an empty path; config parsing fills it in) for a `?`,
    ///   a `*` that is not the whole last segment, two parameters with no literal between, an
    ///   empty parameter name or a name used twice.
    public init(_ pattern: String) throws(ConfigError) {
        self.pattern = pattern
        if pattern.contains("?") {
            throw ConfigError(path: "", message: "a path pattern cannot contain \"?\" (the query is not matched)")
        }
        if let problem = PathPattern.parameterProblem(pattern) { throw ConfigError(path: "", message: problem) }
        var raw = PathPattern.split(pattern)
        wildcard = raw.last == "*"
        if wildcard { raw.removeLast() }
        var segments: [Segment] = []
        for text in raw {
            if text.contains("*") {
                throw ConfigError(path: "", message: "\"*\" is allowed only as the whole last segment, in \"\(pattern)\"")
            }
            segments.append(try PathPattern.parseSegment(text, in: pattern))
        }
        self.segments = segments
        asciiLiterals = wildcard ? nil : PathPattern.asciiLiterals(segments)
    }

    /// The pattern as written.
    public var description: String { pattern }

    /// The parameter names in order (`*` last, if the pattern has one).
    package var parameterNames: [String] {
        segments.flatMap { $0.compactMap { if case .parameter(let name) = $0 { name } else { nil } } } + (wildcard ? ["*"] : [])
    }

    /// How specific a pattern is, for ranking several matches: more literal segments win,
    /// then a pattern without `*`, then more parameter segments. `Comparable`: greater is
    /// more specific.
    package struct Specificity: Sendable, Hashable, Comparable {
        /// Segments with no parameter.
        package let literalSegments: Int
        /// Whether the pattern ends in `*`.
        package let hasWildcard: Bool
        /// Segments with at least one parameter.
        package let parameterSegments: Int

        /// Whether `a` is less specific than `b`.
        package static func < (a: Specificity, b: Specificity) -> Bool {
            if a.literalSegments != b.literalSegments { return a.literalSegments < b.literalSegments }
            if a.hasWildcard != b.hasWildcard { return a.hasWildcard }
            return a.parameterSegments < b.parameterSegments
        }
    }

    /// This pattern's rank among patterns that match the same path.
    package var specificity: Specificity {
        let literal = segments.filter { $0.allSatisfy { if case .literal = $0 { true } else { false } } }.count
        return Specificity(literalSegments: literal, hasWildcard: wildcard, parameterSegments: segments.count - literal)
    }

    /// Whether the two patterns rank the same and some path could match both, so that for
    /// one key path the later registration would win by order alone (`/users/:id` and
    /// `/users/:name`; `/a/:x` and `/:y/b`). Literal segments are compared decoded;
    /// a segment with a parameter is assumed to overlap anything.
    package func ties(with other: PathPattern) -> Bool {
        guard specificity == other.specificity, wildcard == other.wildcard, segments.count == other.segments.count else {
            return false
        }
        for (a, b) in zip(segments, other.segments) {
            if case .literal(let x)? = a.first, a.count == 1, case .literal(let y)? = b.first, b.count == 1, x != y {
                return false
            }
        }
        return true
    }

    /// The decoded parameters when `path` matches, nil otherwise.
    /// - Parameter path: relative to the base URL, as sent (percent-encoded, may carry `?query`).
    public func match(_ path: String) -> [String: String]? {
        if let asciiLiterals, let matched = PathPattern.matchesLiterals(path, asciiLiterals) { return matched ? [:] : nil }
        // Decoding keeps the number of segments, so the count is checked before any decoding.
        // The path is percent-encoded ASCII: its bytes are split, not its Characters.
        let raw = PathPattern.rawSegments(path)
        if wildcard ? raw.count <= segments.count : raw.count != segments.count { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, raw) {
            guard PathPattern.match(segment, Substring(PercentDecoding.decode(String(part))), into: &parameters) else { return nil }
        }
        if wildcard { parameters["*"] = raw[segments.count...].map { PercentDecoding.decode(String($0)) }.joined(separator: "/") }
        return parameters
    }

    // MARK: Parsing and matching

    /// Each segment's bytes when all are one ASCII literal or empty; nil otherwise.
    private static func asciiLiterals(_ segments: [Segment]) -> [[UInt8]]? {
        var literals: [[UInt8]] = []
        for segment in segments {
            switch segment.first {
            case nil:
                literals.append([])
            case .literal(let text)? where segment.count == 1 && text.utf8.allSatisfy({ $0 < 0x80 }):
                literals.append(Array(text.utf8))
            default:
                return nil
            }
        }
        return literals
    }

    /// Whether `path` matches a pattern of only ASCII literal segments, comparing bytes in
    /// place (no segment strings, no decoding); nil when the path needs the general match:
    /// a `%` or a non-ASCII byte before its `?`/`#` (decoding or Unicode equivalence could
    /// make other bytes equal). Cuts segments exactly as ``rawSegments(_:)``.
    static func matchesLiterals(_ path: String, _ literals: [[UInt8]]) -> Bool? {
        var path = path
        return path.withUTF8 { bytes -> Bool? in
            var end = 0
            while end < bytes.count, bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") {
                if bytes[end] == UInt8(ascii: "%") || bytes[end] >= 0x80 { return nil }
                end += 1
            }
            // rawSegments drops an empty first part (a leading "/"), then an empty last part.
            let start = end > 0 && bytes[0] == UInt8(ascii: "/") ? 1 : 0
            guard start < end else { return literals.isEmpty }
            let stop = bytes[end - 1] == UInt8(ascii: "/") ? end - 1 : end
            var index = 0
            var segmentStart = start
            var position = start
            while true {
                if position == stop || bytes[position] == UInt8(ascii: "/") {
                    guard index < literals.count,
                          literals[index].elementsEqual(UnsafeBufferPointer(rebasing: bytes[segmentStart..<position]))
                    else { return false }
                    index += 1
                    if position == stop { break }
                    segmentStart = position + 1
                }
                position += 1
            }
            return index == literals.count
        }
    }

    /// The segments of `path` before any `?` or `#`, as ``split(_:)`` cuts them, split on bytes.
    static func rawSegments(_ path: String) -> [Substring] {
        let bytes = path.utf8
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        var parts: [Substring] = []
        var start = bytes.startIndex
        var index = start
        while index < end {
            if bytes[index] == UInt8(ascii: "/") {
                parts.append(Substring(bytes[start..<index]))
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        parts.append(Substring(bytes[start..<end]))
        if parts.first?.isEmpty == true { parts.removeFirst() }
        if parts.last?.isEmpty == true { parts.removeLast() }
        return parts
    }

    /// Segments between `/`, without a leading or trailing empty one.
    static func split(_ path: String) -> [String] {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.first == "" { parts.removeFirst() }
        if parts.last == "" { parts.removeLast() }
        return parts
    }

    /// Why the `:name` parameters of `pattern` (a path pattern or a route's, up to any `?`)
    /// cannot be filled, or nil: a `:` must be followed by a name of `[A-Za-z0-9_]` (`\:` is a
    /// literal colon), and each name may appear once. Pure; any thread.
    package static func parameterProblem(_ pattern: String) -> String? {
        let chars = Array(pattern.prefix { $0 != "?" && $0 != "#" })
        var seen = Set<String>()
        var i = 0
        while i < chars.count {
            if chars[i] == "\\", i + 1 < chars.count, chars[i + 1] == ":" {
                i += 2
                continue
            }
            guard chars[i] == ":" else { i += 1; continue }
            var name = ""
            i += 1
            while i < chars.count, isNameCharacter(chars[i]) { name.append(chars[i]); i += 1 }
            if name.isEmpty {
                return "a parameter name is empty after \":\" in \"\(pattern)\" (names are letters, digits and _; write \\: for a literal colon)"
            }
            if !seen.insert(name).inserted { return "parameter \":\(name)\" appears twice in \"\(pattern)\"" }
        }
        return nil
    }

    private static func isNameCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "_")
    }

    private static func parseSegment(_ text: String, in pattern: String) throws(ConfigError) -> Segment {
        var pieces: Segment = []
        var literal = ""
        let chars = Array(text)
        var i = 0
        func flush() {
            if !literal.isEmpty { pieces.append(.literal(PercentDecoding.decode(literal))); literal = "" }
        }
        while i < chars.count {
            if chars[i] == "\\", i + 1 < chars.count, chars[i + 1] == ":" {
                literal.append(":")
                i += 2
            } else if chars[i] == ":", i + 1 < chars.count, isNameCharacter(chars[i + 1]) {
                flush()
                var name = ""
                i += 1
                while i < chars.count, isNameCharacter(chars[i]) { name.append(chars[i]); i += 1 }
                if case .parameter? = pieces.last {
                    throw ConfigError(path: "", message: "parameters need literal text between them, in \"\(pattern)\"")
                }
                pieces.append(.parameter(name))
            } else {
                literal.append(chars[i])
                i += 1
            }
        }
        flush()
        return pieces
    }

    /// SOCKit's rule inside one segment: a parameter runs to the first occurrence of the
    /// next literal; the last parameter takes the rest; parameters are never empty.
    private static func match(_ segment: Segment, _ part: Substring, into parameters: inout [String: String]) -> Bool {
        if segment.isEmpty { return part.isEmpty }
        var rest = part
        var index = 0
        while index < segment.count {
            switch segment[index] {
            case .literal(let text):
                guard rest.hasPrefix(text) else { return false }
                rest = rest.dropFirst(text.count)
                index += 1
            case .parameter(let name):
                if index + 1 == segment.count {
                    guard !rest.isEmpty else { return false }
                    parameters[name] = String(rest)
                    rest = rest.dropFirst(rest.count)
                    index += 1
                } else {
                    guard case .literal(let next) = segment[index + 1], let range = rest.dropFirst().firstRange(of: next) else {
                        return false
                    }
                    parameters[name] = String(rest[rest.startIndex..<range.lowerBound])
                    rest = rest[range.lowerBound...]
                    index += 1
                }
            }
        }
        return rest.isEmpty
    }
}
