/// One link of an HTTP `Link` header field (RFC 8288 section 3).
package struct WebLink: Sendable, Equatable {
    /// The target URI reference as written between `<` and `>`.
    package var target: String
    /// The relation types of the first `rel` parameter, lower-cased (`rel="next last"` gives two).
    package var relations: [String]
    /// Every parameter in order, names lower-cased, values unquoted (`\"` unescaped);
    /// a parameter without a value has the value "".
    package var parameters: [(name: String, value: String)]

    package static func == (a: WebLink, b: WebLink) -> Bool {
        a.target == b.target && a.relations == b.relations
            && a.parameters.map(\.name) == b.parameters.map(\.name) && a.parameters.map(\.value) == b.parameters.map(\.value)
    }
}

/// A parser of `Link` field values (RFC 8288 section 3, with RFC 9110's `token`,
/// `quoted-string`, `OWS` and list rules):
///
///     Link       = #link-value
///     link-value = "<" URI-Reference ">" *( OWS ";" OWS link-param )
///     link-param = token BWS [ "=" BWS ( token / quoted-string ) ]
///
/// It is lenient the way section 3 asks: commas inside `<...>` and quoted strings do not
/// split links; empty list elements are skipped; a link-value that does not parse is
/// skipped up to the next top-level comma and the rest is still read; only the first `rel`
/// parameter of a link counts (section 3.3). Several `Link` fields are one list joined by
/// `", "` (RFC 9110 section 5.3).
package enum LinkHeader {
    /// Every link in `value`, in order.
    package static func parse(_ value: String) -> [WebLink] {
        var scanner = LinkScanner(Array(value.utf8))
        var links: [WebLink] = []
        while let link = scanner.nextLink() {
            if let link { links.append(link) }
        }
        return links
    }

    /// The target of the first link whose relations include `relation` (e.g. `"next"`).
    package static func target(_ relation: String, in value: String) -> String? {
        let wanted = relation.lowercased()
        return parse(value).first { $0.relations.contains(wanted) }?.target
    }
}

/// Reads a `Link` field value's bytes left to right, one list element at a time.
private struct LinkScanner {
    private let bytes: [UInt8]
    private var i = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private var atEnd: Bool { i >= bytes.count }  // past it too: skipToComma steps over a final backslash

    private func at(_ ascii: Unicode.Scalar) -> Bool { i < bytes.count && bytes[i] == UInt8(ascii: ascii) }

    /// The next list element: nil at the end, `.some(nil)` for an empty or invalid element
    /// (skipped up to the next top-level comma), else its link.
    mutating func nextLink() -> WebLink?? {
        skipSpaces()
        if at(",") { i += 1; return .some(nil) }
        guard !atEnd else { return nil }
        guard at("<"), let close = bytes[(i + 1)...].firstIndex(of: UInt8(ascii: ">")) else {
            skipToComma()
            return .some(nil)
        }
        var link = WebLink(target: String(decoding: bytes[(i + 1)..<close], as: UTF8.self), relations: [], parameters: [])
        i = close + 1
        var sawRel = false
        while true {
            skipSpaces()
            guard at(";") else { break }
            i += 1
            guard let (name, value) = parameter() else { skipToComma(); return .some(nil) }
            link.parameters.append((name, value))
            if name == "rel", !sawRel {  // only the first rel counts (RFC 8288 section 3.3)
                sawRel = true
                link.relations = value.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            }
        }
        skipSpaces()
        guard atEnd || at(",") else { skipToComma(); return .some(nil) }
        return .some(link)
    }

    /// `link-param = token BWS [ "=" BWS ( token / quoted-string ) ]`, after the ";": the
    /// name lower-cased and the value ("" when absent), or nil when it does not parse.
    private mutating func parameter() -> (String, String)? {
        skipSpaces()
        guard let name = token()?.lowercased() else { return nil }
        skipSpaces()
        guard at("=") else { return (name, "") }
        i += 1
        skipSpaces()
        if at("\"") {
            return quotedString().map { (name, $0) }
        }
        return token().map { (name, $0) }
    }

    /// A quoted-string, starting at its opening quote, with `\x` unescaped; nil if unclosed.
    private mutating func quotedString() -> String? {
        i += 1
        var text: [UInt8] = []
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\\"), i + 1 < bytes.count {
                text.append(bytes[i + 1])
                i += 2
            } else if bytes[i] == UInt8(ascii: "\"") {
                i += 1
                return String(decoding: text, as: UTF8.self)
            } else {
                text.append(bytes[i])
                i += 1
            }
        }
        return nil
    }

    private mutating func token() -> String? {
        let start = i
        while i < bytes.count, Self.isTokenCharacter(bytes[i]) { i += 1 }
        return i > start ? String(decoding: bytes[start..<i], as: UTF8.self) : nil
    }

    private mutating func skipSpaces() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
    }

    /// Skips to the next comma outside `<...>` and quoted strings (or the end).
    private mutating func skipToComma() {
        var inQuote = false
        var inAngle = false
        while i < bytes.count {
            let c = bytes[i]
            if inQuote {
                if c == UInt8(ascii: "\\") { i += 1 } else if c == UInt8(ascii: "\"") { inQuote = false }
            } else if inAngle {
                if c == UInt8(ascii: ">") { inAngle = false }
            } else if c == UInt8(ascii: "\"") {
                inQuote = true
            } else if c == UInt8(ascii: "<") {
                inAngle = true
            } else if c == UInt8(ascii: ",") {
                return
            }
            i += 1
        }
    }

    /// RFC 9110 `tchar`.
    private static func isTokenCharacter(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(c)
        }
    }
}
