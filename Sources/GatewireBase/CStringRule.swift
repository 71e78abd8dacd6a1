/// The one check of text that Gatewire hands to C as a NUL-terminated string: a path to
/// `open(2)` or to libcurl (a file part, a download destination, the cookie jar, the cache
/// directory, the CA file, a shared-object plugin), a name libcurl copies (a part's name), a
/// URL (`CURLOPT_URL`, `CURLOPT_PROXY`). A Swift `String` may hold U+0000, and C ends the
/// string at its first NUL byte: `"secret\0.png"` would open `secret`. Such text is refused
/// with a message that names the field, as Python's `open()` refuses it
/// (`ValueError: embedded null byte`), never silently shortened.
///
/// Header fields need no call to this: ``HTTPHeaders`` refuses every control character in a
/// value and anything but a token in a name, NUL included. Text that libcurl takes with a
/// length (a field part's value, a body) may hold NUL bytes.
package enum CStringRule {
    /// Why `text` cannot cross into C as a NUL-terminated string, or nil when it can: the
    /// 0-based byte offset (in its UTF-8) of its first NUL, e.g. `the path contains NUL at
    /// byte 6 (...)`. The message never repeats the text (it may be a secret). Pure; any thread.
    /// - Parameter what: what the text is, as the message names it: `"the path"`, `"the name"`.
    package static func problem(_ text: String, what: String = "the text") -> String? {
        guard let offset = text.utf8.firstIndex(of: 0).map({ text.utf8.distance(from: text.utf8.startIndex, to: $0) })
        else { return nil }
        return "\(what) contains NUL at byte \(offset) (C ends a string at its first NUL, so the rest would be lost)"
    }
}
