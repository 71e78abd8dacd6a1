import Gatewire
import Glibc
import Testing

/// Issue 4's shared resilience cases (`Tests/cases/resilience_cases.json`) through the Swift
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

    @Test(arguments: cases) func resilienceCase(_ testCase: ResilienceCase) async throws {
        let key = "\(testCase.name)-swift-\(getpid())-\(Int(MonotonicNow.seconds * 1e6))"
        let base = testCase.closed ? "http://127.0.0.1:\(try TestServer.closedPort())" : server.baseURL
        let config = try JSONValue.parse(testCase.config)
        config.set("baseURL", .string(base))
        let client = Client(config: try GatewayConfig(json: config.serialized()))
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
            let request = try call.request(inheriting: client.config.retryPolicy)
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
            case .failure(let error):
                #expect(!expect.ok, "\(comment.rawValue): expected a success, got \(error)")
                #expect(error.kind.name == expect.kind, "\(comment.rawValue): \(error)")
                status = error.status
                attempts = error.attempts
            }
            #expect(status == expect.status, comment)
            #expect(attempts.count == expect.attempts,
                    "\(comment.rawValue): \(attempts.map { ($0.status, $0.errorKind?.name, $0.decision) })")
            #expect(observed.count == expect.observerCalls, "\(comment.rawValue): observer saw \(observed)")
            if !expect.ok && !observed.isEmpty {
                #expect(observed.map(\.name) == [expect.kind ?? ""], "\(comment.rawValue): observer saw \(observed)")
            }
            check(attempts, expect, comment)
            if let minimum = expect.minElapsed { #expect(elapsed >= minimum, "\(comment.rawValue): took \(elapsed) s") }
            if let maximum = expect.maxElapsed { #expect(elapsed <= maximum, "\(comment.rawValue): took \(elapsed) s") }
            if let expected = expect.serverCount {
                #expect(try await count(plain, call.path) == expected, "\(comment.rawValue): server count")
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
}

/// One call of a case; `{key}` in the path and header values is replaced per run.
struct CaseCall: Sendable {
    var method = "GET"
    var path = ""
    var headers: [(String, String)] = []
    var body: JSONValue?
    var policy: JSONValue?
    var cancelAfter: Double?
    var sleepBefore: Double?
    var expect = Expectation()

    func substituting(_ key: String) -> CaseCall {
        var copy = self
        copy.path = path.replacingKey(key)
        copy.headers = headers.map { ($0.0, $0.1.replacingKey(key)) }
        return copy
    }

    /// The request, with the per-call policy read as the C binding reads `policy_json`.
    func request(inheriting clientPolicy: RetryPolicy) throws -> Request {
        guard let method = HTTPMethod(name: method) else { throw ResilienceCaseError(description: "bad method \(method)") }
        var request = Request(method, path, body: body.map { .json($0) })
        for (name, value) in headers { request.headers.set(name, value) }
        if let policy {
            let root = ConfigNode(policy.node, path: "policy")
            try root.rejectUnknownKeys(["retry", "retryBudget", "circuitBreaker"])
            if let node = try root.optional("retry") {
                request.options.retryPolicy = try RetryPolicy(config: node, inheriting: clientPolicy)
            }
            if let node = try root.optional("retryBudget") { request.options.retryBudget = try RetryBudget(config: node) }
            if let node = try root.optional("circuitBreaker") {
                request.options.circuitBreaker = try CircuitBreakerPolicy(config: node)
            }
        }
        return request
    }
}

/// A case of `resilience_cases.json`.
struct ResilienceCase: Sendable, CustomTestStringConvertible {
    var name: String
    var closed: Bool
    /// The config fragment as JSON text (`baseURL` is added per run).
    var config: String
    var calls: [CaseCall]

    var testDescription: String { name }

    static func load(from path: String) throws -> [ResilienceCase] {
        let root = try JSONValue.parse(try readFile(path)).node
        guard let cases = root["cases"]?.elements else { throw ResilienceCaseError(description: "\(path): no \"cases\" array") }
        return try cases.map(ResilienceCase.init)
    }

    init(_ node: JSONNode) throws {
        guard let name = node["name"]?.string else { throw ResilienceCaseError(description: "a case without a name") }
        self.name = name
        closed = node["closed"]?.bool ?? false
        config = node["config"]?.serialized() ?? "{}"
        guard let calls = node["calls"]?.elements, !calls.isEmpty else {
            throw ResilienceCaseError(description: "\(name): no calls")
        }
        self.calls = try calls.map { try Self.call($0, in: name) }
    }

    private static func call(_ node: JSONNode, in name: String) throws -> CaseCall {
        var call = CaseCall()
        call.method = node["method"]?.string ?? "GET"
        guard let path = node["path"]?.string else { throw ResilienceCaseError(description: "\(name): a call without a path") }
        call.path = path
        call.headers = (node["headers"]?.members ?? []).map { ($0.key, $0.value.string ?? "") }
        call.body = node["body"]?.retained()
        call.policy = node["policy"]?.retained()
        call.cancelAfter = node["cancel_after"]?.number
        call.sleepBefore = node["sleep_before"]?.number
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
