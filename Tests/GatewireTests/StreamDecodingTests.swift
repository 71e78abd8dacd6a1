import Gatewire
import Glibc
import Testing

/// `stream()` of content-coded bodies that keep pausing the transfer (a 64 KiB buffer is
/// full after one 100 KiB chunk): the transport decodes them itself, so a pause never leaves
/// libcurl 7.88 holding a whole decoded read (its 64 MiB pause buffer failed such bodies
/// with `network: Out of memory`). Against the scripted test server's `/gzip-bomb/` and
/// `/encoded/`.
@Suite(.serialized) struct StreamDecodingTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    func client() throws -> Client {
        try Client(config: try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "timeouts": {"attempt": 300}}"#))
    }

    @Test("a 200 MiB gzip body (1 MB on the wire) read slowly arrives whole and in order")
    func largeBody() async throws {
        let size = 200 << 20
        let body = try client().stream(.get("/gzip-bomb/\(size)?marked=1"), bufferBytes: 64 << 10)
        var check = MarkedZeros()
        var chunks = 0
        for try await chunk in body {
            check.take(chunk)
            chunks += 1
            if chunks % 16 == 0 { try await Task.sleep(for: .milliseconds(1)) }
        }
        #expect(check.count == size)
        #expect(check.misplaced == nil)
        let response = try await body.response()
        #expect(response.status == 200)
        #expect(response.attempts.last?.bytesReceived == Int64(size))
    }

    @Test("a gzip bomb past the stream's cap fails with responseTooLarge, not network")
    func bombPastCap() async throws {
        var request = Request.get("/gzip-bomb/\(200 << 20)")
        request.options.bodySink = .chunks(maxBytes: 10_000_000) { _ in .proceed }
        let body = try client().stream(request, bufferBytes: 64 << 10)
        var received = 0
        let error = await #expect(throws: GatewireError.self) {
            for try await chunk in body {
                received += chunk.count
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        #expect(error?.kind == .responseTooLarge)
        #expect(error?.message.contains("the streamed body passed its cap (10000000 bytes)") == true)
        #expect(received <= 10_000_000)
    }

    @Test("each coding and stack of codings decodes through pauses to the body libcurl decodes", arguments: [
        "gzip", "x-gzip", "deflate", "rawdeflate", "gzip,deflate", "deflate,gzip,gzip", "identity,gzip",
    ])
    func codings(codings: String) async throws {
        let path = "/encoded/\(codings)/3000000"
        let client = try client()
        let body = client.stream(.get(path), bufferBytes: 64 << 10)
        var streamed: [UInt8] = []
        for try await chunk in body { streamed += chunk }
        let response = try await body.response()
        #expect(streamed.count == 3_000_000)
        #expect(streamed == Self.lines(3_000_000))
        #expect(streamed == (try await client.send(.get(path))).http.body)
        // Only the codings the transport decodes itself are offered.
        #expect(response.http.headers["X-Accept-Encoding"] == "deflate, gzip")
    }

    @Test("a gzip body of two members decodes whole (RFC 1952 section 2.2)")
    func gzipMembers() async throws {
        let body = try client().stream(.get("/encoded/gzip2/3000000"), bufferBytes: 64 << 10)
        var streamed: [UInt8] = []
        for try await chunk in body { streamed += chunk }
        #expect(streamed == Self.lines(3_000_000))
    }

    @Test("a coding the stream did not offer fails the call with protocolViolation")
    func unofferedCoding() async throws {
        let body = try client().stream(.get("/encoded/br/1000"))
        let error = await #expect(throws: GatewireError.self) { for try await _ in body {} }
        #expect(error?.kind == .protocolViolation)
        #expect(error?.message.contains(#"the response's Content-Encoding "br" has "br", which a streamed body that may pause cannot decode"#) == true)
    }

    /// The first `count` bytes of "line 00000000\n", "line 00000001\n", ... (`/encoded/`'s body).
    static func lines(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 14)
        var number = 0
        while bytes.count < count {
            let digits = String(number)
            bytes += Array("line ".utf8) + Array(repeating: UInt8(ascii: "0"), count: 8 - digits.count) + Array(digits.utf8) + [10]
            number += 1
        }
        return Array(bytes[..<count])
    }
}

/// Checks `/gzip-bomb/N?marked=1`'s body as it streams: each 1 MiB starts with its number
/// (8 bytes, big-endian), the rest is zeros.
struct MarkedZeros {
    private static let block = 1 << 20
    private static let zeros = [UInt8](repeating: 0, count: 1 << 20)
    /// Bytes seen so far.
    private(set) var count = 0
    /// The offset of the first byte out of place, or nil.
    private(set) var misplaced: Int?

    mutating func take(_ chunk: [UInt8]) {
        chunk.withUnsafeBytes { bytes in
            var index = 0
            while index < bytes.count {
                let offset = count + index
                let inBlock = offset % Self.block
                if inBlock < 8 {
                    let expected = UInt8(truncatingIfNeeded: (offset / Self.block) >> (8 * (7 - inBlock)))
                    if bytes[index] != expected, misplaced == nil { misplaced = offset }
                    index += 1
                    continue
                }
                let run = min(bytes.count - index, Self.block - inBlock)
                let same = Self.zeros.withUnsafeBytes { memcmp(bytes.baseAddress! + index, $0.baseAddress!, run) == 0 }
                if !same, misplaced == nil { misplaced = offset }
                index += run
            }
        }
        count += chunk.count
    }
}
