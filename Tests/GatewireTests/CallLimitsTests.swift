import Gatewire
import Glibc
import Testing

/// A Swift call's per-call numbers (``CallOptions/maxRetries``, ``Timeouts``,
/// ``CallOptions/maxResponseBytes``) are checked against ``CallLimits`` as C's
/// `gw_call_options` and the CLI's are: out of range, the call fails with kind
/// `invalidArgument`, once to the failure observers, and the test server's
/// `/sequence/<key>/count` shows nothing was sent.
@Suite(.serialized) struct CallLimitsTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    /// Retries at once, so a call that is not refused makes all its attempts quickly.
    func client() throws -> Client {
        let json = #"{"baseURL": "\#(server.baseURL)", "retry": {"initialDelay": 0, "jitter": "none"}}"#
        return try Client(config: try GatewayConfig(json: json))
    }

    func key(_ name: String) -> String { "limits-\(name)-\(getpid())-\(Int(MonotonicNow.seconds * 1e6))" }

    /// Requests the server saw for `key`.
    func count(_ key: String) async throws -> Int64 {
        let response = try await client().send(.get("/sequence/\(key)/count"))
        return try #require(JSONValue.parse(response.http.text).node["count"]?.integer)
    }

    /// Sends `options` on a `/sequence/<key>/503` call that must be refused; returns the
    /// error after checking the observers saw it once and the server saw nothing.
    func refused(_ options: CallOptions, key name: String,
                 sourceLocation: SourceLocation = #_sourceLocation) async throws -> GatewireError {
        let client = try client()
        let key = key(name)
        let seen = Lock<[GatewireError]>([])
        let token = client.addFailureObserver { error in seen.withLock { $0.append(error) } }
        defer { client.removeFailureObserver(token) }
        var request = Request.get("/sequence/\(key)/503")
        request.options = options
        let result: Result<Response, GatewireError>
        do throws(GatewireError) {
            result = .success(try await client.send(request))
        } catch {
            result = .failure(error)
        }
        guard case .failure(let error) = result else {
            Issue.record("accepted, status \((try? result.get())?.status ?? 0)", sourceLocation: sourceLocation)
            throw TestServerError(description: "call accepted")
        }
        #expect(error.kind == .invalidArgument, sourceLocation: sourceLocation)
        #expect(error.attempts.isEmpty, sourceLocation: sourceLocation)
        #expect(seen.withLock { $0.map(\.message) } == [error.message], sourceLocation: sourceLocation)
        #expect(try await count(key) == 0, sourceLocation: sourceLocation)
        return error
    }

    @Test func maxRetries150IsRefusedWithCsMessageAndNothingSent() async throws {
        let error = try await refused(CallOptions(maxRetries: 150), key: "retries150")
        #expect(error.message == "options.maxRetries: 150 is out of range (nil = the route's or client's policy, or 0...100 retries)")
    }

    @Test func maxRetries100IsAccepted() async throws {
        let key = key("retries100")
        var request = Request.get("/sequence/\(key)/503,503,200")
        request.options.maxRetries = 100
        let response = try await client().send(request)
        #expect(response.status == 200)
        #expect(response.attempts.count == 3)
        #expect(try await count(key) == 3)
    }

    @Test func aDeadlineAboveADayIsRefused() async throws {
        let error = try await refused(CallOptions(timeouts: Timeouts(deadline: 100_000)), key: "deadline")
        #expect(error.message
            == "options.timeouts.deadline: 100000.0 is out of range (nil or infinity = no limit, or 0.001...86400 seconds)")
    }

    @Test func aNaNAttemptTimeoutIsRefused() async throws {
        let error = try await refused(CallOptions(timeouts: Timeouts(attempt: .nan)), key: "nan")
        #expect(error.message
            == "options.timeouts.attempt: nan is out of range (nil or infinity = no limit, or 0.001...86400 seconds)")
    }

    @Test(arguments: [
        (CallOptions(maxRetries: -1), "options.maxRetries: -1 is out of range (nil = the route's or client's policy, or 0...100 retries)"),
        (CallOptions(timeouts: Timeouts(connect: 0)), "options.timeouts.connect: 0.0 is out of range (0.001...86400 seconds)"),
        (CallOptions(timeouts: Timeouts(attempt: -1)), "options.timeouts.attempt: -1.0 is out of range (nil or infinity = no limit, or 0.001...86400 seconds)"),
        (CallOptions(maxResponseBytes: 0), "options.maxResponseBytes: 0 is out of range 1...4611686018427387904"),
    ])
    func otherOutOfRangeValuesAreRefused(options: CallOptions, message: String) async throws {
        let error = try await refused(options, key: "other")
        #expect(error.message == message)
    }

    @Test func infiniteAttemptAndDeadlineMeanNoLimit() async throws {
        let key = key("infinite")
        var request = Request.get("/sequence/\(key)/200")
        request.options.timeouts = Timeouts(attempt: .infinity, deadline: .infinity)
        let response = try await client().send(request)
        #expect(response.status == 200)
        #expect(try await count(key) == 1)
    }
}
