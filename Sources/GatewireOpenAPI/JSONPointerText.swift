/// JSON pointers (RFC 6901) as the importer writes and reads them: `/paths/~1pets~1{id}/get`.
enum JSONPointerText {
    /// `pointer` with `token` appended as one reference token (`~` as `~0`, `/` as `~1`,
    /// RFC 6901 section 3).
    static func appending(_ token: String, to pointer: String) -> String {
        guard token.contains("~") || token.contains("/") else { return pointer + "/" + token }
        var escaped = ""
        for character in token {
            switch character {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.append(character)
            }
        }
        return pointer + "/" + escaped
    }

    /// The reference tokens of `pointer` (`""` is the whole document: no token), unescaped
    /// (RFC 6901 section 4: `~1` before `~0`), or nil when it does not start with `/`.
    static func tokens(of pointer: String) -> [String]? {
        if pointer.isEmpty { return [] }
        guard pointer.hasPrefix("/") else { return nil }
        return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            String($0).replacingAll("~1", with: "/").replacingAll("~0", with: "~")
        }
    }
}

extension String {
    /// This text with every `target` replaced by `replacement`, left to right (no Foundation).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty, contains(target) else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
