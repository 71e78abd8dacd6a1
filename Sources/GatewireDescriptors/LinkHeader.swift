/// One link of an HTTP `Link` header field (RFC 8288 section 3).
public struct WebLink: Sendable, Equatable {
    /// The target URI reference as written between `<` and `>`.
    public var target: String
    /// The relation types of the first `rel` parameter, lower-cased (`rel="next last"` gives two).
    public var relations: [String]
    /// Every parameter in order, names lower-cased, values unquoted (`\"` unescaped);
    /// a parameter without a value has the value "".
    public var parameters: [(name: String, value: String)]

    public static func == (a: WebLink, b: WebLink) -> Bool {
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
public enum LinkHeader {
    /// Every link in `value`, in order.
    public static func parse(_ value: String) -> [WebLink] {
        let b = Array(value.utf8)
        var i = 0
        var links: [WebLink] = []
        func skipSpaces() { while i < b.count, b[i] == 0x20 || b[i] == 0x09 { i += 1 } }
        func skipToComma() {
            var inQuote = false
            var inAngle = false
            while i < b.count {
                let c = b[i]
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
        func token() -> String? {
            let start = i
            while i < b.count, isTokenCharacter(b[i]) { i += 1 }
            return i > start ? String(decoding: b[start..<i], as: UTF8.self) : nil
        }
        while i < b.count {
            skipSpaces()
            if i < b.count, b[i] == UInt8(ascii: ",") { i += 1; continue }
            guard i < b.count else { break }
            guard b[i] == UInt8(ascii: "<"), let close = b[(i + 1)...].firstIndex(of: UInt8(ascii: ">")) else {
                skipToComma()
                continue
            }
            var link = WebLink(target: String(decoding: b[(i + 1)..<close], as: UTF8.self), relations: [], parameters: [])
            i = close + 1
            var valid = true
            var sawRel = false
            while valid {
                skipSpaces()
                guard i < b.count, b[i] == UInt8(ascii: ";") else { break }
                i += 1
                skipSpaces()
                guard let name = token()?.lowercased() else { valid = false; break }
                skipSpaces()
                var paramValue = ""
                if i < b.count, b[i] == UInt8(ascii: "=") {
                    i += 1
                    skipSpaces()
                    if i < b.count, b[i] == UInt8(ascii: "\"") {
                        i += 1
                        var bytes: [UInt8] = []
                        var closed = false
                        while i < b.count {
                            if b[i] == UInt8(ascii: "\\"), i + 1 < b.count {
                                bytes.append(b[i + 1])
                                i += 2
                            } else if b[i] == UInt8(ascii: "\"") {
                                i += 1
                                closed = true
                                break
                            } else {
                                bytes.append(b[i])
                                i += 1
                            }
                        }
                        guard closed else { valid = false; break }
                        paramValue = String(decoding: bytes, as: UTF8.self)
                    } else if let value = token() {
                        paramValue = value
                    } else {
                        valid = false
                        break
                    }
                }
                link.parameters.append((name, paramValue))
                if name == "rel", !sawRel {
                    sawRel = true
                    link.relations = paramValue.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                }
            }
            skipSpaces()
            if valid, i == b.count || b[i] == UInt8(ascii: ",") {
                links.append(link)
            } else {
                skipToComma()
            }
        }
        return links
    }

    /// The target of the first link whose relations include `relation` (e.g. `"next"`).
    public static func target(_ relation: String, in value: String) -> String? {
        let wanted = relation.lowercased()
        return parse(value).first { $0.relations.contains(wanted) }?.target
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
