/// A call's path given as an absolute URL (`http://host:8080/get?q=1`), as requests and httpx
/// users pass one, split where RFC 3986 splits it: the scheme (section 3.1: a letter, then
/// letters, digits, `+`, `-`, `.`), `://`, the authority up to the first `/`, `?` or `#`
/// (section 3.2), then the rest. Only the split is done here; libcurl's parser reads the origin
/// (``URLOrigin``). The CLI splits its URLs with it too.
package struct AbsoluteURL {
    /// The URL as given.
    package let text: String
    /// The scheme as written, e.g. `http`.
    package let scheme: Substring
    /// The authority, userinfo and port included, e.g. `user@127.0.0.1:8080`.
    package let authority: Substring
    /// `scheme://authority` as given, e.g. `http://127.0.0.1:8080`.
    package var origin: String { "\(scheme)://\(authority)" }
    /// What follows the authority, always starting with "/" (`/` when the URL has no path):
    /// `/get?q=1`.
    package let path: String

    /// The request target in origin form (RFC 9112 section 3.2.1): ``path`` without the
    /// fragment, which is never sent.
    package var target: String { String(path.prefix { $0 != "#" }) }

    /// The parts of `text`, or nil when it does not start with `scheme://`, i.e. when it is a path.
    package init?(_ text: String) {
        guard let separator = text.firstRange(of: "://"), let first = text.first, first.isASCII, first.isLetter,
              text[..<separator.lowerBound].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        let afterScheme = text[separator.upperBound...]
        let end = afterScheme.firstIndex { "/?#".contains($0) } ?? afterScheme.endIndex
        self.text = text
        scheme = text[..<separator.lowerBound]
        authority = afterScheme[..<end]
        let rest = afterScheme[end...]
        path = rest.hasPrefix("/") ? String(rest) : "/" + rest
    }
}
