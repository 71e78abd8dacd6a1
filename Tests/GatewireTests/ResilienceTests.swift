import Gatewire
import Glibc
import Testing

/// Issue 4's decisions, end to end against the scripted fault endpoint of the test server
/// (`/fault/<key>/<step>,...`): exact attempt counts, delay bounds from the policy, and the
/// failure observers firing exactly once per failed call (never for a success).
@Suite(.serialized) struct ResilienceTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    func client(_ extra: String = "", seed: UInt64? = 7, plugins: [any Plugin] = []) throws -> Client {
        let json = "{\"baseURL\": \"\(server.baseURL)\"\(extra.isEmpty ? "" : ", " + extra)}"
        return try Client(config: try GatewayConfig(json: json), plugins: plugins, randomSeed: seed)
    }

    func key(_ name: String) -> String { "\(name)-\(getpid())-\(Int(MonotonicNow.seconds * 1e6))" }

    /// Requests the server saw for a fault key.
    func count(_ key: String) async throws -> Int64 {
        let response = try await client().send(.get("/fault/\(key)/count"))
        return try #require(JSONValue.parse(response.http.text).node["count"]?.integer)
    }

    /// Sends `request` and returns its result with every error the observers saw meanwhile.
    func send(_ client: Client, _ request: Request) async -> (Result<Response, GatewireError>, [GatewireError]) {
        let seen = Lock<[GatewireError]>([])
        let token = client.addFailureObserver { error in seen.withLock { $0.append(error) } }
        defer { client.removeFailureObserver(token) }
        do {
            return (.success(try await client.send(request)), seen.withLock { $0 })
        } catch {
            return (.failure(error), seen.withLock { $0 })
        }
    }

    /// Sends a call that must fail, checks the observers saw exactly that failure once.
    func failure(_ client: Client, _ request: Request, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> GatewireError
    {
        let (result, observed) = await send(client, request)
        guard case .failure(let error) = result else {
            Issue.record("expected a failure", sourceLocation: sourceLocation)
            throw TestServerError(description: "call succeeded")
        }
        #expect(observed.count == 1, sourceLocation: sourceLocation)
        #expect(observed.first?.kind == error.kind, sourceLocation: sourceLocation)
        return error
    }

    /// Sends a call that must succeed; the observers must see nothing.
    func success(_ client: Client, _ request: Request, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> Response
    {
        let (result, observed) = await send(client, request)
        #expect(observed.isEmpty, sourceLocation: sourceLocation)
        return try result.get()
    }

    static let fast = #""retry": {"maxRetries": 3, "initialDelay": 0.01, "multiplier": 2, "maxDelay": 0.1, "jitter": "none"}"#

    // MARK: 1. Count and history

    @Test(arguments: [0, 1, 3]) func maxRetriesCountsRetriesAfterTheFirstAttempt(maxRetries: Int) async throws {
        let key = key("count\(maxRetries)")
        let client = try client(#""retry": {"maxRetries": \#(maxRetries), "initialDelay": 0.01, "multiplier": 2, "jitter": "none"}"#)
        let error = try await failure(client, .get("/fault/\(key)/503"))
        #expect(error.kind == .httpStatus)
        #expect(error.status == 503)
        #expect(error.attempts.count == maxRetries + 1)
        let expected: [Double?] = (0..<maxRetries).map { (n: Int) -> Double? in 0.01 * Double(1 << n) } + [nil]
        #expect(error.attempts.map(\.delayAfter) == expected)
        #expect(error.attempts.last?.decision == "retries exhausted (\(maxRetries))")
        #expect(try await count(key) == Int64(maxRetries + 1))
    }

    @Test func threeTimes503Then200Succeeds() async throws {
        let key = key("then200")
        let response = try await success(try client(Self.fast), .get("/fault/\(key)/503,503,503,200"))
        #expect(response.status == 200)
        #expect(response.attempts.map(\.status) == [503, 503, 503, 200])
        #expect(response.attempts.map(\.delayAfter) == [0.01, 0.02, 0.04, nil])
        #expect(response.attempts.map(\.number) == [1, 2, 3, 4])
        // Every attempt starts after the previous one and its delay.
        for (previous, next) in zip(response.attempts, response.attempts.dropFirst()) {
            #expect(next.startOffset >= previous.startOffset + previous.duration + previous.delayAfter!)
        }
        #expect(response.attempts[0].decision == "status 503 is retryable")
        #expect(response.attempts.allSatisfy { $0.bytesSent > 0 })
        #expect(try await count(key) == 4)
    }

    // MARK: 2. Delay

    @Test func decorrelatedJitterStaysBetweenInitialAndThreeTimesThePreviousWait() throws {
        let policy = RetryPolicy(maxRetries: 100, initialDelay: 0.1, maxDelay: 5, jitter: .decorrelated)
        var generator = SeededGenerator(seed: 42)
        var previous: Double? = nil
        for n in 1...200 {
            let delay = policy.delay(forRetry: n, previous: previous, using: &generator)
            #expect(delay >= 0.1)
            #expect(delay <= min(5, 3 * (previous ?? 0.1)))
            previous = delay
        }
        // Saturation: huge n, multiplier and previous values stay within [0, maxDelay].
        let wild = RetryPolicy(initialDelay: 1e300, multiplier: 1000, maxDelay: 2, jitter: .decorrelated)
        for previous in [nil, 0, 1e308, Double.infinity, Double.nan] as [Double?] {
            let delay = wild.delay(forRetry: 1_000_000, previous: previous, using: &generator)
            #expect(delay >= 0 && delay <= 2)
        }
        let config = try GatewayConfig(json: #"{"baseURL": "http://h", "retry": {"jitter": "decorrelated"}}"#)
        #expect(config.retryPolicy.jitter == .decorrelated)
    }

    @Test func decorrelatedDelaysAreUsedBetweenAttempts() async throws {
        let key = key("decorrelated")
        let client = try client(#""retry": {"maxRetries": 3, "initialDelay": 0.01, "maxDelay": 0.2, "jitter": "decorrelated"}"#)
        let error = try await failure(client, .get("/fault/\(key)/503"))
        let delays = error.attempts.compactMap(\.delayAfter)
        #expect(delays.count == 3)
        var previous = 0.01
        for delay in delays {
            #expect(delay >= 0.01 && delay <= min(0.2, 3 * previous))
            previous = delay
        }
    }

    // MARK: 3. What is retried: methods, "was anything sent"

    @Test func postWith503IsNotRetried() async throws {
        let key = key("post503")
        let error = try await failure(try client(Self.fast), .post("/fault/\(key)/503,200", body: .json(.object())))
        #expect(error.kind == .httpStatus)
        #expect(error.attempts.count == 1)
        #expect(error.attempts[0].decision == "POST is not idempotent (status 503)")
        #expect(try await count(key) == 1)
    }

    @Test func postWithAnIdempotencyKeyIsRetried() async throws {
        let key = key("postkey")
        var request = Request.post("/fault/\(key)/503,200", body: .json(.object()))
        request.headers.set("Idempotency-Key", "k-1")
        let response = try await success(try client(Self.fast), request)
        #expect(response.attempts.map(\.status) == [503, 200])
        #expect(try await count(key) == 2)
    }

    @Test func generatedIdempotencyKeyIsKeptAcrossAttempts() async throws {
        let key = key("genkey")
        let seen = KeyRecorder()
        let client = try client(#""retry": {"maxRetries": 2, "initialDelay": 0.01, "jitter": "none", "idempotencyKey": true}"#,
                                plugins: [seen])
        let response = try await success(client, .post("/fault/\(key)/503,reset-after,200", body: .json(.object())))
        #expect(response.attempts.count == 3)
        let keys = seen.keys.withLock { $0 }
        #expect(keys.count == 3)
        #expect(Set(keys).count == 1)
        let generated = try #require(keys.first ?? nil)
        #expect(generated.utf8.count == 36)
        // Idempotent methods need no key and get none.
        _ = try await success(client, .get("/fault/\(key)-get/200"))
        #expect(seen.keys.withLock { $0.last! } == nil)
    }

    @Test func retryNonIdempotentOptInRetriesPost() async throws {
        let key = key("optin")
        let client = try client(#""retry": {"maxRetries": 2, "initialDelay": 0.01, "jitter": "none", "retryNonIdempotent": true}"#)
        let response = try await success(client, .post("/fault/\(key)/503,reset-after,200", body: .json(.object())))
        #expect(response.attempts.map(\.status) == [503, 0, 200])
        #expect(response.attempts[1].errorKind == .network)
    }

    @Test func postWithConnectionRefusedIsRetried() async throws {
        let port = try TestServer.closedPort()
        let json = #"{"baseURL": "http://127.0.0.1:\#(port)", \#(Self.fast)}"#
        let client = try Client(config: try GatewayConfig(json: json), randomSeed: 1)
        let error = try await failure(client, .post("/x", body: .json(.object())))
        #expect(error.kind == .connect)
        #expect(error.attempts.count == 4)
        #expect(error.attempts.allSatisfy { $0.bytesSent == 0 && $0.errorKind == .connect && $0.curlCode == 7 })
        #expect(error.attempts[0].decision == "connect failed before the request was sent")
    }

    @Test func resetAfterTheRequestWasSentRetriesGetButNotPost() async throws {
        let client = try client(Self.fast)
        let getKey = key("resetget")
        let response = try await success(client, .get("/fault/\(getKey)/reset-after,200"))
        #expect(response.attempts.map(\.status) == [0, 200])
        let first = response.attempts[0]
        #expect(first.errorKind == .network)
        #expect(first.curlCode != 0)
        #expect(first.bytesSent > 0)
        #expect(first.delayAfter == 0.01)

        let postKey = key("resetpost")
        let error = try await failure(client, .post("/fault/\(postKey)/reset-after,200", body: .json(.object())))
        #expect(error.kind == .network)
        #expect(error.attempts.count == 1)
        #expect(error.attempts[0].bytesSent > 0)
        #expect(error.attempts[0].decision == "POST is not idempotent (network after sending)")
        #expect(try await count(postKey) == 1)
    }

    @Test func postThatMustNotBeRetriedIsNeverResentSilentlyOnAReusedConnection() async throws {
        // libcurl re-sends a request by itself when a kept-alive connection dies before any
        // response byte. A POST without Idempotency-Key therefore gets a new connection.
        let key = key("reuse")
        let client = try client(Self.fast)
        _ = try await success(client, .post("/fault/\(key)/200+keep,reset-after", body: .json(.object())))
        let error = try await failure(client, .post("/fault/\(key)/200+keep,reset-after", body: .json(.object())))
        #expect(error.kind == .network)
        #expect(error.attempts.count == 1)
        #expect(try await count(key) == 2)  // a silent re-send would make it 3
    }

    @Test func resetBeforeReadingAndPartialBodyAreRetriedForGet() async throws {
        let client = try client(Self.fast)
        let key = key("transport")
        let response = try await success(client, .get("/fault/\(key)/reset-before,partial,200"))
        #expect(response.attempts.map(\.status) == [0, 0, 200])
        #expect(response.attempts[0].errorKind == .network)
        #expect(response.attempts[1].errorKind == .network)
        #expect(response.attempts[1].curlCode == 18)  // CURLE_PARTIAL_FILE
        // libcurl wrote the request before the server reset: a POST is not retried then.
        let post = try await failure(client, .post("/fault/\(key)-p/reset-before,200", body: .json(.object())))
        #expect(post.attempts.count == 1)
        #expect(post.attempts[0].bytesSent > 0)
    }

    @Test func stallMidBodyHitsTheAttemptTimeoutAndIsRetried() async throws {
        let key = key("stall")
        let client = try client(Self.fast + #", "timeouts": {"attempt": 0.3}"#)
        let response = try await success(client, .get("/fault/\(key)/stall3000,200"))
        #expect(response.attempts.map(\.status) == [0, 200])
        #expect(response.attempts[0].errorKind == .timeout)
        #expect(response.attempts[0].duration >= 0.25 && response.attempts[0].duration < 2.5)
    }

    @Test func slowHeadersWithinTheAttemptTimeoutSucceed() async throws {
        let response = try await success(try client(#""timeouts": {"attempt": 5}"#), .get("/fault/\(key("delay"))/delay200"))
        #expect(response.attempts.count == 1)
        #expect(response.attempts[0].duration >= 0.19)
    }

    // MARK: 4. Retry-After

    @Test func retryAfterSecondsReplacesTheBackoff() async throws {
        let key = key("ra2")
        let response = try await success(try client(Self.fast), .get("/fault/\(key)/503+ra2,200"))
        #expect(response.attempts.map(\.delayAfter) == [2, nil])
        #expect(response.attempts[1].startOffset >= 2)
        #expect(response.attempts[0].decision == "status 503 is retryable (Retry-After 2s)")
    }

    @Test func retryAfterHTTPDateIsHonoured() async throws {
        let key = key("radate")
        let response = try await success(try client(Self.fast), .get("/fault/\(key)/429+radate2,200"))
        #expect(response.attempts.map(\.status) == [429, 200])
        let delay = try #require(response.attempts[0].delayAfter)
        #expect(delay > 0.5 && delay <= 2.5)  // the date has whole seconds
        #expect(response.attempts[1].startOffset >= delay)
    }

    @Test func retryAfterOfOneDayStopsAtOnce() async throws {
        let key = key("raday")
        let start = MonotonicNow.seconds
        let error = try await failure(try client(Self.fast), .get("/fault/\(key)/503+ra86400,200"))
        #expect(MonotonicNow.seconds - start < 5)
        #expect(error.kind == .httpStatus)
        #expect(error.status == 503)
        #expect(error.attempts.count == 1)
        #expect(error.attempts[0].decision == "Retry-After 86400s exceeds maxRetryAfter 60s")
        #expect(error.response?.headers["Retry-After"] == "86400")
    }

    // MARK: 5. The caller's test may set the delay

    @Test func retryTestSetsTheDelay() async throws {
        let key = key("testdelay")
        let calls = Lock(0)
        var request = Request.post("/fault/\(key)/500,200", body: .json(.object()))
        request.options.retryTest = { outcome in
            calls.withLock { $0 += 1 }
            return outcome.status == 500 ? .retry(after: 0.05) : .usePolicy
        }
        let response = try await success(try client(Self.fast), request)
        #expect(response.attempts.map(\.delayAfter) == [0.05, nil])
        #expect(calls.withLock { $0 } == 1)
    }

    // MARK: 6. Time: deadline between attempts

    @Test func deadlineReachedBetweenAttemptsFailsWithTheLastAttempt() async throws {
        let key = key("deadline")
        let client = try client(#""retry": {"maxRetries": 10, "initialDelay": 0.3, "multiplier": 1, "jitter": "none"}, "timeouts": {"deadline": 0.5}"#)
        let error = try await failure(client, .get("/fault/\(key)/503"))
        // Attempt 1 at ~0, wait 0.3, attempt 2 at ~0.3: the next 0.3 s wait would pass the
        // deadline, so the call fails at once with kind deadline and attempt 2's response
        // (its decision says so: the deadline's timer did not have to end a wait).
        #expect(error.attempts.last?.decision.contains("delay 0.3s exceeds the time left") == true)
        #expect(error.kind == .deadline)
        #expect(error.status == 503)
        #expect(error.attempts.map(\.delayAfter) == [0.3, nil])
        #expect(error.response?.status == 503)
        #expect(try await count(key) == 2)
    }

    @Test func deadlineDuringAnAttemptFailsWithKindDeadline() async throws {
        let key = key("deadline-flight")
        let client = try client(#""timeouts": {"deadline": 0.3}"#)
        let error = try await failure(client, .get("/fault/\(key)/delay3000"))
        #expect(error.kind == .deadline)
        #expect(error.attempts.count == 1)
    }

    // MARK: 7. Cancellation during a pending delay

    @Test func cancelDuringTheDelayCompletesOnceAsCancelledAndSendsNothingMore() async throws {
        let key = key("canceldelay")
        let handle = Lock<CallHandle?>(nil)
        let canceller = AttemptHook { attempt in
            if attempt.number == 1 { handle.withLock { $0 }?.cancel() }
        }
        let client = try client(#""retry": {"maxRetries": 3, "initialDelay": 5, "jitter": "none"}"#, plugins: [canceller])
        let observed = Lock(0)
        client.addFailureObserver { _ in observed.withLock { $0 += 1 } }
        let completions = Lock<[Result<Response, GatewireError>]>([])
        let done = Waiter<Void>()
        let start = MonotonicNow.seconds
        let started = client.start(.get("/fault/\(key)/503")) { result in
            completions.withLock { $0.append(result) }
            done.put(())
        }
        handle.withLock { $0 = started }
        done.wait()
        #expect(MonotonicNow.seconds - start < 4)
        usleep(300_000)  // would a stray attempt or second completion follow?
        let results = completions.withLock { $0 }
        #expect(results.count == 1)
        guard case .failure(let error)? = results.first else { Issue.record("expected a failure"); return }
        #expect(error.kind == .cancelled)
        #expect(error.attempts.count == 1)
        #expect(error.attempts[0].delayAfter == 5)
        #expect(observed.withLock { $0 } == 1)
        #expect(try await count(key) == 1)
    }

    // MARK: 8. Retry budget

    @Test func retryBudgetStopsRetriesWhileTheServerIsDownAndRefills() async throws {
        let down = key("budget")
        let client = try client(#""retry": {"maxRetries": 3, "initialDelay": 0.01, "jitter": "none"}, "retryBudget": {"maxTokens": 4, "tokenRatio": 1}"#)
        // 4 tokens, retries need more than 2. Call 1: 4 -> 3 (retry) -> 2 (stop): 2 attempts.
        let first = try await failure(client, .get("/fault/\(down)/503"))
        #expect(first.attempts.count == 2)
        #expect(first.attempts[1].decision.hasPrefix("the retry budget for 127.0.0.1:\(server.port) is spent"))
        // Call 2: 2 -> 1, no retry; call 3: 1 -> 0, no retry.
        #expect(try await failure(client, .get("/fault/\(down)/503")).attempts.count == 1)
        #expect(try await failure(client, .get("/fault/\(down)/503")).attempts.count == 1)
        #expect(try await count(down) == 4)
        // A call that opts out of the budget still gets its retries.
        var unbudgeted = Request.get("/fault/\(down)-own/503")
        unbudgeted.options.retryBudget = .off
        #expect(try await failure(client, unbudgeted).attempts.count == 4)
        // Successes give back 1 token each: 0 -> 4 after four, and retries resume.
        for _ in 0..<4 { _ = try await success(client, .get("/status/200")) }
        #expect(try await failure(client, .get("/fault/\(down)/503")).attempts.count == 2)
    }

    @Test func retryBudgetWithConnectionRefused() async throws {
        let port = try TestServer.closedPort()
        let json = #"{"baseURL": "http://127.0.0.1:\#(port)", \#(Self.fast), "retryBudget": {"maxTokens": 6, "tokenRatio": 0.5}}"#
        let client = try Client(config: try GatewayConfig(json: json), randomSeed: 1)
        // 6 tokens, threshold 3: call 1 retries at 5, 4 and stops at 3 (3 attempts); later calls 1.
        #expect(try await failure(client, .get("/")).attempts.count == 3)
        #expect(try await failure(client, .get("/")).attempts.count == 1)
        #expect(try await failure(client, .post("/", body: nil)).attempts.count == 1)
    }

    // MARK: 9. Circuit breaker

    /// A 3 s break: long enough that a loaded machine cannot let it pass between two calls
    /// that expect it open (1.5 s once did, under a full parallel run).
    static let breaker = #""retry": {"maxRetries": 0}, "circuitBreaker": {"failureRatio": 0.5, "minimumThroughput": 4, "samplingDuration": 30, "breakDuration": 3}"#

    @Test func breakerOpensFailsFastHalfOpensAndCloses() async throws {
        let key = key("breaker")
        let client = try client(Self.breaker)
        // Closed: 2 successes and 2 failures reach the minimum throughput at a ratio of 0.5.
        _ = try await success(client, .get("/status/200"))
        _ = try await success(client, .get("/status/200"))
        #expect(try await failure(client, .get("/fault/\(key)/503")).kind == .httpStatus)
        #expect(try await failure(client, .get("/fault/\(key)/503")).kind == .httpStatus)
        // Open: calls fail at once, nothing is sent, the observers see circuit_open.
        let open = try await failure(client, .get("/fault/\(key)/503"))
        #expect(open.kind == .circuitOpen)
        #expect(open.status == 0)
        #expect(open.attempts.isEmpty)
        #expect(open.message.contains("circuit breaker for 127.0.0.1:\(server.port) is open"))
        #expect(try await failure(client, .get("/status/200")).kind == .circuitOpen)
        #expect(try await count(key) == 2)
        // Half-open after the break: one trial; a failed trial opens the breaker again.
        usleep(3_100_000)
        #expect(try await failure(client, .get("/fault/\(key)/503")).kind == .httpStatus)
        #expect(try await failure(client, .get("/status/200")).kind == .circuitOpen)
        #expect(try await count(key) == 3)
        // Next break: while the trial runs, other calls still fail fast; its success closes.
        usleep(3_100_000)
        let trialDone = Waiter<Result<Response, GatewireError>>()
        client.start(.get("/fault/\(key)-slow/delay300")) { trialDone.put($0) }
        usleep(100_000)
        let during = try await failure(client, .get("/status/200"))
        #expect(during.kind == .circuitOpen)
        #expect(during.message.contains("a trial call is running"))
        #expect(try trialDone.wait().get().status == 200)
        _ = try await success(client, .get("/status/200"))
        #expect(try await failure(client, .get("/fault/\(key)/503")).kind == .httpStatus)
    }

    /// A half-open breaker's trial that a plugin refuses before sending is given back: the
    /// next call runs the trial instead of failing with "a trial call is running" forever.
    @Test func aTrialAPluginRefusesIsGivenBack() async throws {
        struct Refuser: Plugin {
            struct Refused: Error {}
            func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
                if request.url.hasSuffix("/refused") { throw Refused() }
            }
        }
        let key = key("breakertrial")
        let client = try client(Self.breaker, plugins: [Refuser()])
        for _ in 0..<4 { #expect(try await failure(client, .get("/fault/\(key)/503")).kind == .httpStatus) }
        #expect(try await failure(client, .get("/status/200")).kind == .circuitOpen)
        usleep(3_100_000)  // the break ends: the next call is the trial
        #expect(try await failure(client, .get("/refused")).kind == .plugin)
        _ = try await success(client, .get("/status/200"))  // the trial, which closes the breaker
        _ = try await success(client, .get("/status/200"))
    }

    @Test func breakerIsOffByDefaultAndCanBeTurnedOffPerCallAndPerRoute() async throws {
        let key = key("breakeroff")
        let plain = try client(#""retry": {"maxRetries": 0}"#)
        for _ in 0..<6 { #expect(try await failure(plain, .get("/fault/\(key)/503")).kind == .httpStatus) }

        let routes = #", "routes": {"free": {"method": "GET", "pathPattern": "/status/200", "circuitBreaker": false}}"#
        let client = try client(Self.breaker + routes)
        for _ in 0..<4 { _ = try await failure(client, .get("/fault/\(key)-b/503")) }
        #expect(try await failure(client, .get("/status/200")).kind == .circuitOpen)
        var bypass = Request.get("/status/200")
        bypass.options.circuitBreaker = .off
        _ = try await success(client, bypass)
        _ = try await success(client, Request(route: "free"))
    }

    @Test func breakerRejectsARetryWithCircuitOpen() async throws {
        let key = key("breakerretry")
        let client = try client(#""retry": {"maxRetries": 5, "initialDelay": 0.01, "jitter": "none"}, "circuitBreaker": {"failureRatio": 1, "minimumThroughput": 3, "breakDuration": 5}"#)
        let error = try await failure(client, .get("/fault/\(key)/503"))
        #expect(error.kind == .circuitOpen)
        #expect(error.attempts.map(\.status) == [503, 503, 503])
        #expect(try await count(key) == 3)
    }

    // MARK: 10. Settings: config, route, call

    @Test func routeRetryInheritsTheGatewaysAndCallsOverrideIt() async throws {
        let key = key("route")
        let json = Self.fast + #", "routes": {"once": {"method": "GET", "pathPattern": "/fault/:key/503", "retry": {"maxRetries": 1}}}"#
        let client = try client(json)
        let route = try #require(client.config.routes["once"]?.retryPolicy)
        #expect(route.maxRetries == 1)
        #expect(route.initialDelay == 0.01)
        #expect(route.jitter == .none)
        let error = try await failure(client, Request(route: "once", parameters: ["key": key]))
        #expect(error.attempts.count == 2)
        var request = Request(route: "once", parameters: ["key": key + "-call"])
        request.options.retryPolicy = RetryPolicy(maxRetries: 0)
        #expect(try await failure(client, request).attempts.count == 1)
    }

    @Test func configRejectsBadResilienceSettings() throws {
        func message(_ extra: String) -> String? {
            do {
                _ = try GatewayConfig(json: #"{"baseURL": "http://h", \#(extra)}"#)
                return nil
            } catch { return error.description }
        }
        #expect(message(#""retryBudget": {"maxTokens": 0}"#)?.hasPrefix("retryBudget.maxTokens") == true)
        #expect(message(#""retryBudget": true"#)?.hasPrefix("retryBudget") == true)
        #expect(message(#""circuitBreaker": {"failureRatio": 2}"#)?.hasPrefix("circuitBreaker.failureRatio") == true)
        #expect(message(#""circuitBreaker": {"break": 1}"#) != nil)
        #expect(message(#""retry": {"idempotencyKey": "yes"}"#)?.hasPrefix("retry.idempotencyKey") == true)
        let config = try GatewayConfig(json: #"{"baseURL": "http://h", "retryBudget": {"maxTokens": 8}, "circuitBreaker": false}"#)
        #expect(config.retryBudget == RetryBudget(maxTokens: 8, tokenRatio: 0.1))
        #expect(config.circuitBreaker == .off)
        #expect(try GatewayConfig(baseURL: "http://h").retryBudget == .off)
    }
}

/// Records the `Idempotency-Key` of every attempt's request.
final class KeyRecorder: Plugin {
    let keys = Lock<[String?]>([])
    func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
        let key = request.headers["Idempotency-Key"]
        keys.withLock { $0.append(key) }
    }
}

/// Runs a closure after each attempt (on the loop thread).
struct AttemptHook: Plugin {
    let action: @Sendable (Attempt) -> Void
    func didReceive(_ attempt: Attempt, response: HTTPResponse?, context: PluginContext) { action(attempt) }
}
