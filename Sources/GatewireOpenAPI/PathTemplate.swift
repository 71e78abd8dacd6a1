import GatewireDescriptors

/// An OpenAPI path template (`/pets/{petId}`, OpenAPI 3.0 section 4.7.8.2) as a Gatewire path
/// pattern (`/pets/:petId`): a `{name}` becomes `:name`, a literal `:` becomes `\:`; a name with
/// characters a pattern's names cannot hold (only `[A-Za-z0-9_]`) has them replaced by `_`.
enum PathTemplate {
    /// The pattern, and the parameter names it renamed (template name to pattern name); nil
    /// with the reason when no pattern can express the path (a `*` or `?`, a dot segment, two
    /// parameters with nothing between, a name used twice).
    static func pattern(_ template: String) -> (pattern: String, renamed: [(String, String)])? {
        var pattern = ""
        var renamed: [(String, String)] = []
        var rest = Substring(template)
        while let character = rest.first {
            rest = rest.dropFirst()
            switch character {
            case "{":
                guard let close = rest.firstIndex(of: "}") else { return nil }
                let name = String(rest[..<close])
                let safe = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") ? $0 : "_" })
                if safe != name { renamed.append((name, safe)) }
                pattern += ":" + safe
                rest = rest[rest.index(after: close)...]
            case ":": pattern += "\\:"
            default: pattern.append(character)
            }
        }
        if !pattern.hasPrefix("/") { pattern = "/" + pattern }
        guard (try? PathPattern(pattern)) != nil, DotSegments.inPath(pattern) == nil, !pattern.contains("*") else { return nil }
        return (pattern, renamed)
    }
}
