import Gatewire
import Glibc
import Testing

/// Resuming a file download only where the `206` continues the partial file exactly, against
/// the scripted test server's `/resume/` (a 10,240-byte representation, version A or B, cut
/// after 5,120 bytes; then a `206` that matches or lies). The file is A or B whole, or the
/// call fails with `protocolViolation` and leaves no file: never a splice.
@Suite(.serialized) struct DownloadResumeTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    /// Version A or B of `/resume/`'s representation: byte i is (7i+1) % 251 or (13i+5) % 251.
    static func version(_ name: Character) -> [UInt8] {
        let (step, offset) = name == "A" ? (7, 1) : (13, 5)
        return (0..<10_240).map { UInt8((step * $0 + offset) % 251) }
    }

    func client(retries: Int) throws -> Client {
        let retry = #"{"maxRetries": \#(retries), "initialDelay": 0.01, "jitter": "none"}"#
        return try Client(config: try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "retry": \#(retry)}"#))
    }

    func download(_ steps: String, key: String, to path: String) -> Request {
        var request = Request.get("/resume/\(key)/\(steps)")
        request.options.bodySink = .file(path)
        return request
    }

    /// The `Range` and `If-Range` each request for `key` sent (nil: not sent).
    func sent(_ key: String) async throws -> [(range: String?, ifRange: String?)] {
        let log = try await client(retries: 0).send(.get("/resume/\(key)/log"))
        return try JSONValue.parse(log.http.text).node["requests"]!.elements.map { ($0["range"]?.string, $0["if_range"]?.string) }
    }

    static func key() -> String { "resume-\(getpid())-\(UInt32.random(in: 0...UInt32.max))" }

    @Test("a 206 that does not continue the partial file drops it; the retry starts again from byte 0", arguments: [
        // Another representation (ETag "B"), as from a server that ignores If-Range.
        ("cut,range-b,a", #"the 206 has ETag "B", the partial file ETag "A": another representation"#),
        ("cut,range-end,a", #"the 206 has Content-Range "bytes 5120-35839/10240", not "bytes first-last/length" with first <= last < length"#),
        ("cut,range-total,a", #"asked for the rest from byte 5120; the 206 has Content-Range "bytes 5120-35839/35840", not "bytes 5120-10239/10240""#),
        ("cut,range-short,a", #"asked for the rest from byte 5120; the 206 has Content-Range "bytes 5120-5129/10240", not "bytes 5120-10239/10240""#),
        ("cut,range-more,a", #"the 206's Content-Length 30720 is not the 5120 bytes of its Content-Range "bytes 5120-10239/10240""#),
        ("cut,range-empty,a", #"the 206's Content-Length 0 is not the 5120 bytes of its Content-Range "bytes 5120-10239/10240""#),
        // The same two without Content-Length: the body ends at the close.
        ("cut,range-more+nolength,a", "the 206 sent more bytes than its Content-Range declares (up to byte 10239)"),
        ("cut,range-empty+nolength,a", "the 206 ended at byte 5120, before the end of its Content-Range (byte 10239)"),
        // Resumed by Last-Modified (no ETag); the 206's is another date.
        ("cut+noetag,range+noetag+lm2018,a",
         "the 206 has Last-Modified Wed, 10 Oct 2018 16:00:00 GMT, the partial file Last-Modified Tue, 10 Oct 2017 16:00:00 GMT: another representation"),
    ])
    func mismatch(steps: String, reason: String) async throws {
        let (folder, key) = (DownloadFiles.folder(), Self.key())
        let response = try await client(retries: 2).send(download(steps, key: key, to: folder + "/out.bin"))
        #expect(DownloadFiles.read(folder + "/out.bin") == Self.version("A"))
        #expect(response.status == 200)
        #expect(response.attempts.map(\.errorKind) == [.network, .protocolViolation, nil])
        #expect(response.attempts[1].message == reason + "; the partial file was dropped")
        let requests = try await sent(key)
        #expect(requests.map(\.range) == [nil, "bytes=5120-", nil])
        #expect(DownloadFiles.names(in: folder) == ["out.bin"])
    }

    @Test("with no retry left the mismatch fails the call with protocolViolation and leaves no file")
    func mismatchFails() async throws {
        let (folder, key) = (DownloadFiles.folder(), Self.key())
        DownloadFiles.write(Array("before".utf8), to: folder + "/out.bin")
        let error = await #expect(throws: GatewireError.self) {
            try await client(retries: 1).send(download("cut,range-b", key: key, to: folder + "/out.bin"))
        }
        #expect(error?.kind == .protocolViolation)
        #expect(error?.message == #"the 206 has ETag "B", the partial file ETag "A": another representation; the partial file was dropped"#)
        #expect(DownloadFiles.read(folder + "/out.bin") == Array("before".utf8))
        #expect(DownloadFiles.names(in: folder) == ["out.bin"])
    }

    @Test("a 206 to a request without Range is refused, then the retry's 200 is the body")
    func unsolicited() async throws {
        let (folder, key) = (DownloadFiles.folder(), Self.key())
        let response = try await client(retries: 1).send(download("partial206,a", key: key, to: folder + "/out.bin"))
        #expect(response.attempts.map(\.errorKind) == [.protocolViolation, nil])
        #expect(response.attempts[0].message?.contains("a 206 answered a request without Range") == true)
        #expect(DownloadFiles.read(folder + "/out.bin") == Self.version("A"))
    }

    @Test("no Range after a body with a content coding, or with a Last-Modified as recent as its Date", arguments: [
        "cut+gzip,a", "cut+noetag+lmnow,a",
    ])
    func notResumable(steps: String) async throws {
        let (folder, key) = (DownloadFiles.folder(), Self.key())
        let response = try await client(retries: 1).send(download(steps, key: key, to: folder + "/out.bin"))
        #expect(response.attempts.map(\.errorKind) == [.network, nil])
        #expect(DownloadFiles.read(folder + "/out.bin") == Self.version("A"))
        #expect(try await sent(key).map(\.range) == [nil, nil])
    }

    @Test("a caller's own Range is sent as is and its 206 is the body; a retry does not resume over it")
    func callerRange() async throws {
        let (folder, key) = (DownloadFiles.folder(), Self.key())
        var request = download("cut,range", key: key, to: folder + "/out.bin")
        request.headers.set("Range", "bytes=100-")
        let response = try await client(retries: 1).send(request)
        #expect(response.status == 206)
        #expect(DownloadFiles.read(folder + "/out.bin") == Array(Self.version("A")[100...]))
        #expect(try await sent(key).map(\.range) == ["bytes=100-", "bytes=100-"])
    }
}
