import Glibc
import Testing

/// A minimal HTTP/1.0 exchange over a raw socket: the whole reply as text, or nil when the
/// connection is refused.
func rawHTTPGet(port: Int, path: String) -> String? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port)).bigEndian
    address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else { return nil }
    var timeout = timeval(tv_sec: 10, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let request = Array("GET \(path) HTTP/1.0\r\n\r\n".utf8)
    guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return nil }
    var reply: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = recv(fd, &buffer, buffer.count, 0)
        if n <= 0 { break }
        reply += buffer[0..<n]
    }
    return String(decoding: reply, as: UTF8.self)
}

@Suite("TestServer: the Swift tests' own HTTP server")
struct TestServerTests {
    @Test("starts, answers, counts, and refuses connections once stopped")
    func lifecycle() throws {
        let server = try TestServer()
        #expect(server.port > 0)
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)")

        let count = try #require(rawHTTPGet(port: server.port, path: "/sequence/x/count"))
        #expect(count.hasPrefix("HTTP/1.0 200") || count.hasPrefix("HTTP/1.1 200"), "\(count)")
        #expect(count.hasSuffix(#"{"count": 0}"#))

        let first = try #require(rawHTTPGet(port: server.port, path: "/sequence/x/503,200"))
        #expect(first.contains(" 503 "))
        let second = try #require(rawHTTPGet(port: server.port, path: "/sequence/x/503,200"))
        #expect(second.contains(" 200 "))
        #expect(rawHTTPGet(port: server.port, path: "/sequence/x/count")?.hasSuffix(#"{"count": 2}"#) == true)

        let retryAfter = try #require(rawHTTPGet(port: server.port, path: "/status/429?retry_after=7"))
        #expect(retryAfter.contains(" 429 ") && retryAfter.contains("Retry-After: 7"))

        server.stop()
        server.stop()  // idempotent
        #expect(rawHTTPGet(port: server.port, path: "/sequence/x/count") == nil)
    }

    @Test("a server that cannot start is an error, not a skip")
    func startFailure() {
        #expect(throws: TestServerError.self) {
            _ = try TestServer(arguments: ["--port", "99999"])
        }
    }
}
