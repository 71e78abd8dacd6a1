import Gatewire

/// `gatewire call`'s `--form k=v` and `--file field=@path[;type=TYPE][;filename=NAME]`
/// (curl's `-F` syntax for a file part): the parts of a multipart/form-data body.
enum MultipartArguments {
    /// `--form k=v`: a text field; the value is sent as it is (unlike curl's `-F`, a leading
    /// `@` or `<` is text, not a file).
    static func field(_ argument: String) -> MultipartPart {
        guard let equals = argument.firstIndex(of: "=") else { fail("--form: expected k=v, got \"\(argument)\"") }
        return .field(String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    /// `--file field=@path[;type=TYPE][;filename=NAME]`: the file at path, streamed from disk.
    /// The attributes after the path are split at `;` (a path cannot hold `;type=` or
    /// `;filename=`); the filename defaults to the path's last component, the type to
    /// libcurl's guess from its extension.
    static func file(_ argument: String) -> MultipartPart {
        guard let equals = argument.firstIndex(of: "="), argument[argument.index(after: equals)...].hasPrefix("@") else {
            fail("--file: expected field=@path[;type=TYPE][;filename=NAME], got \"\(argument)\"")
        }
        let name = String(argument[..<equals])
        var path = String(argument[argument.index(equals, offsetBy: 2)...])
        var attributes: [String: String] = [:]
        // The last attribute first: each is split off the end, whatever their order.
        while let separator = [path.lastRange(of: ";type="), path.lastRange(of: ";filename=")]
            .compactMap({ $0 }).max(by: { $0.lowerBound < $1.lowerBound }) {
            let key = String(path[path.index(after: separator.lowerBound)..<path.index(before: separator.upperBound)])
            attributes[key] = String(path[separator.upperBound...])
            path = String(path[..<separator.lowerBound])
        }
        if path.isEmpty { fail("--file: \"\(argument)\" has no path after the @") }
        return .file(name, path: path, filename: attributes["filename"], contentType: attributes["type"])
    }
}

private extension String {
    /// The range of the last occurrence of `text`, or nil.
    func lastRange(of text: String) -> Range<Index>? {
        var found: Range<Index>?
        var start = startIndex
        while let range = self[start...].firstRange(of: text) {
            found = range
            start = range.upperBound
        }
        return found
    }
}
