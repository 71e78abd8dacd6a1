import Gatewire
import Glibc
import Testing

/// The shared resilience cases (`Tests/cases/resilience_cases.json`) through the Swift
/// API. The C (`Tests/c/test_resilience_cases.c`) and Python
/// (`Tests/python/test_resilience_cases.py`) runners read the same file, so the three
/// languages are held to the same attempt counts, kinds, statuses, delays and failure-observer
/// calls. The file's `schema` member documents the fields.
@Suite(.serialized) struct ResilienceCaseTests {
    static let file = TestServer.repoRoot + "/Tests/cases/resilience_cases.json"
    /// Every case of the file; empty when it cannot be read (``caseFileLoads`` then fails).
    static let cases: [ResilienceCase] = (try? ResilienceCase.load(from: file)) ?? []

    let server: TestServer

    init() throws { server = try TestServer() }

    @Test func caseFileLoads() throws {
        let cases = try ResilienceCase.load(from: Self.file)
        #expect(cases.count >= 16)
        #expect(Set(cases.map(\.name)).count == cases.count, "case names must be unique")
    }

    /// The same file with a misspelt key in every object the runner reads: loading it fails,
    /// naming each key with its case.
    @Test func aMisspeltKeyIsNamedWithItsCase() throws {
        let error = #expect(throws: ResilienceCaseError.self) {
            try ResilienceCase.load(from: TestServer.repoRoot + "/Tests/cases/unknown_keys/resilience_cases.json")
        }
        #expect(error?.description.split(separator: "\n").map(String.init) == [
            #"case "misspelt keys": unknown key "comment""#,
            #"case "misspelt keys": unknown key "calls[0].retries""#,
            #"case "misspelt keys": unknown key "calls[0].expect.atempts""#,
            #"case "misspelt keys": unknown key "calls[0].expect.echo.methd""#,
            #"case "misspelt keys": unknown key "calls[0].expect.bytes_received.mx""#,
        ])
    }

    @Test(arguments: cases) func resilienceCase(_ testCase: ResilienceCase) async throws {
        let key = "\(testCase.name)-swift-\(getpid())-\(Int(MonotonicNow.seconds * 1e6))"
        let base = (testCase.closed ? "http://127.0.0.1:\(try TestServer.closedPort())" : server.baseURL) + testCase.basePath
        let config = try JSONValue.parse(testCase.config)
        config.set("baseURL", .string(base))
        let client = try Client(config: try GatewayConfig(json: config.serialized()))
        defer { client.close() }
        let plain = try Client(baseURL: server.baseURL)
        defer { plain.close() }
        let seen = Lock<[ErrorKind]>([])
        client.addFailureObserver { error in seen.withLock { $0.append(error.kind) } }

        for (index, raw) in testCase.calls.enumerated() {
            let call = raw.substituting(key)
            let expect = call.expect
            let comment = Comment(rawValue: "\(testCase.name) call \(index + 1) (\(call.method) \(call.path))")
            if let sleep = call.sleepBefore { usleep(UInt32(sleep * 1e6)) }
            let request = try call.request(config: client.config)
            let before = seen.withLock { $0.count }
            let (outcome, elapsed, completions) = await run(client, request, cancelAfter: call.cancelAfter)
            let observed = seen.withLock { Array($0[before...]) }

            #expect(completions == 1, comment)
            if let refusal = expect.refused {
                guard case .failure(let error) = outcome else {
                    Issue.record("\(comment.rawValue): expected a refusal, got a success")
                    continue
                }
                #expect(error.kind == .invalidArgument && error.attempts.isEmpty, "\(comment.rawValue): \(error)")
                #expect(error.message.contains(refusal), "\(comment.rawValue): \(error.message)")
                if let expected = expect.serverCount {
                    #expect(try await count(plain, call.path) == expected, "\(comment.rawValue): server count")
                }
                continue
            }
            let status: Int
            let attempts: [Attempt]
            switch outcome {
            case .success(let response):
                #expect(expect.ok, "\(comment.rawValue): expected \(expect.kind ?? "a failure"), got a success")
                status = response.status
                attempts = response.attempts
                if let echo = expect.echo { try check(echo: echo, of: response, comment) }
                if let length = expect.bodyLength {
                    #expect(response.http.body.count == length, "\(comment.rawValue): body length")
                }
                if let echoed = expect.echoPath {
                    let seen = try? JSONValue.parse(response.http.text).node["path"]?.string
                    #expect(seen == echoed, "\(comment.rawValue): the server saw \(seen ?? "no path")")
                    let reported = response.path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
                    #expect(testCase.basePath + reported == echoed, "\(comment.rawValue): reported \(response.path)")
                }
            case .failure(let error):
                #expect(!expect.ok, "\(comment.rawValue): expected a success, got \(error)")
                #expect(error.kind.name == expect.kind, "\(comment.rawValue): \(error)")
                if let needle = expect.messageContains {
                    #expect(error.message.contains(needle), "\(comment.rawValue): message \(error.message)")
                }
                status = error.status
                attempts = error.attempts
            }
            if expect.echo != nil, case .failure = outcome { Issue.record("\(comment.rawValue): no response to read the echo from") }
            #expect(status == expect.status, comment)
            #expect(attempts.count == expect.attempts,
                    "\(comment.rawValue): \(attempts.map { ($0.status, $0.errorKind?.name, $0.decision) })")
            #expect(observed.count == expect.observerCalls, "\(comment.rawValue): observer saw \(observed)")
            if !expect.ok && !observed.isEmpty {
                #expect(observed.map(\.name) == [expect.kind ?? ""], "\(comment.rawValue): observer saw \(observed)")
            }
            check(attempts, expect, comment)
            if let bound = expect.bytesReceived {
                let received = attempts.last.map { Double($0.bytesReceived) } ?? -1
                #expect(received >= bound.min && received <= bound.max,
                        "\(comment.rawValue): the last attempt received \(received) bytes, not in [\(bound.min), \(bound.max)]")
            }
            if let minimum = expect.minElapsed { #expect(elapsed >= minimum, "\(comment.rawValue): took \(elapsed) s") }
            if let maximum = expect.maxElapsed { #expect(elapsed <= maximum, "\(comment.rawValue): took \(elapsed) s") }
            if let expected = expect.serverCount {
                let counted = expect.countPath?.replacingKey(key) ?? call.path
                #expect(try await count(plain, counted) == expected, "\(comment.rawValue): server count of \(counted)")
            }
        }
    }

    /// Runs one call: blocking (async/await), or started, cancelled after `cancelAfter`
    /// seconds and awaited, then 0.3 s more to catch a second completion or a stray attempt.
    func run(_ client: Client, _ request: Request, cancelAfter: Double?)
        async -> (Result<Response, GatewireError>, elapsed: Double, completions: Int)
    {
        let start = MonotonicNow.seconds
        guard let cancelAfter else {
            do {
                let response = try await client.send(request)
                return (.success(response), MonotonicNow.seconds - start, 1)
            } catch {
                return (.failure(error), MonotonicNow.seconds - start, 1)
            }
        }
        let completions = Lock<[Result<Response, GatewireError>]>([])
        let handle = client.start(request) { result in completions.withLock { $0.append(result) } }
        usleep(UInt32(cancelAfter * 1e6))
        handle.cancel()
        let limit = MonotonicNow.seconds + 10
        while completions.withLock({ $0.isEmpty }) && MonotonicNow.seconds < limit { usleep(1_000) }
        let elapsed = MonotonicNow.seconds - start
        usleep(300_000)
        let results = completions.withLock { $0 }
        guard let first = results.first else {
            let error = GatewireError(kind: .invalidArgument, message: "no completion within 10 s", method: request.method,
                                      path: request.path)
            return (.failure(error), elapsed, 0)
        }
        return (first, elapsed, results.count)
    }

    func check(_ attempts: [Attempt], _ expect: Expectation, _ comment: Comment) {
        if let statuses = expect.attemptStatuses {
            #expect(attempts.map(\.status) == statuses, "\(comment.rawValue): attempt statuses")
        }
        if let errors = expect.attemptErrors {
            #expect(attempts.map { $0.errorKind?.name } == errors, "\(comment.rawValue): attempt errors")
        }
        if let delays = expect.delays {
            #expect(delays.count == attempts.count, "\(comment.rawValue): one delay bound per attempt")
            for (attempt, bound) in zip(attempts, delays) {
                if let bound {
                    let delay = attempt.delayAfter ?? -1
                    #expect(delay >= bound.min - 1e-6 && delay <= bound.max + 1e-6,
                            "\(comment.rawValue): attempt \(attempt.number) delay \(String(describing: attempt.delayAfter)) not in [\(bound.min), \(bound.max)]")
                } else {
                    #expect(attempt.delayAfter == nil, "\(comment.rawValue): attempt \(attempt.number) has a delay")
                }
            }
            for (previous, next) in zip(attempts, attempts.dropFirst()) {
                let earliest = previous.startOffset + previous.duration + (previous.delayAfter ?? 0)
                #expect(next.startOffset >= earliest - 0.002,
                        "\(comment.rawValue): attempt \(next.number) started at \(next.startOffset), before \(earliest)")
            }
        }
        if let redirects = expect.redirects {
            #expect(attempts.map { $0.redirects.map(\.status) } == redirects, "\(comment.rawValue): redirects")
        }
        if let decisions = expect.decisions {
            #expect(decisions.count <= attempts.count, "\(comment.rawValue): more decisions than attempts")
            for (attempt, needle) in zip(attempts, decisions) {
                if let needle {
                    #expect(attempt.decision.contains(needle),
                            "\(comment.rawValue): attempt \(attempt.number) decision \"\(attempt.decision)\" lacks \"\(needle)\"")
                }
            }
        }
    }

    /// The final response is an /echo answer: what the last server received.
    func check(echo expect: JSONNode, of response: Response, _ comment: Comment) throws {
        let echo = try #require(response.body?.node, "\(comment.rawValue): the response is not JSON")
        for key in ["method", "path", "body"] {
            if let value = expect[key] {
                #expect(echo[key]?.serialized() == value.serialized(), "\(comment.rawValue): echo \(key)")
            }
        }
        let headers = echo["headers"], query = echo["query"]
        for name in expect["headers_present"]?.elements ?? [] {
            #expect(headers?[name.string ?? ""] != nil, "\(comment.rawValue): header \(name.string ?? "") did not arrive")
        }
        for name in expect["headers_absent"]?.elements ?? [] {
            #expect(headers?[name.string ?? ""] == nil, "\(comment.rawValue): header \(name.string ?? "") arrived")
        }
        for (name, value) in expect["query"]?.members ?? [] {
            #expect(query?[name]?.string == value.string, "\(comment.rawValue): query \(name)")
        }
        for name in expect["query_absent"]?.elements ?? [] {
            #expect(query?[name.string ?? ""] == nil, "\(comment.rawValue): query parameter \(name.string ?? "") arrived")
        }
    }

    /// Requests the server saw for the key of a `/fault/<key>/...` or `/sequence/<key>/...` path.
    func count(_ plain: Client, _ path: String) async throws -> Int {
        let parts = path.split(separator: "?")[0].split(separator: "/").map(String.init)
        try #require(parts.count >= 2 && ["fault", "sequence"].contains(parts[0]), "server_count needs a /fault or /sequence path")
        let response = try await plain.send(.get("/\(parts[0])/\(parts[1])/count"))
        return Int(try #require(JSONValue.parse(response.http.text).node["count"]?.integer))
    }
}

// MARK: - The case file

struct ResilienceCaseError: Error, CustomStringConvertible {
    let description: String
}

/// Delay bounds (seconds) of the wait that followed an attempt.
struct DelayBound: Sendable {
    let min: Double
    let max: Double
}

/// What one call must give.
struct Expectation: Sendable {
    /// A refusal before the call is built: text its message contains (only the server count is checked besides).
    var refused: String?
    var ok = false
    var kind: String?
    var status = 0
    var attempts = 0
    var observerCalls = 0
    var serverCount: Int?
    var delays: [DelayBound?]?
    var attemptStatuses: [Int]?
    var attemptErrors: [String?]?
    var decisions: [String?]?
    var minElapsed: Double?
    var maxElapsed: Double?
    /// Per attempt, the statuses of the redirects it followed.
    var redirects: [[Int]]?
    /// The path whose key `serverCount` reads, instead of the call's.
    var countPath: String?
    /// What an /echo answer must show (the case file's `expect.echo`), kept alive by `echoValue`.
    var echoValue: JSONValue?
    var echo: JSONNode? { echoValue?.node }
    var echoPath: String?
    var messageContains: String?
    var bodyLength: Int?
    /// Bounds of the last attempt's bytes received.
    var bytesReceived: DelayBound?
}

/// One call of a case; `{key}` in the path and header values is replaced per run.
struct CaseCall: Sendable {
    var method = "GET"
    var path = ""
    var route: String?
    var parameters: [String: String] = [:]
    var headers: [(String, String)] = []
    var body: JSONValue?
    var policy: JSONValue?
    var cancelAfter: Double?
    var sleepBefore: Double?
    /// A named retry test of the schema's `call.retry_test`, or nil.
    var retryTest: String?
    var expect = Expectation()

    func substituting(_ key: String) -> CaseCall {
        var copy = self
        copy.path = path.replacingKey(key)
        copy.headers = headers.map { ($0.0, $0.1.replacingKey(key)) }
        return copy
    }

    /// The request, with the per-call policy read as the C binding reads `policy_json`: a
    /// partial `retry` or `redirects` changes the route's policy, else the config's.
    func request(config: GatewayConfig) throws -> Request {
        guard let method = HTTPMethod(name: method) else { throw ResilienceCaseError(description: "bad method \(method)") }
        var request = route.map { Request(route: $0, parameters: parameters, body: body.map { .json($0) }) }
            ?? Request(method, path, parameters: parameters, body: body.map { .json($0) })
        for (name, value) in headers { request.headers.set(name, value) }
        if let retryTest {
            guard retryTest == "retry_after_or_1" else { throw ResilienceCaseError(description: "unknown retry_test \(retryTest)") }
            // The README's test: a 429 retries after its Retry-After seconds (1 when absent).
            request.options.retryTest = { outcome in
                guard outcome.status == 429 else { return .usePolicy }
                return .retry(after: outcome.header("Retry-After").flatMap { Double($0) } ?? 1)
            }
        }
        if let policy {
            let root = ConfigNode(policy.node, path: "policy")
            try root.rejectUnknownKeys(["retry", "retryBudget", "circuitBreaker", "redirects", "maxResponseBytes"])
            if let node = try root.optional("retry") {
                request.options.retryPolicy = try RetryPolicy(config: node, inheriting: config.retryPolicy(forRoute: route))
            }
            if let node = try root.optional("retryBudget") { request.options.retryBudget = try RetryBudget(config: node) }
            if let node = try root.optional("circuitBreaker") {
                request.options.circuitBreaker = try CircuitBreakerPolicy(config: node)
            }
            if let node = try root.optional("redirects") {
                request.options.redirectPolicy = try RedirectPolicy(config: node, inheriting: config.redirectPolicy(forRoute: route))
            }
            if let node = try root.optional("maxResponseBytes") {
                request.options.maxResponseBytes = try ResponseSizeLimit.bytes(config: node)
            }
        }
        return request
    }
}

/// A case of `resilience_cases.json`.
struct ResilienceCase: Sendable, CustomTestStringConvertible {
    var name: String
    var closed: Bool
    /// Appended to the server's URL for the base URL (`base_path`).
    var basePath: String
    /// The config fragment as JSON text (`baseURL` is added per run).
    var config: String
    var calls: [CaseCall]

    var testDescription: String { name }

    /// The cases of the file at `path`.
    /// - Throws: ``ResilienceCaseError``: the file cannot be read, or a case is malformed; for
    ///   keys the runner does not read, one line per key (see ``unknownKeys(_:)``).
    static func load(from path: String) throws -> [ResilienceCase] {
        let root = try JSONValue.parse(try readFile(path)).node
        guard let cases = root["cases"]?.elements else { throw ResilienceCaseError(description: "\(path): no \"cases\" array") }
        let unknown = cases.flatMap(unknownKeys)
        guard unknown.isEmpty else { throw ResilienceCaseError(description: unknown.joined(separator: "\n")) }
        return try cases.map(ResilienceCase.init)
    }

    /// The keys this runner reads, per object; any other key is a mistake that would check nothing.
    static let caseKeys: Set = ["name", "about", "closed", "config", "calls", "base_path"]
    static let callKeys: Set = ["method", "path", "headers", "body", "policy", "sleep_before", "route", "params",
                                "retry_test", "cancel_after", "expect"]
    static let expectKeys: Set = ["ok", "kind", "status", "attempts", "observer_calls", "server_count", "delays",
                                  "attempt_statuses", "attempt_errors", "decisions", "min_elapsed", "max_elapsed",
                                  "redirects", "count_path", "echo", "echo_path", "body_length", "bytes_received",
                                  "message_contains", "refused"]
    static let echoKeys: Set = ["method", "path", "body", "headers_present", "headers_absent", "query", "query_absent"]

    /// The keys of a case this runner does not read: the case, then per call the call, its
    /// expect, `expect.echo`, each `expect.delays` bound and `expect.bytes_received`.
    static func unknownKeys(_ node: JSONNode) -> [String] {
        let name = node["name"]?.string ?? "(unnamed)"
        var problems = CaseKeys.unknown(in: node, known: caseKeys, case: name)
        for (index, call) in (node["calls"]?.elements ?? []).enumerated() {
            let expect = call["expect"]
            problems += CaseKeys.unknown(in: call, known: callKeys, case: name, prefix: "calls[\(index)].")
            problems += CaseKeys.unknown(in: expect, known: expectKeys, case: name, prefix: "calls[\(index)].expect.")
            problems += CaseKeys.unknown(in: expect?["echo"], known: echoKeys, case: name, prefix: "calls[\(index)].expect.echo.")
            for (boundIndex, bound) in (expect?["delays"]?.elements ?? []).enumerated() {
                problems += CaseKeys.unknown(in: bound, known: ["min_delay", "max_delay"], case: name,
                                             prefix: "calls[\(index)].expect.delays[\(boundIndex)].")
            }
            problems += CaseKeys.unknown(in: expect?["bytes_received"], known: ["min", "max"], case: name,
                                         prefix: "calls[\(index)].expect.bytes_received.")
        }
        return problems
    }

    init(_ node: JSONNode) throws {
        guard let name = node["name"]?.string else { throw ResilienceCaseError(description: "a case without a name") }
        self.name = name
        closed = node["closed"]?.bool ?? false
        basePath = node["base_path"]?.string ?? ""
        config = node["config"]?.serialized() ?? "{}"
        guard let calls = node["calls"]?.elements, !calls.isEmpty else {
            throw ResilienceCaseError(description: "\(name): no calls")
        }
        self.calls = try calls.map { try Self.call($0, in: name) }
    }

    private static func call(_ node: JSONNode, in name: String) throws -> CaseCall {
        var call = CaseCall()
        call.method = node["method"]?.string ?? "GET"
        call.route = node["route"]?.string
        guard let path = node["path"]?.string ?? call.route.map({ _ in "" }) else {
            throw ResilienceCaseError(description: "\(name): a call without a path or route")
        }
        call.path = path
        call.parameters = Dictionary(uniqueKeysWithValues: (node["params"]?.members ?? []).map { ($0.key, $0.value.string ?? "") })
        call.headers = (node["headers"]?.members ?? []).map { ($0.key, $0.value.string ?? "") }
        call.body = node["body"]?.retained()
        call.policy = node["policy"]?.retained()
        call.cancelAfter = node["cancel_after"]?.number
        call.sleepBefore = node["sleep_before"]?.number
        call.retryTest = node["retry_test"]?.string
        guard let e = node["expect"] else { throw ResilienceCaseError(description: "\(name): a call without expect") }
        func int(_ key: String) throws -> Int {
            guard let value = e[key]?.integer else { throw ResilienceCaseError(description: "\(name): expect.\(key) is required") }
            return Int(value)
        }
        var expect = Expectation()
        if let refused = e["refused"]?.string {
            expect.refused = refused
            expect.serverCount = e["server_count"]?.integer.map { Int($0) }
            call.expect = expect
            return call
        }
        expect.ok = e["ok"]?.bool ?? false
        expect.kind = e["kind"]?.string
        expect.status = try int("status")
        expect.attempts = try int("attempts")
        expect.observerCalls = try int("observer_calls")
        expect.serverCount = e["server_count"]?.integer.map { Int($0) }
        expect.delays = e["delays"].map { bounds in
            bounds.elements.map { $0.isNull ? nil : DelayBound(min: $0["min_delay"]?.number ?? .nan, max: $0["max_delay"]?.number ?? .nan) }
        }
        expect.attemptStatuses = e["attempt_statuses"].map { $0.elements.map { Int($0.integer ?? -1) } }
        expect.attemptErrors = e["attempt_errors"].map { $0.elements.map(\.string) }
        expect.decisions = e["decisions"].map { $0.elements.map(\.string) }
        expect.minElapsed = e["min_elapsed"]?.number
        expect.maxElapsed = e["max_elapsed"]?.number
        expect.redirects = e["redirects"].map { $0.elements.map { $0.elements.map { Int($0.integer ?? -1) } } }
        expect.countPath = e["count_path"]?.string
        expect.echoValue = e["echo"]?.retained()
        expect.echoPath = e["echo_path"]?.string
        expect.messageContains = e["message_contains"]?.string
        expect.bodyLength = e["body_length"]?.integer.map { Int($0) }
        expect.bytesReceived = e["bytes_received"].map { DelayBound(min: $0["min"]?.number ?? .nan, max: $0["max"]?.number ?? .nan) }
        if !expect.ok && expect.kind == nil { throw ResilienceCaseError(description: "\(name): a failure needs expect.kind") }
        call.expect = expect
        return call
    }

    private static func readFile(_ path: String) throws -> String {
        guard let file = fopen(path, "rb") else { throw ResilienceCaseError(description: "cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n == 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    fileprivate func replacingKey(_ key: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: "{key}") {
            result += rest[..<range.lowerBound] + key
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
