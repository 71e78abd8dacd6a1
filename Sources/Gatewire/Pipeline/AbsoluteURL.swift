/// A call's path given as an absolute URL (`http://host:8080/get?q=1`), as requests and httpx
/// users pass one, split where RFC 3986 section 3.2 ends the authority (at the first `/`, `?`
/// or `#` after `//`). Only the split is done here; libcurl's parser reads the origin
/// (``URLOrigin``).
struct AbsoluteURL {
    /// The URL as given.
    let text: String
    /// `scheme://authority` as given, e.g. `http://127.0.0.1:8080`.
    let origin: String
    /// What follows the authority, always starting with "/" (`/` when the URL has no path):
    /// `/get?q=1`.
    let path: String

    /// The parts of `text`, or nil when it does not start with `scheme://` (a scheme is a letter
    /// then letters, digits, `+`, `-` or `.`: RFC 3986 section 3.1), i.e. when it is a path.
    init?(_ text: String) {
        let bytes = text.utf8
        guard let first = bytes.first, Self.isLetter(first) else { return nil }
        guard let colon = bytes.firstIndex(where: { !(Self.isLetter($0) || Self.isDigit($0) || "+-.".utf8.contains($0)) }),
              bytes[colon] == UInt8(ascii: ":"), text[colon...].hasPrefix("://")
        else { return nil }
        let authorityStart = text.utf8.index(colon, offsetBy: 3)
        let end = text[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? text.endIndex
        self.text = text
        origin = String(text[..<end])
        let rest = String(text[end...])
        path = rest.hasPrefix("/") ? rest : "/" + rest
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
