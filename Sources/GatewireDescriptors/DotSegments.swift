import GatewireBase

/// Finds dot segments (`.` and `..`, RFC 3986 section 3.3) in request paths and path
/// parameter values, in any percent-encoding.
///
/// A dot segment changes which resource a path names: RFC 3986 section 5.2.4
/// (`remove_dot_segments`) resolves `/api/v1/users/../sessions` to `/api/v1/sessions`, and
/// libcurl, proxies and servers apply it. Gatewire refuses such paths instead of resolving
/// them, so the path on the wire is the path the caller wrote and the results report
/// (resolving would silently call another route, and could leave the base URL's path).
///
/// "Any encoding": the text is percent-decoded until nothing changes (`%2e`, `%2E%2e`, `.%2e`,
/// `%252e` ...: some servers decode twice), then split at `/` and at `\` (nginx decodes `%2F`
/// before it resolves dot segments; some servers treat `\` as `/`), and a piece that is `.` or
/// `..` is a dot segment. `...`, `.hidden` and `a..b` are ordinary segments. Pure; any thread.
package enum DotSegments {
    /// Whether a path parameter's `value` would be (or contain) a dot segment once it is
    /// decoded, e.g. `..`, `.`, `%2e%2E`, `../admin`.
    package static func inValue(_ value: String) -> Bool {
        containsDotPiece(value.utf8)
    }

    /// The path part (before any `?` or `#`) of `path` if it has a dot segment, else nil.
    package static func inPath(_ path: String) -> Substring? {
        let end = path.utf8.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? path.utf8.endIndex
        let part = path[..<end]
        return containsDotPiece(part.utf8) ? part : nil
    }

    private static func containsDotPiece(_ text: some Collection<UInt8>) -> Bool {
        // A path without "." or "%" has no dot segment in any encoding: most paths stop here.
        guard text.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "%") }) else { return false }
        var bytes = Array(text)
        while let decoded = PercentDecoding.decodedOnce(bytes) { bytes = decoded }
        return bytes.split(omittingEmptySubsequences: false, whereSeparator: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") })
            .contains { $0.elementsEqual([UInt8(ascii: ".")]) || $0.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) }
    }
}
