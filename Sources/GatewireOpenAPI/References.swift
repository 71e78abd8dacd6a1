import GatewireJSON

/// A place in the description: a file (empty for the imported document itself, else its path
/// relative to the document's folder) and a JSON pointer into it.
struct Location: Hashable, Comparable {
    let file: String
    let pointer: String

    /// The location of the member `token` of this one.
    func appending(_ token: String) -> Location { Location(file: file, pointer: JSONPointerText.appending(token, to: pointer)) }
    /// The location of element `index` of this one.
    func appending(_ index: Int) -> Location { Location(file: file, pointer: pointer + "/\(index)") }

    static func < (a: Location, b: Location) -> Bool { (a.file, a.pointer) < (b.file, b.pointer) }
}

/// A node and where it is.
struct Located {
    let node: JSONNode
    let location: Location

    /// The member `key`, if this is an object that has it.
    subscript(key: String) -> Located? { node[key].map { Located(node: $0, location: location.appending(key)) } }

    /// The elements of an array, each with its location (empty for anything else).
    var elements: [Located] {
        node.elements.enumerated().map { Located(node: $0.element, location: location.appending($0.offset)) }
    }

    /// The members of an object sorted by key (bytes), each with its location, so that what the
    /// importer makes does not depend on the order the document lists them in.
    var sortedMembers: [(key: String, value: Located)] {
        node.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            .map { ($0.key, Located(node: $0.value, location: location.appending($0.key))) }
    }
}

/// The files of one description and its `$ref`s (JSON Reference, as OpenAPI 3.0 section 4.7.23
/// and 3.1 section 4.8.23 use it): `#/components/schemas/Pet` in the same file,
/// `schemas.yaml#/Pet` or `schemas.yaml` in another local file, relative to the folder of the
/// file that holds the reference. Remote (`http:`) references are refused.
final class References {
    /// How errors and report lines name the imported document.
    let documentName: String
    /// The folder other files are relative to, or nil when the document was given as text
    /// (then a reference to another file is an error).
    private let folder: String?
    /// The parsed files: the document under "", the others by their relative path.
    private var files: [String: JSONValue]

    /// The references of `document`, read from `folder` (nil: no other file may be named).
    init(document: JSONValue, name: String, folder: String?) {
        documentName = name
        self.folder = folder
        files = ["": document]
    }

    /// The root of the imported document.
    var root: Located { Located(node: files[""]!.node, location: Location(file: "", pointer: "")) }

    /// How errors name `file` ("" is the document).
    func name(of file: String) -> String { file.isEmpty ? documentName : file }

    /// An error at `location`.
    func error(_ location: Location, _ message: String) -> OpenAPIImportError {
        OpenAPIImportError(document: name(of: location.file), pointer: location.pointer, message: message)
    }

    /// `located` itself, or what its `$ref` names, followed until a node without `$ref`
    /// (members beside a `$ref` are ignored, as OpenAPI 3.0 says; in 3.1 a `summary` or
    /// `description` there only annotates).
    /// - Throws: ``OpenAPIImportError`` at the reference: not a string, remote, a file that
    ///   cannot be read, a pointer that names nothing (dangling), or references that lead back
    ///   to themselves.
    func follow(_ located: Located) throws(OpenAPIImportError) -> Located {
        var current = located
        var seen: Set<Location> = []
        while let reference = current["$ref"] {
            guard seen.insert(current.location).inserted else {
                throw error(located.location, "the $ref chain comes back to \(describe(current.location)) (a cycle of references)")
            }
            guard let text = reference.node.string else { throw error(reference.location, "$ref must be a string") }
            current = try resolve(text, at: reference.location)
        }
        return current
    }

    /// The location a `$ref` text names, from the file of `place`.
    func target(of text: String, at place: Location) throws(OpenAPIImportError) -> Location {
        let (filePart, fragment) = text.firstIndex(of: "#").map { (String(text[..<$0]), String(text[text.index(after: $0)...])) }
            ?? (text, "")
        if filePart.contains("://") || filePart.hasPrefix("//") {
            throw error(place, "the remote reference \"\(text)\" is not followed (only local files are)")
        }
        let file = filePart.isEmpty ? place.file : try relativeFile(filePart, from: place)
        return Location(file: file, pointer: Self.percentDecoded(fragment))
    }

    /// The node a `$ref` text names (without following a `$ref` found there).
    func resolve(_ text: String, at place: Location) throws(OpenAPIImportError) -> Located {
        let location = try target(of: text, at: place)
        let file = try tree(location.file, referencedAt: place)
        guard let tokens = JSONPointerText.tokens(of: location.pointer) else {
            throw error(place, "the $ref \"\(text)\" has a fragment that is not a JSON pointer (it must start with \"/\")")
        }
        var node = file.node
        for token in tokens {
            let next: JSONNode?
            if node.kind == .array, let index = Int(token), index >= 0, index < node.count {
                next = node.element(at: index)
            } else {
                next = node[token]
            }
            guard let next else {
                throw error(place, "the $ref \"\(text)\" names nothing: \(describe(location)) does not exist (a dangling reference)")
            }
            node = next
        }
        return Located(node: node, location: location)
    }

    /// `file#pointer`, as messages name a location.
    func describe(_ location: Location) -> String { "\(name(of: location.file))#\(location.pointer)" }

    /// The parsed file `file`, read on first use.
    private func tree(_ file: String, referencedAt place: Location) throws(OpenAPIImportError) -> JSONValue {
        if let tree = files[file] { return tree }
        guard let folder else {
            throw error(place, "the reference names the file \"\(file)\", but the document was given as text (no folder to read it from)")
        }
        let tree = try DocumentLoader.load(path: folder + "/" + file, name: file)
        files[file] = tree
        return tree
    }

    /// `path` (relative to the folder of `place`'s file) relative to the document's folder, with
    /// `.` and `..` segments resolved; refused when it leaves the document's folder or is absolute.
    private func relativeFile(_ path: String, from place: Location) throws(OpenAPIImportError) -> String {
        guard !path.hasPrefix("/") else {
            throw error(place, "the reference names the absolute path \"\(path)\" (only paths relative to the document are followed)")
        }
        var segments = place.file.split(separator: "/").map(String.init).dropLast()
        for segment in Self.percentDecoded(path).split(separator: "/") {
            switch segment {
            case ".": continue
            case "..":
                guard !segments.isEmpty else {
                    throw error(place, "the reference \"\(path)\" leaves the document's folder")
                }
                segments.removeLast()
            default: segments.append(String(segment))
            }
        }
        let joined = segments.joined(separator: "/")
        return joined
    }

    /// `text` with its `%XX` escapes decoded (a URI fragment or path, RFC 3986 section 2.1);
    /// a `%` without two hex digits stays as it is.
    static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        let source = Array(text.utf8)
        var index = 0
        while index < source.count {
            if source[index] == UInt8(ascii: "%"), index + 2 < source.count,
               let high = hexValue(source[index + 1]), let low = hexValue(source[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(source[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
