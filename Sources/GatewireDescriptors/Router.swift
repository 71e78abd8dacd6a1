/// Builds request paths: fills a pattern's `:name` parameters from call parameters and
/// sends the rest as the query string, percent-encoded per RFC 3986 section 2. `\\:` in a
/// pattern is a literal colon (as ``PathPattern`` reads it).
package enum Router {
    /// What a `:name` with no value in the parameters means.
    package enum UnfilledName: Sendable {
        /// An error naming the parameter: a route's path pattern promises every `:name`.
        case missing
        /// Data, sent as written: a path given to a call is a path (an ISO timestamp, a URN),
        /// filled only where the call's parameters name a `:name` of it.
        case literal
    }

    /// Fills `:name` segments of `pattern` with `parameters` (each value percent-encoded as
    /// one path segment) and appends the parameters not used in the path as a query string
    /// in key order.
    /// - Throws: a message naming the missing parameter (never `(null)` or an empty segment),
    ///   or the parameter whose value is a dot segment (`.`, `..`, `%2e%2e`, `../x`: see
    ///   `DotSegments`), which would make the path name another resource.
    package static func build(_ pattern: String, parameters: [String: String]) throws(RouterError) -> String {
        try build(pattern, parameters: parameters, objectAttributes: [:], objectParameters: [])
    }

    /// ``build(_:parameters:objectAttributes:objectParameters:)`` with query parameters of
    /// several values: each of `lists` goes to the query only (a `:name` segment takes one
    /// value), written in `style`, in key order after the single values. An empty list sends nothing;
    /// a name in both `parameters` and `lists` sends both.
    package static func build(_ pattern: String, parameters: [String: String], lists: [String: [String]],
                             style: ArrayParameterStyle, objectAttributes: [String: String] = [:],
                             objectParameters: [(String, String)] = [],
                             unfilled: UnfilledName = .missing) throws(RouterError) -> String {
        let path = try fill(pattern, parameters: parameters, objectAttributes: objectAttributes,
                            objectParameters: objectParameters, unfilled: unfilled, listed: Set(lists.keys))
        let query = lists.keys.sorted().flatMap { style.pairs($0, lists[$0]!) { percentEncoded($0) } }
        guard !query.isEmpty else { return path }
        return path + (path.contains("?") ? "&" : "?") + query.joined(separator: "&")
    }

    /// Fills `:name` segments for an object route (RestKit's object routing): each name is
    /// looked up in the call's `parameters`, then in the object's own `objectAttributes`
    /// (its top-level scalar members), then in `objectParameters` (the object's mapped
    /// attributes, for GET/DELETE). The query is the call's unused parameters (key order),
    /// then the unused `objectParameters` (their order); object attributes never go to the query.
    /// With `unfilled` `.literal`, a `:name` that none of them names stays in the path as written.
    /// - Throws: a message naming the missing parameter and where it was looked for (only with
    ///   `unfilled` `.missing`), or the parameter whose value is a dot segment.
    package static func build(_ pattern: String, parameters: [String: String], objectAttributes: [String: String],
                             objectParameters: [(String, String)],
                             unfilled: UnfilledName = .missing) throws(RouterError) -> String {
        try fill(pattern, parameters: parameters, objectAttributes: objectAttributes, objectParameters: objectParameters,
                 unfilled: unfilled, listed: [])
    }

    /// `build(_:parameters:objectAttributes:objectParameters:unfilled:)`; a `:name` of `listed`
    /// (a query parameter of several values, which cannot fill one segment) is missing even with
    /// `unfilled` `.literal`: the caller named it.
    private static func fill(_ pattern: String, parameters: [String: String], objectAttributes: [String: String],
                             objectParameters: [(String, String)], unfilled: UnfilledName,
                             listed: Set<String>) throws(RouterError) -> String {
        // Nothing to fill and no query: the pattern is the path (the loop below would copy it).
        if parameters.isEmpty, objectParameters.isEmpty, !hasParameters(pattern) { return pattern }
        var used = Set<String>()
        var path = ""
        var index = pattern.startIndex
        let hasObject = !objectAttributes.isEmpty || !objectParameters.isEmpty
        while index < pattern.endIndex {
            let character = pattern[index]
            let nextIndex = pattern.index(after: index)
            if character == "\\", nextIndex < pattern.endIndex, pattern[nextIndex] == ":" {
                path.append(":")  // the escaped colon of a pattern is data
                index = pattern.index(after: nextIndex)
                continue
            }
            guard character == ":", nextIndex < pattern.endIndex, isNameCharacter(pattern[nextIndex]) else {
                path.append(character)
                index = nextIndex
                continue
            }
            var end = nextIndex
            while end < pattern.endIndex, isNameCharacter(pattern[end]) { end = pattern.index(after: end) }
            let name = String(pattern[nextIndex..<end])
            let value = [parameters[name], objectAttributes[name], objectParameters.first { $0.0 == name }?.1]
                .compactMap { $0 }.first { !$0.isEmpty }
            guard let value else {
                if unfilled == .literal, !listed.contains(name) {
                    path += pattern[index..<end]
                    index = end
                    continue
                }
                let places = hasObject ? " (not in the call's parameters nor the object's attributes)" : ""
                throw RouterError(message: "missing parameter \"\(name)\" for path pattern \(pattern)\(places): a "
                    + "pattern's :name is filled from the parameters; write \\: (or %3A) for a colon that is data")
            }
            if DotSegments.inValue(value) {
                throw RouterError(message: "path parameter \"\(name)\" is \"\(value)\", a dot segment (. or .., in any "
                    + "percent-encoding), which would change the resource \(pattern) names (RFC 3986 section 5.2.4)")
            }
            path += percentEncoded(value)
            used.insert(name)
            index = end
        }
        var query = parameters.keys.filter { !used.contains($0) }.sorted()
            .map { "\(percentEncoded($0))=\(percentEncoded(parameters[$0]!))" }
        query += objectParameters.filter { !used.contains($0.0) && parameters[$0.0] == nil }
            .map { "\(percentEncoded($0.0))=\(percentEncoded($0.1))" }
        guard !query.isEmpty else { return path }
        return path + (path.contains("?") ? "&" : "?") + query.joined(separator: "&")
    }

    /// `value` with every byte outside RFC 3986's unreserved set (`A-Z a-z 0-9 - . _ ~`)
    /// written as `%XX` of its UTF-8 encoding.
    ///
    /// - Parameters:
    ///   - value: the text to encode.
    ///   - spaceAsPlus: write a space as `+` (the WHATWG form serializer) instead of `%20`.
    ///   - keeping: other ASCII bytes to leave literal (e.g. `[` `]` in form keys).
    package static func percentEncoded(_ value: String, spaceAsPlus: Bool = false, keeping: Set<UInt8> = [])
        -> String
    {
        let hex = Array("0123456789ABCDEF".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.append(byte)
            case UInt8(ascii: " ") where spaceAsPlus:
                result.append(UInt8(ascii: "+"))
            case _ where keeping.contains(byte):
                result.append(byte)
            default:
                result += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// `path` with every non-ASCII byte written as `%XX` of its UTF-8 encoding (uppercase,
    /// RFC 3986 section 2.1) and every other byte kept. libcurl would encode those bytes
    /// itself (in lowercase), and the path on the wire would no longer be the path reported.
    package static func encodingNonASCII(_ path: String) -> String {
        guard path.utf8.contains(where: { $0 >= 0x80 }) else { return path }
        let hex = Array("0123456789ABCDEF".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(path.utf8.count + 16)
        for byte in path.utf8 {
            if byte < 0x80 { result.append(byte) } else { result += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]] }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Whether `pattern` may have a `:name` segment (it has a colon; `build` decides which
    /// colons start a name). Without one, `build` with no parameters returns the pattern.
    package static func hasParameters(_ pattern: String) -> Bool {
        pattern.utf8.contains(UInt8(ascii: ":"))
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character == "_" || (character.isASCII && (character.isLetter || character.isNumber))
    }
}

/// A path that could not be built from its pattern and parameters.
package struct RouterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is missing, naming the parameter and the pattern.
    package let message: String
    package var description: String { message }
}
