import CCurl
import Glibc

/// The bytes of one file part, read by Gatewire for libcurl (`curl_mime_data_cb`): exactly
/// the size the file had when the transfer opened it, never a byte more or fewer.
///
/// libcurl 7.88's own file parts (`curl_mime_filedata`) declare the file's size in the
/// body's `Content-Length`, then fill whole upload buffers with `fread`: a file that grows
/// while it is sent puts bytes past the declared length on the connection, where the server
/// reads them as the next request (request smuggling), and its answer becomes the answer to
/// the client's next call on that connection. A file that shrinks leaves the body short: the
/// server waits for the rest until the attempt's timeout. Here every read is capped at the
/// declared size; a file found shorter than it (a read that ends early) or longer (a byte
/// at the declared end, or a larger size, once the last byte is read) aborts the transfer at
/// once (``failure`` says which), and libcurl closes an aborted transfer's connection
/// instead of reusing it.
///
/// Reads with `pread(2)` at its own offset, so libcurl's rewinds (``seek(to:)``) need no
/// file position. Loop thread only: libcurl calls it from the transfer.
final class MultipartFileSource {
    let partName: String
    let path: String
    /// The declared length: the file's size when ``open(partName:path:)`` opened it.
    let size: Int64
    private let descriptor: Int32
    private var offset: Int64 = 0
    /// Why the transfer was aborted: the file changed size or failed to read, else nil.
    private(set) var failure: String?

    private init(partName: String, path: String, descriptor: Int32, size: Int64) {
        self.partName = partName
        self.path = path
        self.descriptor = descriptor
        self.size = size
    }

    deinit { close(descriptor) }

    /// Opens `path` for the part `partName`; the message (``MultipartPart/unreadable(name:path:errno:)``)
    /// when it cannot be opened or is not a regular file (it may have changed since the call
    /// checked it: ``MultipartPart/problem``).
    static func open(partName: String, path: String) -> Result<MultipartFileSource, MultipartFileError> {
        // O_NONBLOCK: a FIFO put in the file's place must not block the loop thread here.
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            return .failure(MultipartFileError(MultipartPart.unreadable(name: partName, path: path, errno: errno)))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            let code = errno
            close(descriptor)
            return .failure(MultipartFileError(status.st_mode & S_IFMT == S_IFDIR || code == 0
                ? "file part \"\(partName)\": \"\(path)\" is not a regular file"
                : MultipartPart.unreadable(name: partName, path: path, errno: code)))
        }
        return .success(MultipartFileSource(partName: partName, path: path, descriptor: descriptor,
                                            size: Int64(status.st_size)))
    }

    /// Fills `buffer` with at most `capacity` bytes of the file at the current offset, never
    /// past ``size``. Returns the count, 0 at the declared end, or `CURL_READFUNC_ABORT` after
    /// setting ``failure``.
    func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int {
        let wanted = Int(min(Int64(capacity), size - offset))
        guard wanted > 0 else { return 0 }
        var count: Int
        repeat { count = pread(descriptor, buffer, wanted, off_t(offset)) } while count < 0 && errno == EINTR
        if count < 0 { return abort("cannot read \"\(path)\": \(String(cString: strerror(errno)))") }
        if count == 0 {
            return abort("\"\(path)\" shrank while it was sent: \(size) bytes were declared, it ended after \(offset)")
        }
        offset += Int64(count)
        if offset == size, let grown = grownSize() {
            return abort("\"\(path)\" grew while it was sent: \(size) bytes were declared, it now has \(grown)")
        }
        return count
    }

    /// Moves the next read to `position` (libcurl rewinds a body it must send again).
    /// Returns `CURL_SEEKFUNC_OK`, or `CURL_SEEKFUNC_FAIL` for a position outside the file
    /// or an `origin` other than `SEEK_SET` (the only one libcurl's MIME reader uses).
    func seek(to position: Int64, origin: Int32) -> Int32 {
        guard origin == SEEK_SET, (0...size).contains(position) else { return Int32(CURL_SEEKFUNC_FAIL) }
        offset = position
        return Int32(CURL_SEEKFUNC_OK)
    }

    /// The file's size now when it is larger than ``size`` (a byte past the declared end,
    /// or `fstat`'s size), else nil.
    private func grownSize() -> Int64? {
        var probe: UInt8 = 0
        var status = stat()
        let sizeNow = fstat(descriptor, &status) == 0 ? Int64(status.st_size) : size
        if sizeNow > size { return sizeNow }
        return pread(descriptor, &probe, 1, off_t(size)) > 0 ? size + 1 : nil
    }

    private func abort(_ reason: String) -> Int {
        failure = "file part \"\(partName)\": \(reason)"
        return Int(CURL_READFUNC_ABORT)
    }
}

/// Why a file part could not be opened for a transfer (a message naming the part and the file).
struct MultipartFileError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
