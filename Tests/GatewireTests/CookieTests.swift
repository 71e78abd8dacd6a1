import Gatewire
import Glibc
import Testing

/// The client's cookie jar against a real httpbin (`/cookies/set`, `/cookies`,
/// `/response-headers`, `/redirect-to`) and the scripted server's `/echo` on 127.0.0.1 and
/// 127.0.0.2 (another host on the same port): what each server saw, and what the jar holds.
@Suite(.serialized) struct CookieTests {
    let httpbin: HTTPBinServer

    init() throws { httpbin = try HTTPBinServer() }

    func client(_ cookies: CookieJar?, plugins: [any Plugin] = []) throws -> Client {
        var config = try GatewayConfig(baseURL: httpbin.baseURL)
        config.cookies = cookies
        return try Client(config: config, plugins: plugins)
    }

    /// The `cookies` object httpbin's `/cookies` echoes back.
    func cookiesSeen(by client: Client) async throws -> [String: String] {
        let response = try await client.send(.get("/cookies"))
        let node = try #require(response.body?.node["cookies"])
        return Dictionary(uniqueKeysWithValues: node.members.map { ($0.key, $0.value.string ?? "") })
    }

    /// The `Cookie` field the scripted server's `/echo` at `origin` received, through httpbin's
    /// `/redirect-to` (the jar decides per hop what goes to the new host).
    func cookieField(at url: String, from client: Client) async throws -> String? {
        let response = try await client.send(.get("/redirect-to", parameters: ["url": url]))
        #expect(response.status == 200)
        return response.body?.node["headers"]?["cookie"]?.string
    }

    @Test func aCookieSetOnOneCallIsSentOnTheNextOnlyWithAJar() async throws {
        let jarless = try client(nil)
        _ = try await jarless.send(.get("/cookies/set", parameters: ["k": "v"]))
        #expect(try await cookiesSeen(by: jarless) == [:])
        #expect(jarless.cookies.isEmpty)

        let client = try client(CookieJar())
        let set = try await client.send(.get("/cookies/set", parameters: ["k": "v", "flavour": "oat"]))
        #expect(set.status == 200)  // 302 to /cookies, followed: the cookies went along
        #expect(set.attempts[0].redirects.count == 1)
        #expect(try await cookiesSeen(by: client) == ["k": "v", "flavour": "oat"])
        let jar = client.cookies.sorted { $0.name < $1.name }
        #expect(jar.map(\.name) == ["flavour", "k"])
        #expect(jar.map(\.value) == ["oat", "v"])
        #expect(jar.allSatisfy { $0.domain == "127.0.0.1" && $0.path == "/" && !$0.secure && $0.expires == 0 })
    }

    @Test func aCookieOf127001GoesTo127001OnAnotherPortButNotTo127002() async throws {
        let server = try TestServer()
        let client = try client(CookieJar())
        _ = try await client.send(.get("/cookies/set", parameters: ["k": "v"]))
        #expect(try await cookieField(at: "http://127.0.0.1:\(server.port)/echo", from: client) == "k=v")
        #expect(try await cookieField(at: "http://127.0.0.2:\(server.port)/echo", from: client) == nil)
    }

    @Test func aSetCookieForAnotherDomainIsRefused() async throws {
        let client = try client(CookieJar())
        for domain in ["example.com", "127.0.0.2", ".com"] {
            let response = try await client.send(.get("/response-headers",
                                                       parameters: ["Set-Cookie": "evil=1; Domain=\(domain); Path=/"]))
            #expect(response.http.headers["Set-Cookie"] == "evil=1; Domain=\(domain); Path=/")  // it was offered
        }
        _ = try await client.send(.get("/response-headers", parameters: ["Set-Cookie": "good=1; Path=/"]))
        #expect(client.cookies.map(\.name) == ["good"])
        #expect(try await cookiesSeen(by: client) == ["good": "1"])
    }

    @Test func aJarFileIsWrittenAtCloseAndLoadedByTheNextClient() async throws {
        let directory = TestFiles.folder("gw-cookies")
        defer { system("rm -rf '\(directory)'") }
        let file = directory + "/jar.txt"
        let first = try client(CookieJar(file: file))
        _ = try await first.send(.get("/cookies/set", parameters: ["session": "s-1"]))
        #expect(TestFiles.read(file) == "")  // made empty and private at once, written when the client closes
        first.close()
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600)  // cookie values are credentials
        let text = try #require(TestFiles.read(file))
        #expect(text.contains("127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\ts-1"))

        let second = try client(CookieJar(file: file))
        #expect(second.cookies.map(\.value) == ["s-1"])  // loaded when the client was made
        #expect(try await cookiesSeen(by: second) == ["session": "s-1"])
    }

    @Test func theConfigTurnsTheJarOnAndChecksItsFile() throws {
        let on = try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "cookies": true}"#)
        #expect(on.cookies == CookieJar())
        let off = try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "cookies": false}"#)
        #expect(off.cookies == nil)
        let file = try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "cookies": {"file": "/tmp/jar.txt"}}"#)
        #expect(file.cookies == CookieJar(file: "/tmp/jar.txt"))
        #expect(throws: ConfigError.self) {
            try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "cookies": {"path": "x"}}"#)
        }
        do {
            _ = try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "cookies": {"file": "/nonexistent/dir/jar"}}"#)
            Issue.record("an unwritable directory was accepted")
        } catch {
            #expect(error.path == "cookies.file")
            #expect(error.message.contains("cannot write to the directory of \"/nonexistent/dir/jar\""))
        }
    }

    @Test func theJarIsWrittenAsANewPrivateFileRenamedOntoThePath() async throws {
        let directory = TestFiles.folder("gw-cookies")
        defer { system("rm -rf '\(directory)'") }
        let file = directory + "/jar.txt"
        #expect(TestFiles.write("not a cookie line\n", to: file))
        #expect(chmod(file, 0o644) == 0)
        var before = stat()
        #expect(stat(file, &before) == 0)
        let client = try client(CookieJar(file: file))
        _ = try await client.send(.get("/cookies/set", parameters: ["session": "s-2"]))
        client.close()
        var after = stat()
        #expect(lstat(file, &after) == 0)
        #expect(after.st_ino != before.st_ino)  // a new file took the path: the old one was never opened for writing
        #expect(after.st_mode & S_IFMT == S_IFREG && after.st_mode & 0o777 == 0o600)
        let text = try #require(TestFiles.read(file))
        #expect(text.hasPrefix("# Netscape HTTP Cookie File\n# https://curl.se/docs/http-cookies.html\n"))
        #expect(text.hasSuffix("\n\n127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\ts-2\n"))
        #expect(Self.entries(of: directory) == ["jar.txt"])  // no temporary file left beside it
    }

    @Test func aJarFileIsLoadedLineByLineAsLibcurlReadsIt() async throws {
        let directory = TestFiles.folder("gw-cookies")
        defer { system("rm -rf '\(directory)'") }
        let file = directory + "/jar.txt"
        let future = 4_102_444_800  // 2100-01-01
        let lines = [
            "# Netscape HTTP Cookie File", "",
            "127.0.0.1\tFALSE\t/\tFALSE\t0\tplain\tp-1",
            "#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t\(future)\thidden\th-1\r",
            "127.0.0.1\tFALSE\t/\tFALSE\t1\texpired\te-1",
            "ALL",  // CURLOPT_COOKIELIST's "clear the jar" command: not a line of the file's format
            "   127.0.0.1\tFALSE\t/\tFALSE\t0\tindented\ti-1",
        ]
        #expect(TestFiles.write(lines.joined(separator: "\n") + "\n", to: file))
        let client = try client(CookieJar(file: file))
        let jar = client.cookies.sorted { $0.name < $1.name }
        #expect(jar.map(\.name) == ["hidden", "indented", "plain"])
        #expect(jar.map(\.httpOnly) == [true, false, false])
        #expect(jar[0].expires == Int64(future) && jar[0].value == "h-1")
        #expect(try await cookiesSeen(by: client) == ["hidden": "h-1", "indented": "i-1", "plain": "p-1"])
    }

    @Test func aJarPathThatIsASymbolicLinkIsRefusedAndItsTargetLeftAlone() async throws {
        let directory = TestFiles.folder("gw-cookies")
        defer { system("rm -rf '\(directory)'") }
        let victim = directory + "/victim.txt"
        let victimText = "127.0.0.1\tFALSE\t/\tFALSE\t0\tstolen\tVICTIM-SECRET\n"
        #expect(TestFiles.write(victimText, to: victim))
        #expect(chmod(victim, 0o644) == 0)
        let link = directory + "/jar.txt"
        #expect(symlink(victim, link) == 0)
        let expected = "\"\(link)\" is a symbolic link; a cookie jar is read and written only as a regular file, "
            + "never through a link (which could point it at another file)"
        // A CookieJar made in code: the client's creation refuses it.
        do throws(ConfigError) {
            var config = try GatewayConfig(baseURL: httpbin.baseURL)
            config.cookies = CookieJar(file: link)
            let client = try Client(config: config)
            client.close()
            Issue.record("a jar at a symbolic link was accepted")
        } catch {
            #expect(error.path == "cookies.file")
            #expect(error.message == expected)
        }
        // The config's `cookies.file`: refused when the config is read.
        do {
            _ = try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "cookies": {"file": "\#(link)"}}"#)
            Issue.record("a config jar at a symbolic link was accepted")
        } catch {
            #expect(error.path == "cookies.file")
            #expect(error.message == expected)
        }
        #expect(TestFiles.read(victim) == victimText)
        var info = stat()
        #expect(stat(victim, &info) == 0 && info.st_mode & 0o777 == 0o644)
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
    }

    @Test func aDanglingSymbolicLinkAtTheJarPathCreatesNothing() async throws {
        let directory = TestFiles.folder("gw-cookies")
        defer { system("rm -rf '\(directory)'") }
        let target = directory + "/created-by-the-jar"
        let link = directory + "/jar.txt"
        #expect(symlink(target, link) == 0)
        #expect(throws: ConfigError.self) { try client(CookieJar(file: link)) }
        #expect(access(target, F_OK) != 0)
        #expect(Self.entries(of: directory) == ["jar.txt"])
    }

    /// A link put at the path while the client runs: the save refuses it, says so once
    /// (``Diagnostics``), and creates nothing at the link's target.
    @Test func aSymbolicLinkPutAtTheJarPathLaterIsNotWrittenThrough() async throws {
        let directory = TestFiles.folder("gw-cookies")
        defer { system("rm -rf '\(directory)'") }
        let file = directory + "/jar.txt"
        let target = directory + "/created-by-the-jar"
        let reports = Lines()
        Diagnostics.setSink { if $0.contains(file) { reports.add($0) } }
        defer { Diagnostics.setSink(nil) }
        let client = try client(CookieJar(file: file))
        _ = try await client.send(.get("/cookies/set", parameters: ["k": "LOST-C00KIE"]))
        #expect(unlink(file) == 0 && symlink(target, file) == 0)
        client.close()
        #expect(access(target, F_OK) != 0)
        var info = stat()
        #expect(lstat(file, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        #expect(reports.all == ["the cookie jar was not saved: \"\(file)\" is a symbolic link; a cookie jar is read "
                                + "and written only as a regular file, never through a link (which could point it at another file)"])
        #expect(Self.entries(of: directory) == ["jar.txt"])
    }

    /// The cookie is set by a first client (its value is in that call's query) and reaches
    /// the logged client only through the jar's file: the Cookie field libcurl adds, the
    /// server's echo of it.
    @Test func cookieValuesReachNoLogLineNorEvent() async throws {
        let directory = TestFiles.folder("gw-cookies")
        defer { system("rm -rf '\(directory)'") }
        let setter = try client(CookieJar(file: directory + "/jar.txt"))
        _ = try await setter.send(.get("/cookies/set", parameters: ["k": "C00KIE-VALUE"]))
        setter.close()
        let lines = Lines()
        let client = try client(CookieJar(file: directory + "/jar.txt"),
                                plugins: [LoggingPlugin(logHeaders: true) { lines.add($0) }])
        let events = Lines()
        client.addEventMonitor { events.add($0.json.serialized()) }
        let echoed = try await client.send(.get("/cookies"))
        #expect(echoed.http.text.contains("C00KIE-VALUE"))  // it was sent
        #expect(lines.all.count == 3)  // request, response, result
        #expect(events.all.count == 4)
        for line in lines.all + events.all { #expect(!line.contains("C00KIE-VALUE"), "\(line)") }
        for attempt in echoed.attempts { #expect(!"\(attempt)".contains("C00KIE-VALUE")) }
    }

    final class Lines: Sendable {
        private let items = Lock<[String]>([])
        func add(_ line: String) { items.withLock { $0.append(line) } }
        var all: [String] { items.withLock { $0 } }
    }

    /// The names in `directory`, sorted, without `.` and `..`.
    static func entries(of directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

}
