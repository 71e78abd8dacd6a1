import GatewireBase
import Glibc

/// Streams one call's success body to a file: written to a temporary file in the
/// destination's folder and renamed onto the destination when the call succeeds
/// (``commit()``), removed when it fails (``discard()``). The destination therefore never
/// holds a partial body, and whatever it held before stays until the rename replaces it in
/// one step (POSIX `rename`, atomic within a file system).
///
/// Not `fsync`'d, as curl, wget and Alamofire do not: the rename makes the body visible
/// whole, and the page cache writes it back as for any file. An `fsync` made the caller wait
/// for the disk: the 1 GiB download of `make bench` took 1.4 times as long. A caller that
/// needs the body on disk across a power loss syncs the file itself.
///
/// Mode: a new destination gets `0666` less the process's umask, as a file `curl -o`
/// creates. An existing one keeps its permission bits (`0777`; never set-user-ID, set-group-ID
/// or sticky) and, where the process may set them (`fchown`: root, or a group it belongs to),
/// its owner and group, as `curl -o` keeps them by writing into the file in place: the
/// temporary file takes them before the body's first byte and again before the rename.
///
/// Resuming: across attempts of one call the temporary file is kept. An attempt after a
/// failed one that had written part of a `200` body asks for the rest (``requestFields(callerRange:)``:
/// `Range: bytes=N-` with `If-Range`, RFC 9110 sections 14.2 and 13.1.5) when that
/// response allows it, as Alamofire's resume data and `curl -C -` do: it had a strong
/// validator (a strong `ETag`, else a `Last-Modified` at least one second before its `Date`,
/// section 8.8.2.2) and no content coding (a range counts the encoded bytes, the file holds
/// decoded ones). A `200` answer (the representation changed, or the server ignores ranges)
/// starts the file again from byte 0. A `206` is appended only when it continues the file
/// exactly (``begin(status:field:)``): the same validator, no content coding, a
/// `Content-Range` from byte N to the end of the complete length the `200` declared, and a
/// body of exactly that many bytes. Any other `206` (a changed representation, a range that
/// lies about its end or length, more or fewer bytes than it declares, one that answers a
/// request without `Range`) drops the partial file and fails the attempt with kind
/// `protocolViolation`: the retry policy may then send the request again, which starts the
/// file from byte 0 (curl's `-C -` fails the same case with "cannot resume"; a retry here
/// is the restart Alamofire's resume data falls back to). The file is never spliced from
/// two representations. A caller's own `Range` turns resuming off: its `206` is the body.
///
/// Only `2xx` bodies reach the file; others are kept in memory for the call to map.
/// Loop thread only (``ResponseBodyWriter``).
package final class FileBodyWriter: ResponseBodyWriter {
    /// The path the body ends up at.
    package let destination: String
    package let maxBytes: Int?
    package var mayPause: Bool { false }
    private let resumes: Bool
    private let temporaryPath: String
    private var descriptor: Int32 = -1
    /// Bytes in the temporary file that belong to the body being received.
    private var written = 0
    /// What a resumed attempt must match: the `If-Range` value of the `200` whose body the
    /// file holds, which of its fields that is, and the `200`'s `Content-Length` (the
    /// representation's length); nil when the file cannot be resumed.
    private var resumable: (validator: String, field: String, length: Int?)?
    /// The offset the current attempt asked to resume from (nil: it asked for the whole body).
    private var requestedOffset: Int?
    /// Whether the current attempt's request carries a `Range` of the caller's.
    private var callerRange = false
    /// Where the `206` being appended ends (its `last-pos + 1`), nil for any other body.
    private var rangeEnd: Int?

    /// A writer for `destination`. `resumes`: whether a retry asks for the rest of a partial
    /// body (default true). `maxBytes`: the largest body accepted (nil: no limit).
    package init(destination: String, resumes: Bool = true, maxBytes: Int? = nil) {
        self.destination = destination
        self.resumes = resumes
        self.maxBytes = maxBytes
        let slash = destination.lastIndex(of: "/")
        let folder = slash.map { String(destination[...$0]) } ?? ""
        let name = slash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        temporaryPath = "\(folder).\(name).\(getpid())-\(UInt32.random(in: 0...UInt32.max)).part"
    }

    deinit { discard() }

    /// Creates the temporary file, before the call sends anything, with the mode the
    /// destination will have (see the type's notes).
    /// - Throws: ``TransportError`` of kind `invalidArgument` naming the path when the
    ///   destination's folder does not take a new file.
    package func open() throws(TransportError) {
        guard descriptor < 0 else { return }
        // 0666 less the umask (open applies it): a new file's mode, as curl's fopen gives it.
        descriptor = Glibc.open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw Self.failure("cannot create \(temporaryPath)") }
        adoptDestinationMode()
    }

    /// The header fields the next attempt sends: `Range` and `If-Range` to resume a partial
    /// body, else none (the file then starts again at byte 0 when a body arrives).
    /// `callerRange`: whether the request already has a `Range` field (the caller's or a
    /// plugin's): then nothing is resumed and its `206` is taken as the body.
    package func requestFields(callerRange: Bool) -> [(name: String, value: String)] {
        self.callerRange = callerRange
        // A file already as long as the representation would get a 416: it starts again.
        guard resumes, !callerRange, written > 0, let resumable, written < resumable.length ?? .max else {
            requestedOffset = nil
            return []
        }
        requestedOffset = written
        return [("Range", "bytes=\(written)-"), ("If-Range", resumable.validator)]
    }

    package func begin(status: Int, field: (String) -> String?) throws(TransportError) -> Bool {
        guard (200...299).contains(status) else { return false }
        rangeEnd = nil
        if status == 206, !callerRange {
            do throws(TransportError) {
                rangeEnd = try continuation(field)
            } catch {
                drop()
                throw error
            }
        } else {
            try truncate()
            resumable = status == 200 ? Self.resumable(field) : nil
        }
        return true
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) -> BodyWrite {
        if let rangeEnd, bytes.count > rangeEnd - written {
            drop()
            throw Self.violation("the 206 sent more bytes than its Content-Range declares (up to byte \(rangeEnd - 1))")
        }
        guard FileWriting.writeAll(bytes, to: descriptor) else { throw Self.failure("cannot write to \(temporaryPath)") }
        written += bytes.count
        return .taken
    }

    /// A `206` must have filled its range: the file then holds the whole representation.
    package func end() throws(TransportError) {
        guard let rangeEnd, written != rangeEnd else { return }
        let got = written
        drop()
        throw Self.violation("the 206 ended at byte \(got), before the end of its Content-Range (byte \(rangeEnd - 1))")
    }

    /// Puts the body in place: closes the file and renames it onto ``destination``.
    /// - Throws: ``TransportError`` of kind `invalidArgument` naming the path; the temporary
    ///   file is removed then.
    package func commit() throws(TransportError) {
        try open()  // a no-op unless the file was discarded
        defer { discard() }
        adoptDestinationMode()  // the destination may have been made or changed meanwhile
        close(descriptor)
        descriptor = -1
        guard rename(temporaryPath, destination) == 0 else {
            let failure = Self.failure("cannot rename the body onto \(destination)")
            unlink(temporaryPath)
            throw failure
        }
    }

    /// Closes and removes the temporary file (a failed call, or after ``commit()``). Idempotent.
    package func discard() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporaryPath)
        written = 0
        resumable = nil
        rangeEnd = nil
    }

    /// Checks that a `206` continues the partial file (see the type's notes).
    /// - Returns: the offset just past the range's last byte.
    /// - Throws: ``TransportError`` of kind `protocolViolation` saying what does not match.
    private func continuation(_ field: (String) -> String?) throws(TransportError) -> Int {
        guard let offset = requestedOffset, let resumable else {
            throw Self.violation("a 206 answered a request without Range")
        }
        let value = field(resumable.field)
        guard let value, Self.sameValidator(value, resumable.validator, field: resumable.field) else {
            let got = value.map { "has \(resumable.field) \($0)" } ?? "has no \(resumable.field)"
            throw Self.violation("the 206 \(got), the partial file \(resumable.field) \(resumable.validator): another representation")
        }
        if let coding = Self.contentCoding(field) {
            throw Self.violation("the 206 has Content-Encoding \"\(coding)\"; the partial file has none")
        }
        let text = field("Content-Range")
        guard let text, let range = ContentRange(text) else {
            let got = text.map { "has Content-Range \"\($0)\"" } ?? "has no Content-Range"
            throw Self.violation("the 206 \(got), not \"bytes first-last/length\" with first <= last < length")
        }
        let length = resumable.length ?? range.completeLength
        guard range.first == offset, range.completeLength == nil || range.completeLength == length,
              length.map({ range.last == $0 - 1 }) ?? true else {
            let expected = "bytes \(offset)-\(length.map { String($0 - 1) } ?? "LAST")/\(length.map(String.init) ?? "*")"
            throw Self.violation("asked for the rest from byte \(offset); the 206 has Content-Range \"\(text)\", not \"\(expected)\"")
        }
        if let declared = field("Content-Length"), declared != String(range.count) {
            throw Self.violation("the 206's Content-Length \(declared) is not the \(range.count) bytes of its Content-Range \"\(text)\"")
        }
        return range.last + 1
    }

    /// Drops the partial file: the body starts again from byte 0, and nothing is resumed.
    private func drop() {
        _ = ftruncate(descriptor, 0)  // a failure shows at the next body's truncate()
        written = 0
        resumable = nil
        rangeEnd = nil
    }

    /// Starts the file again at byte 0.
    private func truncate() throws(TransportError) {
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw Self.failure("cannot truncate \(temporaryPath)")
        }
        written = 0
    }

    /// When the destination is a regular file, gives the temporary file its owner and group
    /// (where `fchown` lets this process; else its group alone, where it may) and then its
    /// permission bits, so the rename keeps them.
    private func adoptDestinationMode() {
        var info = stat()
        guard descriptor >= 0, stat(destination, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return }
        if fchown(descriptor, info.st_uid, info.st_gid) != 0 { _ = fchown(descriptor, uid_t.max, info.st_gid) }
        _ = fchmod(descriptor, info.st_mode & 0o777)
    }

    /// Whether a `200`'s body can be resumed, and with what: a strong `ETag`, else a
    /// `Last-Modified` that is a strong validator (RFC 9110 section 8.8.2.2: the response's
    /// `Date` is at least one second later), and no content coding; with the `Content-Length`.
    private static func resumable(_ field: (String) -> String?) -> (validator: String, field: String, length: Int?)? {
        guard contentCoding(field) == nil else { return nil }
        let length = field("Content-Length").flatMap { $0.utf8.allSatisfy { (0x30...0x39).contains($0) } ? Int($0) : nil }
        if let etag = field("ETag"), isStrongEntityTag(etag) { return (etag, "ETag", length) }
        guard let modified = field("Last-Modified"), let date = field("Date"),
              let modifiedAt = HTTPDate.parse(modified), let dateAt = HTTPDate.parse(date), dateAt - modifiedAt >= 1 else { return nil }
        return (modified, "Last-Modified", length)
    }

    /// A strong `entity-tag` (RFC 9110 section 8.8.3): `DQUOTE *etagc DQUOTE`, no `W/`.
    private static func isStrongEntityTag(_ tag: String) -> Bool {
        let bytes = Array(tag.utf8)
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else { return false }
        return bytes.dropFirst().dropLast().allSatisfy { $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 }
    }

    /// Whether a `206`'s validator is the partial file's: the same strong `ETag` (strong
    /// comparison, RFC 9110 section 8.8.3.2: the same characters), or the same
    /// `Last-Modified` instant.
    private static func sameValidator(_ value: String, _ validator: String, field: String) -> Bool {
        if field == "ETag" { return value == validator }
        guard let at = HTTPDate.parse(value), let expected = HTTPDate.parse(validator) else { return false }
        return at == expected
    }

    /// The response's content coding (RFC 9110 section 8.4), or nil for none (`identity`).
    private static func contentCoding(_ field: (String) -> String?) -> String? {
        guard let value = field("Content-Encoding") else { return nil }
        let codings = value.split(separator: ",").map { $0.trimmingSpaces.lowercased() }.filter { !$0.isEmpty }
        return codings.allSatisfy { $0 == "identity" } ? nil : value
    }

    private static func violation(_ message: String) -> TransportError {
        TransportError(kind: .protocolViolation, curlCode: 0, message: message + "; the partial file was dropped")
    }

    private static func failure(_ what: String) -> TransportError {
        TransportError(kind: .invalidArgument, curlCode: 0, message: "\(what): \(String(cString: strerror(errno)))")
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (RFC 9110's OWS).
    fileprivate var trimmingSpaces: Substring {
        let isSpace = { (c: Character) in c == " " || c == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[start...end]
    }
}
