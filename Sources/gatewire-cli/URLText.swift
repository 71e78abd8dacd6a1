/// An absolute URL split as text, where RFC 3986 splits it: the scheme (section 3.1: a letter,
/// then letters, digits, `+`, `-`, `.`), `://`, the authority up to the first `/`, `?` or `#`
/// (section 3.2), then the rest. Only the split: the core (libcurl's parser) judges the URL.
struct URLText {
    /// The scheme as written, e.g. `http`.
    let scheme: Substring
    /// The authority, userinfo and port included, e.g. `user@127.0.0.1:8080`.
    let authority: Substring
    /// What follows the authority, e.g. `/get?q=1#top`, or "".
    let rest: Substring

    /// The parts of `url`, or nil when it does not start with `scheme://` (a path).
    init?(_ url: String) {
        guard let separator = url.firstRange(of: "://"), let first = url.first, first.isASCII, first.isLetter,
              url[..<separator.lowerBound].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        let afterScheme = url[separator.upperBound...]
        let end = afterScheme.firstIndex { "/?#".contains($0) } ?? afterScheme.endIndex
        scheme = url[..<separator.lowerBound]
        authority = afterScheme[..<end]
        rest = afterScheme[end...]
    }

    /// `scheme://authority`: the origin a base URL made of this URL has.
    var origin: String { "\(scheme)://\(authority)" }

    /// The request target in origin form (RFC 9112 section 3.2.1): the path and query, `/`
    /// when the path is empty, without the fragment (which is never sent).
    var target: String {
        let sent = rest.prefix { $0 != "#" }
        return sent.hasPrefix("/") ? String(sent) : "/" + sent
    }
}
