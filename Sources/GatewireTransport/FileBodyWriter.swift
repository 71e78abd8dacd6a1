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
/// Across attempts of one call the temporary file is kept: an attempt after a failed one
/// that had written part of a `2xx` body asks for the rest (``requestFields()``: `Range` with
/// `If-Range`, RFC 9110 sections 14.2 and 13.1.5) when that response gave a validator (a
/// strong `ETag`, else `Last-Modified`), as Alamofire's resume data and `curl -C -` do.
/// A `206` whose `Content-Range` starts where the file ends is appended; a `200` (the
/// representation changed, or the server ignores ranges) starts the file again from byte 0,
/// and so does any attempt without a validator. Only `2xx` bodies reach the file; others
/// are kept in memory for the call to map.
///
/// Loop thread only (``ResponseBodyWriter``).
package final class FileBodyWriter: ResponseBodyWriter {
    /// The path the body ends up at.
    package let destination: String
    package let maxBytes: Int?
    private let resumes: Bool
    private let temporaryPath: String
    private var descriptor: Int32 = -1
    /// Bytes in the temporary file that belong to the body being received.
    private var written = 0
    /// The validator of the response whose body the file holds, for `If-Range`.
    private var validator: String?
    /// The offset the current attempt asked to resume from (nil: it asked for the whole body).
    private var requestedOffset: Int?

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

    /// Creates the temporary file, before the call sends anything.
    /// - Throws: ``TransportError`` of kind `invalidArgument` naming the path when the
    ///   destination's folder does not take a new file.
    package func open() throws(TransportError) {
        guard descriptor < 0 else { return }
        descriptor = Glibc.open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure("cannot create \(temporaryPath)") }
    }

    /// The header fields the next attempt sends: `Range` and `If-Range` to resume a partial
    /// body, else none (the file then starts again at byte 0 when a body arrives).
    package func requestFields() -> [(name: String, value: String)] {
        guard resumes, written > 0, let validator else {
            requestedOffset = nil
            return []
        }
        requestedOffset = written
        return [("Range", "bytes=\(written)-"), ("If-Range", validator)]
    }

    package func begin(status: Int, field: (String) -> String?) throws(TransportError) -> Bool {
        guard (200...299).contains(status) else { return false }
        if status == 206, let offset = requestedOffset {
            // RFC 9110 section 14.4: "bytes first-last/complete"; it must continue the file.
            let range = field("Content-Range") ?? ""
            guard range.hasPrefix("bytes \(offset)-") else {
                throw TransportError(kind: .protocolViolation, curlCode: 0,
                                     message: "asked for the body from byte \(offset), the 206 has Content-Range \"\(range)\"")
            }
        } else {
            try truncate()
            validator = Self.validator(etag: field("ETag"), lastModified: field("Last-Modified"))
        }
        return true
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws(TransportError) -> BodyWrite {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw Self.failure("cannot write to \(temporaryPath)") }
            offset += count
        }
        written += bytes.count
        return .taken
    }

    /// Puts the body in place: closes the file and renames it onto ``destination``.
    /// - Throws: ``TransportError`` of kind `invalidArgument` naming the path; the temporary
    ///   file is removed then.
    package func commit() throws(TransportError) {
        try open()  // a no-op unless the file was discarded
        defer { discard() }
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
        validator = nil
    }

    /// Starts the file again at byte 0.
    private func truncate() throws(TransportError) {
        guard written > 0 else { return }
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw Self.failure("cannot truncate \(temporaryPath)")
        }
        written = 0
    }

    /// What `If-Range` may carry (RFC 9110 section 13.1.5): a strong entity tag, else the
    /// last-modification date (a weak tag never matches there).
    private static func validator(etag: String?, lastModified: String?) -> String? {
        if let etag, etag.hasPrefix("\"") { return etag }
        return lastModified
    }

    private static func failure(_ what: String) -> TransportError {
        TransportError(kind: .invalidArgument, curlCode: 0, message: "\(what): \(String(cString: strerror(errno)))")
    }
}
