import GatewireBase
import Glibc

/// One part of a `multipart/form-data` body (RFC 7578), as requests' `files=`/`data=`,
/// AFNetworking's `appendPartWithFileURL:name:fileName:mimeType:` and curl's `-F` describe it.
///
/// The body is built by libcurl's MIME API for every transfer, so a file part
/// streams from disk while it is sent (its bytes are never held in memory) and every attempt
/// and every redirect that keeps the body sends every part from its first byte.
public struct MultipartPart: Sendable, Equatable {
    /// What a part carries.
    public enum Content: Sendable, Equatable {
        /// A form field's text (UTF-8), sent without a filename or a content type.
        case text(String)
        /// Bytes held in memory (copied into the body of each transfer).
        case bytes([UInt8])
        /// A file read from disk while the part is sent: a path as `open(2)` takes it.
        case file(path: String)
    }

    /// The form field name (`Content-Disposition: form-data; name="..."`); libcurl escapes
    /// `"`, CR and LF in it (`%22`, `%0D`, `%0A`, as the HTML standard's form encoding).
    public var name: String
    /// The part's data.
    public var content: Content
    /// The `filename` parameter. nil: a file part sends its path's last component
    /// (libcurl's `curl_mime_filedata`), the other parts none.
    public var filename: String?
    /// The part's `Content-Type`. nil: libcurl's guess from the extension of the filename,
    /// else of a file part's path (gif, jpg, jpeg, png, svg, txt, htm, html, pdf, xml), else
    /// `application/octet-stream` for a file part; a field and a bytes part without a known
    /// extension have none.
    public var contentType: String?

    /// A part of `content` named `name`; see the properties for `filename` and `contentType`.
    public init(name: String, content: Content, filename: String? = nil, contentType: String? = nil) {
        self.name = name
        self.content = content
        self.filename = filename
        self.contentType = contentType
    }

    /// A form field `name` with the text `value`.
    public static func field(_ name: String, _ value: String) -> MultipartPart {
        MultipartPart(name: name, content: .text(value))
    }

    /// The file at `path` (streamed from disk while it is sent) as the field `name`;
    /// `filename` nil sends the path's last component.
    public static func file(_ name: String, path: String, filename: String? = nil,
                            contentType: String? = nil) -> MultipartPart {
        MultipartPart(name: name, content: .file(path: path), filename: filename, contentType: contentType)
    }

    /// `bytes` as the field `name`, with an optional filename and content type.
    public static func bytes(_ name: String, _ bytes: [UInt8], filename: String? = nil,
                             contentType: String? = nil) -> MultipartPart {
        MultipartPart(name: name, content: .bytes(bytes), filename: filename, contentType: contentType)
    }

    /// Why this part cannot be sent, or nil: a name or a file's path with a NUL byte (libcurl
    /// and `open(2)` take them as C strings, which would end there: ``CStringRule``), a file
    /// that cannot be opened for reading (with the system's reason) or is not a regular file
    /// (a directory, a FIFO, a device), or a content type or filename with a byte that would
    /// break the part's header (CR, LF, NUL: `HTTPHeaders/fieldProblem(name:value:)`).
    /// Checked before a call sends anything, and again by each transfer as it builds the body.
    package var problem: String? {
        if let problem = CStringRule.problem(name, what: "the name") {
            return "part \(HTTPHeaders.quoted(name)): \(problem)"
        }
        if case .file(let path) = content, let problem = CStringRule.problem(path, what: "the path") {
            return "file part \"\(name)\": \(problem)"
        }
        if let contentType, let problem = HTTPHeaders.fieldProblem(name: "Content-Type", value: contentType) {
            return "part \"\(name)\": \(problem)"
        }
        if let filename, filename.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
            return "part \"\(name)\": the filename has a CR, LF or NUL byte"
        }
        guard case .file(let path) = content else { return nil }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)  // a FIFO without a writer must not block
        guard descriptor >= 0 else { return Self.unreadable(name: name, path: path, errno: errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return Self.unreadable(name: name, path: path, errno: errno) }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return Self.unreadable(name: name, path: path, errno: EISDIR)
        default:
            // libcurl opens and reads the file on the event loop's thread: a FIFO would block
            // it until a writer came, a device could stream without end.
            return "file part \"\(name)\": \"\(path)\" is not a regular file"
        }
    }

    /// The message for a file part that cannot be read: it names the part and the file.
    static func unreadable(name: String, path: String, errno code: Int32) -> String {
        "file part \"\(name)\": cannot read \"\(path)\": \(String(cString: strerror(code)))"
    }
}
