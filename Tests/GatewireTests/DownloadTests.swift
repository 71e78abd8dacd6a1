import Gatewire
import Glibc
import Testing

/// Body sinks end to end: a private nginx serving a random file (ETag, Last-Modified,
/// ranges), the scripted test server's faults, and httpbin's streamed bodies.
@Suite(.serialized) struct DownloadTests {
    let folder = DownloadFiles.folder()
    /// What nginx serves as `/files/big.bin` and `/slow/big.bin`.
    let served: [UInt8]
    let nginx: NginxFilesServer
    let server: TestServer

    init() throws {
        served = DownloadFiles.write(random: 3_000_000, to: folder + "/big.bin")
        nginx = try NginxFilesServer(folder: folder, rate: "2m")
        server = try TestServer()
    }

    func client(_ baseURL: String, retry: String = #"{"maxRetries": 2, "initialDelay": 0.01, "jitter": "none"}"#) throws -> Client {
        try Client(config: try GatewayConfig(json: #"{"baseURL": "\#(baseURL)", "retry": \#(retry)}"#))
    }

    func download(_ path: String, to destination: String, options: CallOptions = CallOptions()) -> Request {
        var request = Request.get(path)
        request.options = options
        request.options.bodySink = .file(destination)
        return request
    }

    @Test("a file sink gets the body byte for byte; the response keeps no body; no temporary file is left")
    func file() async throws {
        let target = DownloadFiles.folder()
        var options = CallOptions()
        options.maxResponseBytes = 1000  // a limit for bodies kept in memory: a streamed one passes it
        let response = try await client(nginx.baseURL).send(download("/files/big.bin", to: target + "/out.bin", options: options))
        #expect(response.status == 200)
        #expect(response.http.body.isEmpty)
        #expect(response.mapped == nil)
        #expect(response.attempts.last?.bytesReceived == 3_000_000)
        #expect(DownloadFiles.read(target + "/out.bin") == served)
        #expect(DownloadFiles.names(in: target) == ["out.bin"])
    }

    @Test("a failed call leaves the destination as it was and no temporary file; its error body is kept and mapped")
    func failure() async throws {
        let target = DownloadFiles.folder()
        DownloadFiles.write(Array("before".utf8), to: target + "/out.json")
        let error = await #expect(throws: GatewireError.self) {
            try await client(server.baseURL).send(download("/status/404", to: target + "/out.json"))
        }
        #expect(error?.kind == .httpStatus)
        #expect(try JSONValue.parse(error?.response?.text ?? "").node["status"]?.integer == 404)
        #expect(DownloadFiles.read(target + "/out.json") == Array("before".utf8))
        #expect(DownloadFiles.names(in: target) == ["out.json"])
    }

    @Test("after a 503 and a retry the file holds the final body only; a cut-short body without a validator starts again")
    func retries() async throws {
        let target = DownloadFiles.folder()
        let key = "dl-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let response = try await client(server.baseURL).send(download("/fault/\(key)/503,partial,200", to: target + "/out.json"))
        #expect(response.attempts.map(\.status) == [503, 0, 200])  // the cut-short attempt has no response
        #expect(response.attempts[1].errorKind == .network)
        let body = try JSONValue.parse(String(decoding: DownloadFiles.read(target + "/out.json") ?? [], as: UTF8.self))
        #expect(body.node["attempt"]?.integer == 3)
        #expect(body.node["status"]?.integer == 200)
        #expect(DownloadFiles.names(in: target) == ["out.json"])
    }

    @Test("a replaced destination keeps its mode (0600 stays 0600); a new one gets 0666 less the umask, as from curl -o")
    func mode() async throws {
        let target = DownloadFiles.folder()
        DownloadFiles.write(Array("secret".utf8), to: target + "/kept.bin")
        #expect(chmod(target + "/kept.bin", 0o600) == 0)
        _ = try await client(server.baseURL).send(download("/bytes/1000", to: target + "/kept.bin"))
        _ = try await client(server.baseURL).send(download("/bytes/1000", to: target + "/new.bin"))
        #expect(DownloadFiles.read(target + "/kept.bin")?.count == 1000)
        #expect(Self.permissions(target + "/kept.bin") == 0o600)
        #expect(Self.permissions(target + "/new.bin") == 0o666 & ~Self.umask())
    }

    /// The permission bits of the file at `path`.
    static func permissions(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    /// The process's umask, read from /proc/self/status (umask() would change it for every thread).
    static func umask() -> mode_t {
        let status = String(decoding: DownloadFiles.read("/proc/self/status") ?? [], as: UTF8.self)
        let line = status.split(separator: "\n").first { $0.hasPrefix("Umask:") } ?? ""
        return mode_t(line.dropFirst(6).trimmingPrefix(while: { $0 == "\t" || $0 == " " }), radix: 8) ?? 0
    }

    @Test("an attempt cut short mid-body is resumed with Range and If-Range (nginx answers 206)")
    func resume() async throws {
        let target = DownloadFiles.folder()
        var options = CallOptions()
        options.timeouts = Timeouts(attempt: 0.6)  // /slow/ sends 2 MB a second: 3 MB takes 1.5 s
        let retry = #"{"maxRetries": 10, "initialDelay": 0.01, "jitter": "none"}"#
        let response = try await client(nginx.baseURL, retry: retry).send(download("/slow/big.bin", to: target + "/out.bin", options: options))
        #expect(DownloadFiles.read(target + "/out.bin") == served)
        #expect(response.status == 206)
        #expect(response.attempts.count >= 2)
        #expect(response.attempts.first?.errorKind == .timeout)
        // nginx logs a request cut short once it notices (after its rate limit's pause), so
        // the lines may come late and in another order than the attempts: wait for all of
        // them, then match each attempt's by its Range.
        var lines: [String] = []
        for _ in 0..<100 where lines.count < response.attempts.count {
            lines = nginx.log().filter { $0.hasPrefix("/slow/big.bin") }
            if lines.count < response.attempts.count { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(lines.count == response.attempts.count)
        #expect(lines.filter { $0.contains(#"range="-""#) }.count == 1)
        // Every resumed request starts where the bytes received so far end, answered 206.
        var received = 0
        for attempt in response.attempts {
            if received > 0 {
                let line = lines.first { $0.contains("range=\"bytes=\(received)-\"") }
                #expect(line?.contains(" 206 ") == true, "no 206 for bytes=\(received)- in \(lines)")
                #expect(line?.contains(#"if_range="-""#) == false, "\(line ?? "")")
            }
            received += Int(attempt.bytesReceived)
        }
        #expect(received == served.count)
        #expect(DownloadFiles.names(in: target) == ["out.bin"])
    }

    @Test("the streamed body's own cap fails the call with responseTooLarge and leaves no file")
    func cap() async throws {
        let target = DownloadFiles.folder()
        var request = Request.get("/files/big.bin")
        request.options.bodySink = .file(target + "/out.bin", maxBytes: 1_000_000)
        let error = await #expect(throws: GatewireError.self) { try await client(nginx.baseURL).send(request) }
        #expect(error?.kind == .responseTooLarge)
        #expect(DownloadFiles.names(in: target).isEmpty)
    }

    @Test("a folder that takes no file fails the call before anything is sent")
    func unwritable() async throws {
        let key = "dl-none-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let error = await #expect(throws: GatewireError.self) {
            try await client(server.baseURL).send(download("/fault/\(key)/200", to: "/nonexistent-folder/out.json"))
        }
        #expect(error?.kind == .invalidArgument)
        #expect(error?.message.contains("/nonexistent-folder/") == true)
        let count = try await client(server.baseURL).send(.get("/fault/\(key)/count"))
        #expect(try JSONValue.parse(count.http.text).node["count"]?.integer == 0)
    }

    @Test("chunks arrive in order and concatenate to the body; a slow consumer pauses the transfer, not the loop")
    func stream() async throws {
        let body = try client(nginx.baseURL).stream(.get("/files/big.bin"), bufferBytes: 64 << 10)
        var received: [UInt8] = []
        var chunks = 0
        for try await chunk in body {
            received += chunk
            chunks += 1
            if chunks < 40 { try await Task.sleep(for: .milliseconds(2)) }
        }
        #expect(received == served)
        #expect(chunks > 1)
        #expect(try await body.response().status == 200)
    }

    @Test("chunks that reached the consumer are never sent again: the call is not retried")
    func chunksNotRetried() async throws {
        let key = "dl-chunks-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let seen = Lock<[UInt8]>([])
        var request = Request.get("/fault/\(key)/partial,200")
        request.options.bodySink = .chunks { bytes in
            seen.withLock { $0 += bytes }
            return .proceed
        }
        let error = await #expect(throws: GatewireError.self) { try await client(server.baseURL).send(request) }
        #expect(error?.kind == .network)
        #expect(error?.attempts.count == 1)
        #expect(error?.attempts.first?.decision.contains("10 body bytes already reached the chunk consumer") == true)
        #expect(seen.withLock { $0 } == Array("0123456789".utf8))
    }

    @Test("a 5xx body is kept for the error and never streamed; the retried 200 streams")
    func errorBodyNotStreamed() async throws {
        let key = "dl-5xx-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let body = try client(server.baseURL).stream(.get("/fault/\(key)/503,200"))
        var received: [UInt8] = []
        for try await chunk in body { received += chunk }
        #expect(try JSONValue.parse(String(decoding: received, as: UTF8.self)).node["attempt"]?.integer == 2)
        #expect(try await body.response().attempts.map(\.status) == [503, 200])
    }
}
