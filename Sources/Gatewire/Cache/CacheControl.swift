/// The directives of `Cache-Control` fields (RFC 9111 section 5.2): names lower-cased,
/// values unquoted; every field of the name is read (a list may be split over several).
struct CacheControl {
    private var directives: [String: String?] = [:]

    /// The directives of every `Cache-Control` field in `headers`.
    init(_ headers: HTTPHeaders) {
        for field in headers.values(for: "Cache-Control") { parse(field) }
    }

    /// Whether the directive `name` (lower-case) is present, with or without a value.
    func has(_ name: String) -> Bool { directives[name] != nil }

    /// The delta-seconds value of `name` (RFC 9111 section 1.2.2: digits; one too large is
    /// as good as infinity, 2^31), or nil when absent or not a number.
    func seconds(_ name: String) -> Double? {
        guard let value = directives[name] ?? nil, !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { return nil }
        return min(Double(value) ?? 2_147_483_648, 2_147_483_648)
    }

    /// Splits one field value at the commas outside quoted strings; `name[=value]` each.
    private mutating func parse(_ field: String) {
        var item = ""
        var quoted = false
        var escaped = false
        for character in field + "," {
            if quoted {
                if escaped { escaped = false } else if character == "\\" { escaped = true; continue } else if character == "\"" { quoted = false; continue }
                item.append(character)
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                add(item)
                item = ""
            } else {
                item.append(character)
            }
        }
    }

    private mutating func add(_ item: String) {
        let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = parts[0].trimmingSpaces.lowercased()
        guard !name.isEmpty else { return }
        let value = parts.count > 1 ? String(parts[1].trimmingSpaces) : nil
        if directives[name] == nil { directives[name] = .some(value) }  // the first occurrence wins
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (optional whitespace, RFC 9110 section 5.6.3).
    var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
