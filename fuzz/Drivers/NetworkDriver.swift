import Gatewire
import Glibc
import Synchronization

/// Mutated raw HTTP responses from a socket server on loopback to a Gatewire client: the
/// kind of input that found libcurl 7.88's use-after-free on a reused easy handle.
///
/// An input is a flags byte, then up to three responses separated by `~~~\n`. A fresh client
/// makes two or three sequential calls (`GET /plain/N`, `GET /mapped/N`, alternating; the
/// second through a response descriptor), allowing one retry each, so easy handles and
/// keep-alive connections are reused within the input. Flag bit 6 turns the `/plain` calls
/// into multipart uploads (`POST`, a field and a file part: Gatewire's capped file reader),
/// bit 7 sends the `/mapped` calls' bodies to a file that a retry resumes (`Range` and
/// `If-Range`, the 206's `Content-Range` checked against the partial file). The server
/// answers each request it reads (its head, then `Content-Length` body bytes) with the next
/// response; bits 0 to 2 of the flags close the connection after response 0 to 2.
/// Once the responses run out it closes connections instead. Every call ends with a response
/// or a GatewireError; a crash, a sanitizer report or a hang is a finding. Responses are sent
/// as they are, folded first header lines included: the seed `503-then-folded-first-line` is
/// the sequence that crashed libcurl 7.88.1 on a reused easy handle (curl issue #11101), which
/// Gatewire avoids with a new easy handle per transfer.
public func fuzzNetwork(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let responses = split(bytes.dropFirst(), separator: Array("~~~\n".utf8)).prefix(3).map { Array($0) }
    let script = Script(responses: responses, flags: bytes[0])
    let server = startServer(script)

    let client = try! Client(config: config)  // throws only for a shared-object plugin, which this config lacks
    for call in 0..<max(2, responses.count) {
        var request = Request.get(call % 2 == 0 ? "/plain/\(call)" : "/mapped/\(call)")
        if call % 2 == 0, script.flags & 0x40 != 0 {
            request = Request(.post, "/plain/\(call)", body: .multipart([.field("title", "fuzz"), .file("upload", path: uploadFile)]))
        } else if call % 2 == 1, script.flags & 0x80 != 0 {
            request.options.bodySink = .file(downloadFile, resume: true, maxBytes: 1 << 20)
        }
        if let response = try? client.sendAndWait(request) {
            _ = response.mapped
            _ = try? response.jsonBody()
        }
    }
    client.close()
    unlink(downloadFile)

    script.done.store(true, ordering: .releasing)
    pthread_join(server, nil)
    return 0
}

func split(_ bytes: ArraySlice<UInt8>, separator: [UInt8]) -> [ArraySlice<UInt8>] {
    var parts: [ArraySlice<UInt8>] = []
    var start = bytes.startIndex
    var index = bytes.startIndex
    while index + separator.count <= bytes.endIndex {
        if bytes[index..<(index + separator.count)].elementsEqual(separator) {
            parts.append(bytes[start..<index])
            index += separator.count
            start = index
        } else {
            index += 1
        }
    }
    parts.append(bytes[start...])
    return parts
}

/// One input's responses, shared with its server thread.
final class Script: @unchecked Sendable {
    let responses: [[UInt8]]
    let flags: UInt8
    let done = Atomic<Bool>(false)
    init(responses: [[UInt8]], flags: UInt8) { self.responses = responses; self.flags = flags }
}

/// The loopback listener, bound once on a free port (backlog 64: calls are sequential).
let listener: (fd: Int32, port: Int) = {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    precondition(fd >= 0, "socket() failed: errno \(errno)")
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
            bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
        }
    }
    precondition(bound && listen(fd, 64) == 0, "bind/listen failed: errno \(errno)")
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}()

/// The file part of the uploads: 3000 bytes, written once per process.
let uploadFile: String = {
    let path = "/tmp/gw-fuzz-network-upload-\(getpid()).bin"
    let file = fopen(path, "w")!
    let text = String(repeating: "0123456789", count: 300)
    fputs(text, file)
    fclose(file)
    return path
}()

/// Where the downloads go (removed after each input).
let downloadFile = "/tmp/gw-fuzz-network-download-\(getpid()).bin"

/// Short timeouts and one quick retry, so a stalled or truncated response costs little.
let config: GatewayConfig = try! GatewayConfig(json: """
    {"baseURL": "http://127.0.0.1:\(listener.port)",
     "timeouts": {"connect": 1, "attempt": 0.25},
     "retry": {"maxRetries": 1, "initialDelay": 0.001, "maxDelay": 0.001, "jitter": "none", "maxRetryAfter": 0.01},
     "mappings": {"Item": {"attributes": {"id": {"to": "id", "type": "integer"}, "name": "name"}}},
     "responseDescriptors": [{"mapping": "Item", "pathPattern": "/mapped/:n"}]}
    """)

func startServer(_ script: Script) -> pthread_t {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(script).toOpaque()
    let created = pthread_create(&thread, nil, { raw in
        serve(Unmanaged<Script>.fromOpaque(raw!).takeRetainedValue())
        return nil
    }, context)
    precondition(created == 0, "pthread_create failed: \(created)")
    return thread
}

/// Answers each request read (its head up to the blank line, then its `Content-Length`
/// body bytes) with the next response. A connection idle for 20 ms after a response is closed, which ends a body that
/// runs to the end of the connection.
func serve(_ script: Script) {
    var connection: Int32 = -1
    var received: [UInt8] = []
    var next = 0
    var idleSince = now()
    func closeConnection() {
        if connection >= 0 { close(connection) }
        connection = -1
        received = []
    }
    while !script.done.load(ordering: .acquiring) {
        var fds = [pollfd(fd: listener.fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: connection, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&fds, connection >= 0 ? 2 : 1, 5)
        if ready <= 0 {
            if connection >= 0 && now() - idleSince > 0.02 { closeConnection() }
            continue
        }
        // The open connection's bytes first: a new connection replaces it only when it is idle.
        if connection < 0 || fds[1].revents == 0 {
            let accepted = accept(listener.fd, nil, nil)
            if accepted >= 0 {
                closeConnection()
                connection = accepted
                idleSince = now()
            }
            continue
        }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = read(connection, &chunk, chunk.count)
        if count <= 0 { closeConnection(); continue }
        received += chunk[0..<count]
        idleSince = now()
        while let end = requestEnd(received) {
            received.removeFirst(end)
            guard next < script.responses.count else { closeConnection(); break }
            let response = script.responses[next]
            let closing = script.flags & (1 << next) != 0
            next += 1
            _ = response.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            idleSince = now()
            if closing { closeConnection(); break }
        }
    }
    closeConnection()
}

/// The index just past the first request (its head's blank line and its `Content-Length`
/// body bytes), or nil while it is incomplete. The requests are Gatewire's own: a
/// `Content-Length` field, never chunked.
func requestEnd(_ bytes: [UInt8]) -> Int? {
    guard bytes.count >= 4 else { return nil }
    for index in 0...(bytes.count - 4)
    where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
        let head = String(decoding: bytes[..<index], as: UTF8.self).lowercased()
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: " ")) } ?? 0
        return bytes.count >= index + 4 + length ? index + 4 + length : nil
    }
    return nil
}

extension Substring {
    func trimmingCharacters(in character: Character) -> Substring {
        var text = self
        while text.first == character { text.removeFirst() }
        while text.last == character { text.removeLast() }
        return text
    }
}

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
