import Gatewire
import Glibc
import Testing

/// `multipart/form-data` bodies as the scripted test server's `/multipart` saw them (each
/// part's name, filename, content type, size and SHA-256, parsed by werkzeug as it streams
/// in): fields, files and bytes in order, a retry and a 307 that re-send every part, files
/// checked before anything is sent, object fields through a `multipart` request descriptor,
/// and a 64 MiB file.
@Suite(.serialized) struct MultipartTests {
    let server: TestServer
    let folder: String

    init() throws {
        server = try TestServer()
        folder = TestFiles.folder("gatewire-multipart")
    }

    /// A file in the test's folder holding `bytes`; its path.
    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = folder + "/" + name
        guard let handle = fopen(path, "wb") else { throw TestServerError(description: "cannot create \(path)") }
        defer { fclose(handle) }
        #expect(fwrite(bytes, 1, bytes.count, handle) == bytes.count)
        return path
    }

    func client(_ extra: String = "", plugins: [any Plugin] = []) throws -> Client {
        try Client(config: GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)"\#(extra)}"#), plugins: plugins)
    }

    /// What the server answered for every request of `key`, in order.
    func log(_ key: String) async throws -> [JSONNode] {
        let response = try await client().send(.get("/multipart/\(key)/log"))
        return try JSONValue.parse(response.http.text).node["attempts"]?.elements ?? []
    }

    /// The parts of one answer as `name|filename|content type|size|text or sha256`.
    func parts(_ answer: JSONNode?) -> [String] {
        (answer?["parts"]?.elements ?? []).map { part in
            let filename = part["filename"]?.string ?? "-"
            let type = part["content_type"]?.string ?? "-"
            let content = part["text"]?.string ?? part["sha256"]?.string ?? "?"
            return "\(part["name"]?.string ?? "?")|\(filename)|\(type)|\(part["size"]?.integer ?? -1)|\(content)"
        }
    }

    static let helloSHA256 = "185f8db32271fe25f561a6fc938b2e264306ec304eda518007d1764826381969"  // "Hello"

    @Test func fieldsFilesAndBytesArriveInOrderWithTheirNamesAndTypes() async throws {
        let notes = try file("notes.txt", Array("Hello".utf8))
        let report = try file("report.bin", Array("Hello".utf8))
        let body = Request.Body.multipart([
            .field("title", "Q3 \"plan\" é"),
            .file("notes", path: notes),
            .file("report", path: report, filename: "q3.pdf", contentType: "application/pdf"),
            .bytes("blob", Array("Hello".utf8), filename: "hello.png"),
            .bytes("raw", Array("A\nB".utf8)),
        ])
        var request = Request(.post, "/multipart/fields/200", body: body)
        request.headers.set("Content-Type", "application/json")  // libcurl's multipart type wins
        let response = try await client(#", "headers": {"Content-Type": "text/plain"}"#).send(request)
        let answer = try JSONValue.parse(response.http.text).node
        #expect(answer["content_type"]?.string?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(parts(answer) == [
            "title|-|-|12|Q3 \"plan\" é",
            "notes|notes.txt|text/plain|5|\(Self.helloSHA256)",
            "report|q3.pdf|application/pdf|5|\(Self.helloSHA256)",
            "blob|hello.png|image/png|5|\(Self.helloSHA256)",
            "raw|-|-|3|A\nB",
        ])
    }

    @Test func aRetryResendsEveryPartFromTheStart() async throws {
        let path = try file("retry.txt", Array(repeating: UInt8(ascii: "r"), count: 300_000))
        let config = #", "retry": {"maxRetries": 2, "initialDelay": 0.01, "methods": ["POST"]}"#
        let request = Request(.post, "/multipart/retry/503,200",
                              body: .multipart([.field("a", "1"), .file("f", path: path)]))
        let response = try await client(config).send(request)
        #expect(response.status == 200)
        #expect(response.attempts.map(\.status) == [503, 200])
        let answers = try await log("retry")
        #expect(answers.count == 2)
        let expected = ["a|-|-|1|1",
                        "f|retry.txt|text/plain|300000|b4cc02aefe04e0690642acf0d8f05cc90e92b74d1ee3dd0d3a04256404af6690"]
        #expect(parts(answers.first) == expected)
        #expect(parts(answers.last) == expected)
    }

    @Test func a307ResendsThePartsAndA303DropsThem() async throws {
        let path = try file("moved.txt", Array("Hello".utf8))
        let body = Request.Body.multipart([.field("a", "1"), .file("f", path: path)])
        let kept = try await client().send(
            Request(.post, "/redirect-to", parameters: ["url": "/multipart/moved/200", "status": "307"], body: body))
        #expect(kept.status == 200)
        #expect(parts(try JSONValue.parse(kept.http.text).node) == ["a|-|-|1|1", "f|moved.txt|text/plain|5|\(Self.helloSHA256)"])
        let dropped = try await client().send(
            Request(.post, "/redirect-to", parameters: ["url": "/echo", "status": "303"], body: body))
        let echo = try JSONValue.parse(dropped.http.text).node
        #expect(echo["method"]?.string == "GET")
        #expect(echo["body"]?.isNull == true)
        #expect(echo["headers"]?["content-type"] == nil)
    }

    @Test func aMissingFileIsRefusedBeforeAnythingIsSent() async throws {
        let missing = folder + "/absent.bin"
        let request = Request(.post, "/multipart/missing/200",
                              body: .multipart([.field("a", "1"), .file("upload", path: missing)]))
        await #expect {
            try await client().send(request)
        } throws: { error in
            guard let error = error as? GatewireError else { return false }
            return error.kind == .invalidArgument && error.attempts.isEmpty
                && error.message == "file part \"upload\": cannot read \"\(missing)\": No such file or directory"
        }
        let directory = Request(.post, "/multipart/missing/200", body: .multipart([.file("dir", path: folder)]))
        await #expect {
            try await client().send(directory)
        } throws: { error in
            (error as? GatewireError)?.message == "file part \"dir\": cannot read \"\(folder)\": Is a directory"
        }
        let fifo = folder + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let pipe = Request(.post, "/multipart/missing/200", body: .multipart([.file("pipe", path: fifo)]))
        await #expect {
            try await client().send(pipe)
        } throws: { error in
            (error as? GatewireError)?.message == "file part \"pipe\": \"\(fifo)\" is not a regular file"
        }
        #expect(try await log("missing").isEmpty)
    }

    @Test func aFileThatVanishesAfterTheCheckEndsTheCallOnceBeforeSending() async throws {
        struct Remover: Plugin {
            let path: String
            func prepare(_ request: inout HTTPRequest, context: PluginContext) throws { unlink(path) }
        }
        let path = try file("vanishing.txt", Array("Hello".utf8))
        let config = #", "retry": {"maxRetries": 2, "initialDelay": 0.01, "methods": ["POST"]}"#
        let request = Request(.post, "/multipart/vanish/200", body: .multipart([.file("f", path: path)]))
        await #expect {
            try await client(config, plugins: [Remover(path: path)]).send(request)
        } throws: { error in
            guard let error = error as? GatewireError else { return false }
            return error.kind == .invalidArgument && error.attempts.count == 1
                && error.message == "file part \"f\": cannot read \"\(path)\": No such file or directory"
        }
        #expect(try await log("vanish").isEmpty)
    }

    @Test func anObjectsFieldsComeFromItsMultipartRequestDescriptor() async throws {
        let path = try file("avatar.png", Array("Hello".utf8))
        let config = #"""
            , "mappings": {"User": {"attributes": {"full_name": "name", "tags": "tags", "age": "age"}}},
              "requestDescriptors": [{"objectType": "User", "mapping": "User", "rootKeyPath": "user",
                                      "method": "POST", "format": "multipart"}],
              "routes": {"upload": {"method": "POST", "pathPattern": "/multipart/object/200", "objectType": "User"}}
            """#
        let user = try JSONValue.parse(#"{"name": "Ann Lee", "tags": ["a", "b"], "age": 7}"#)
        let client = try client(config)
        let fieldsOnly = try await client.send(Request(route: "upload", body: .object(user)))
        let expected = ["user[full_name]|-|-|7|Ann Lee", "user[tags][]|-|-|1|a", "user[tags][]|-|-|1|b", "user[age]|-|-|1|7"]
        #expect(parts(try JSONValue.parse(fieldsOnly.http.text).node) == expected)
        let withFile = try await client.send(
            Request(route: "upload", body: .multipart([.file("avatar", path: path)], object: user)))
        #expect(parts(try JSONValue.parse(withFile.http.text).node)
            == expected + ["avatar|avatar.png|image/png|5|\(Self.helloSHA256)"])
    }

    /// The server grows the file (appending a request, as a request smuggler would) or
    /// shrinks it once the request head has arrived: only the declared bytes go out, the
    /// attempt fails at once naming the file, and the appended request never reaches the server.
    @Test(arguments: ["grow", "shrink"])
    func aFileThatChangesSizeWhileItIsSentFailsAtOnce(_ change: String) async throws {
        let path = try file("changing-\(change).bin", [UInt8](repeating: 0x75, count: 32 << 20))
        let key = "changes-\(change)"
        let request = Request(.post, "/multipart/\(key)/200?\(change)=\(path)", body: .multipart([.file("upload", path: path)]))
        let verb = change == "grow" ? "grew" : "shrank"
        await #expect {
            try await client(#", "timeouts": {"attempt": 20}"#).send(request)
        } throws: { error in
            guard let error = error as? GatewireError else { return false }
            // Grown: the server appended a request line of its own length.
            let rest = change == "grow" ? "it now has " : "it ended after \(16 << 20)"
            return error.kind == .invalidArgument
                && error.message.contains("file part \"upload\": \"\(path)\" \(verb) while it was sent: \(32 << 20) bytes were declared, \(rest)")
        }
        let smuggled = try await client().send(.get("/sequence/\(key)-smuggled/count"))
        #expect(try JSONValue.parse(smuggled.http.text).node["count"]?.integer == 0)
    }

    @Test func a64MiBFileStreamsFromDisk() async throws {
        var bytes = [UInt8](repeating: 0, count: 64 << 20)
        for index in stride(from: 0, to: bytes.count, by: 4096) { bytes[index] = UInt8(truncatingIfNeeded: index >> 12) }
        let path = try file("large.bin", bytes)
        let config = #", "timeouts": {"attempt": 120}"#
        let response = try await client(config).send(
            Request(.put, "/multipart/large/200", body: .multipart([.file("data", path: path)])))
        let part = try JSONValue.parse(response.http.text).node["parts"]?.elements.first
        #expect(part?["size"]?.integer == 64 << 20)
        #expect(part?["sha256"]?.string == "541c7df8819db6d22d5f42f6a68718b3a6117a4acbb25f688b05fa37ad4ec64d")
    }
}
