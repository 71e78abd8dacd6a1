import Gatewire
import Glibc
import Testing

/// End-to-end tests of the client against the scripted test server on 127.0.0.1.
@Suite(.serialized) struct ClientTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    func client(_ extra: String = "", seed: UInt64? = 7) throws -> Client {
        let json = "{\"baseURL\": \"\(server.baseURL)\"\(extra.isEmpty ? "" : ", " + extra)}"
        return try Client(config: try GatewayConfig(json: json), randomSeed: seed)
    }

    /// A key unique to this test run, for the server's per-key sequences.
    func key(_ name: String) -> String { "\(name)-\(getpid())-\(Int(MonotonicNow.seconds * 1e6))" }

    func count(_ key: String) async throws -> Int64 {
        let response = try await client().send(.get("/sequence/\(key)/count"))
        return try #require(JSONValue.parse(response.http.text).node["count"]?.integer)
    }

    @Test func getReturnsStatusHeadersAndBody() async throws {
        let response = try await client().send(.get("/echo/hello", parameters: ["q": "a b&c"]))
        #expect(response.status == 200)
        #expect(response.http.headers["content-type"] == "application/json")
        let echo = try JSONValue.parse(response.http.text)
        #expect(echo.node["method"]?.string == "GET")
        #expect(echo.node["path"]?.string == "/echo/hello")
        #expect(echo.node["query"]?["q"]?.string == "a b&c")
        #expect(response.attempts.count == 1)
        #expect(response.attempts[0].timings.total > 0)
    }

    @Test func concurrentCallsCompleteWithTheirOwnBodies() async throws {
        let client = try client()
        try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for index in 0..<50 {
                group.addTask {
                    let response = try await client.send(.get("/echo", parameters: ["i": "\(index)"]))
                    return (index, try JSONValue.parse(response.http.text).node["query"]?["i"]?.string)
                }
            }
            var seen = Set<Int>()
            for try await (index, echoed) in group {
                #expect(echoed == "\(index)")
                seen.insert(index)
            }
            #expect(seen.count == 50)
        }
    }

    @Test func jsonBodyAndHeadersAreSent() async throws {
        var request = Request.post("/echo", body: .json(try JSONValue.parse(#"{"name": "Ann", "n": 12345678901234}"#)))
        request.headers.set("X-Trace", "t-1")
        let response = try await client(#""headers": {"X-Default": "d"}"#).send(request)
        let echo = try JSONValue.parse(response.http.text).node
        #expect(echo["method"]?.string == "POST")
        #expect(echo["body"]?["n"]?.integer == 12_345_678_901_234)
        #expect(echo["headers"]?["x-trace"]?.string == "t-1")
        #expect(echo["headers"]?["x-default"]?.string == "d")
        #expect(echo["headers"]?["content-type"]?.string == "application/json")
    }

    @Test func gzipBodiesAreDecoded() async throws {
        let response = try await client().send(.get("/gzip"))
        #expect(response.http.headers["content-encoding"] == "gzip")
        #expect(try JSONValue.parse(response.http.text).node.kind == .object)
    }

    @Test func retriesA503ThenSucceeds() async throws {
        let key = key("retry")
        let client = try client(#""retry": {"maxRetries": 3, "initialDelay": 0.02, "multiplier": 2, "maxDelay": 0.1, "jitter": "none"}"#)
        let response = try await client.send(.get("/sequence/\(key)/503,503,200"))
        #expect(response.status == 200)
        #expect(response.attempts.map(\.status) == [503, 503, 200])
        #expect(response.attempts.map(\.delayAfter) == [0.02, 0.04, nil])
        #expect(try await count(key) == 3)
    }

    @Test func postIsNotRetriedOn503ByDefault() async throws {
        let key = key("post")
        let client = try client(#""retry": {"maxRetries": 3, "initialDelay": 0.01}"#)
        let error = await #expect(throws: GatewireError.self) {
            try await client.send(.post("/sequence/\(key)/503,200", body: nil))
        }
        #expect(error?.kind == .httpStatus)
        #expect(error?.status == 503)
        #expect(error?.attempts.count == 1)
        #expect(try await count(key) == 1)
    }

    @Test func retryTestIsAskedOncePerFailedAttempt() async throws {
        let key = key("test")
        let seen = Lock<[Int]>([])
        var request = Request.get("/sequence/\(key)/500,502,503,200")
        request.options.retryTest = { outcome in
            seen.withLock { $0.append(outcome.status) }
            return outcome.status >= 500 && outcome.attempt < 2 ? .retry(after: 0.01) : .stop
        }
        let error = await #expect(throws: GatewireError.self) { try await client().send(request) }
        #expect(seen.withLock { $0 } == [500, 502])
        #expect(error?.status == 502)
        #expect(error?.attempts.count == 2)
    }

    @Test func failureObserverFiresOncePerFailedCall() async throws {
        let client = try client(#""retry": {"maxRetries": 2, "initialDelay": 0.01}"#)
        let failures = Lock<[GatewireError]>([])
        let token = client.addFailureObserver { error in failures.withLock { $0.append(error) } }
        _ = try await client.send(.get("/status/200"))
        await #expect(throws: GatewireError.self) { try await client.send(.get("/status/503")) }
        await #expect(throws: GatewireError.self) { try await client.send(.get("/status/401")) }
        #expect(failures.withLock { $0.map(\.status) } == [503, 401])
        #expect(failures.withLock { $0[0].attempts.count } == 3)
        #expect(client.removeFailureObserver(token))
        await #expect(throws: GatewireError.self) { try await client.send(.get("/status/500")) }
        #expect(failures.withLock { $0.count } == 2)
    }

    @Test func connectionRefusedIsStatusZeroAndObservedOnce() async throws {
        let port = try TestServer.closedPort()
        let client = try Client(config: try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:\#(port)", "retry": {"maxRetries": 2, "initialDelay": 0.01}}"#))
        let failures = Lock<[GatewireError]>([])
        client.addFailureObserver { error in failures.withLock { $0.append(error) } }
        let error = await #expect(throws: GatewireError.self) { try await client.send(.post("/x", body: nil)) }
        #expect(error?.kind == .connect)
        #expect(error?.status == 0)
        // Nothing was sent, so even a POST is retried: 3 attempts, one failure reported.
        #expect(error?.attempts.count == 3)
        #expect(failures.withLock { $0.map(\.kind) } == [.connect])
    }

    @Test func cancellingStopsTheAttemptInFlight() async throws {
        let client = try client()
        let start = MonotonicNow.seconds
        let outcome = Waiter<Result<Response, GatewireError>>()
        let handle = client.start(.get("/delay/5000")) { outcome.put($0) }
        usleep(100_000)
        handle.cancel()
        let result = outcome.wait()
        #expect(MonotonicNow.seconds - start < 2)
        guard case .failure(let error) = result else { Issue.record("expected a failure"); return }
        #expect(error.kind == .cancelled)
    }

    @Test func taskCancellationCancelsTheCall() async throws {
        let client = try client()
        let task = Task { try await client.send(.get("/delay/5000")) }
        try await Task.sleep(nanoseconds: 100_000_000)
        task.cancel()
        let result = await task.result
        guard case .failure(let error as GatewireError) = result else { Issue.record("expected a failure"); return }
        #expect(error.kind == .cancelled)
    }

    /// `CallOptions.maxRetries` changes only the count of the route's policy: this route
    /// retries only 502, after exactly 0.2 s, so 502, 502, 503 ends at the 503 (3 attempts)
    /// although the client's policy would retry 503 too and reach the 200.
    @Test func maxRetriesKeepsTheRoutesStatusCodesAndDelays() async throws {
        let key = key("max-retries")
        let client = try client(#"""
            "retry": {"maxRetries": 0, "initialDelay": 0.5, "statusCodes": [502, 503]},
            "routes": {"flaky": {"method": "GET", "pathPattern": "/sequence/:key/502,502,503,200",
                       "retry": {"maxRetries": 0, "initialDelay": 0.2, "multiplier": 1, "maxDelay": 0.2,
                                 "jitter": "none", "statusCodes": [502]}}}
            """#)
        let request = Request(route: "flaky", parameters: ["key": key], options: CallOptions(maxRetries: 3))
        let error = await #expect(throws: GatewireError.self) { try await client.send(request) }
        #expect(error?.status == 503)
        #expect(error?.attempts.map(\.status) == [502, 502, 503])
        #expect(error?.attempts.map(\.delayAfter) == [0.2, 0.2, nil])
        #expect(try await count(key) == 3)
    }

    @Test func deadlineCoversAttemptsAndDelays() async throws {
        let key = key("deadline")
        // Without the deadline the 50 retries would wait 10 s: ending within 5 s shows the
        // deadline cut them short, with room for a loaded machine.
        let client = try client(#""retry": {"maxRetries": 50, "initialDelay": 0.2, "multiplier": 1, "jitter": "none"}, "timeouts": {"deadline": 0.5}"#)
        let start = MonotonicNow.seconds
        let error = await #expect(throws: GatewireError.self) { try await client.send(.get("/sequence/\(key)/503")) }
        #expect(MonotonicNow.seconds - start < 5)
        #expect(error?.kind == .deadline || error?.kind == .httpStatus)
        #expect((error?.attempts.count ?? 0) >= 2)
    }

    @Test func blockingCallFromACallbackFailsInsteadOfDeadlocking() async throws {
        let client = try client()
        let inner = Waiter<GatewireError?>()
        client.start(.get("/echo")) { _ in
            do throws(GatewireError) {
                _ = try client.sendAndWait(.get("/echo"))
                inner.put(nil)
            } catch {
                inner.put(error)
            }
        }
        let error = inner.wait()
        #expect(error?.kind == .invalidArgument)
    }

    @Test func closingCompletesCallsInFlightOnceAsCancelled() async throws {
        let client = try client()
        let results = Lock<[GatewireError]>([])
        let done = Waiter<Void>()
        client.start(.get("/delay/5000")) { result in
            if case .failure(let error) = result { results.withLock { $0.append(error) } }
            done.put(())
        }
        usleep(100_000)
        client.close()
        done.wait()
        #expect(results.withLock { $0.map(\.kind) } == [.cancelled])
        let late = await #expect(throws: GatewireError.self) { try await client.send(.get("/echo")) }
        #expect(late?.kind == .cancelled)
    }

    @Test func pluginsAdaptEveryAttemptAndSeeEachResponse() async throws {
        struct Signer: Plugin {
            let seen: Lock<[Int]>
            func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
                request.headers.set("X-Attempt", "\(context.attempt)")
            }
            func didReceive(_ attempt: Attempt, response: HTTPResponse?, context: PluginContext) {
                seen.withLock { $0.append(attempt.status) }
            }
        }
        let seen = Lock<[Int]>([])
        let key = key("plugin")
        let config = try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "retry": {"maxRetries": 1, "initialDelay": 0.01}}"#)
        let client = try Client(config: config, plugins: [Signer(seen: seen)])
        _ = try await client.send(.get("/sequence/\(key)/503,200"))
        #expect(seen.withLock { $0 } == [503, 200])
        let echo = try await client.send(.get("/headers"))
        #expect(try JSONValue.parse(echo.http.text).node["headers"]?["x-attempt"]?.string == "1")
    }

    @Test func failingPluginFailsTheCallWithoutSending() async throws {
        struct Refuser: Plugin {
            struct NoKey: Error {}
            func prepare(_ request: inout HTTPRequest, context: PluginContext) throws { throw NoKey() }
        }
        let key = key("refuse")
        let config = try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)"}"#)
        let client = try Client(config: config, plugins: [Refuser()])
        let error = await #expect(throws: GatewireError.self) { try await client.send(.get("/sequence/\(key)/200")) }
        #expect(error?.kind == .plugin)
        #expect(error?.attempts.isEmpty == true)
        let plain = try self.client()
        let counted = try await plain.send(.get("/sequence/\(key)/count"))
        #expect(try JSONValue.parse(counted.http.text).node["count"]?.integer == 0)
    }

    @Test func basicAuthFromTheConfig() async throws {
        let client = try client(#""auth": {"type": "basic", "username": "alice", "password": "s3cret"}"#)
        let response = try await client.send(.get("/headers"))
        #expect(try JSONValue.parse(response.http.text).node["headers"]?["authorization"]?.string == "Basic YWxpY2U6czNjcmV0")
    }

    @Test func unknownRouteAndMissingParameterAreInvalidArguments() async throws {
        let client = try client(#""routes": {"user": {"method": "GET", "pathPattern": "/echo/users/:id"}}"#)
        let failures = Lock<Int>(0)
        client.addFailureObserver { _ in failures.withLock { $0 += 1 } }
        let missing = await #expect(throws: GatewireError.self) { try await client.send(Request(route: "user")) }
        #expect(missing?.kind == .invalidArgument)
        #expect(missing?.message.contains("\"id\"") == true)
        let unknown = await #expect(throws: GatewireError.self) { try await client.send(Request(route: "nope")) }
        #expect(unknown?.kind == .invalidArgument)
        #expect(failures.withLock { $0 } == 2)
        let response = try await client.send(Request(route: "user", parameters: ["id": "a/b c", "v": "1"]))
        let echo = try JSONValue.parse(response.http.text).node
        #expect(echo["path"]?.string == "/echo/users/a%2Fb%20c" || echo["path"]?.string == "/echo/users/a/b c")
        #expect(echo["query"]?["v"]?.string == "1")
        #expect(response.path == "/echo/users/a%2Fb%20c?v=1")
    }
}

/// Monotonic seconds for measuring test durations.
enum MonotonicNow {
    static var seconds: Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
