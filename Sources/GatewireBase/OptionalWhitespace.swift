extension String {
    /// The text without the optional whitespace around it (`OWS`, RFC 9110 section 5.6.3:
    /// spaces and horizontal tabs), as a field value is read; empty when nothing else is left.
    package var trimmingOWS: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return self[first...last]
    }
}
