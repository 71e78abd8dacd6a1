import Gatewire
import Glibc
import Synchronization
import Testing

/// Connection limits and HTTP/2 multiplexing, counted on the server side: a counted private
/// nginx (`Tests/support/nginx_h2.py --counted`) logs each request's connection, so a test
/// knows how many connections its client opened. No timing is asserted: every bound is a
/// count, and every call must complete.
@Suite(.serialized) struct ConnectionLimitTests {
    /// nginx's `http2_max_concurrent_streams` here: below the client's default of 100, so the
    /// server's limit is the one that binds.
    static let serverStreams = 64
    let server: NginxH2Server

    init() throws { server = try NginxH2Server(counted: true, maxStreams: Self.serverStreams) }

    func client(_ baseURL: String, _ extra: String = "") throws -> Client {
        try Client(config: GatewayConfig(json: #"""
            {"baseURL": "\#(baseURL)", "caFile": "\#(server.certificatePath)", "retry": {"maxRetries": 0}\#(extra)}
            """#))
    }

    /// Sends `count` calls at once; returns each one's HTTP version (a failure throws).
    func sendAll(_ client: Client, count: Int) async throws -> [String] {
        try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<count {
                group.addTask {
                    let response = try await client.send(.get("/echo/\(index)"))
                    #expect(response.status == 200)
                    #expect(try JSONValue.parse(response.http.text).node["uri"]?.string == "/echo/\(index)")
                    return response.http.httpVersion
                }
            }
            var versions: [String] = []
            for try await version in group { versions.append(version) }
            return versions
        }
    }

    /// As many calls as one connection takes streams wait for the first connection
    /// (`CURLOPT_PIPEWAIT`) and share it; without the wait each would open its own.
    @Test func callsUpToTheStreamLimitShareOneConnection() async throws {
        let versions = try await sendAll(try client(server.baseURL), count: Self.serverStreams)
        #expect(versions.count == Self.serverStreams)
        #expect(versions.allSatisfy { $0 == "2" })
        #expect(try server.connections(port: server.port) == 1)
    }

    /// 1,024 calls in flight under a per-host limit: every call completes over HTTP/2, on no
    /// more connections than the limit, itself below 1,024 / the server's stream limit.
    /// (The server allows fewer streams than the client's 100, so libcurl puts the excess on
    /// new connections, which the per-host limit bounds: see ``ConnectionLimits``.)
    @Test func calls1024InFlightOverTLSUseNoMoreConnectionsThanCountOverStreams() async throws {
        let limited = try client(server.baseURL, #", "maxConnectionsPerHost": 4"#)
        let versions = try await sendAll(limited, count: 1024)
        #expect(versions.count == 1024)
        #expect(versions.allSatisfy { $0 == "2" })
        let connections = try server.connections(port: server.port)
        #expect(connections >= 1)
        #expect(connections <= 4)
        #expect(connections <= 1024 / Self.serverStreams)
    }

    /// Prior knowledge speaks HTTP/2 to a cleartext port that speaks nothing else (libcurl
    /// 7.88 opens a connection per call there: ``PriorKnowledgeReuse``).
    @Test func priorKnowledgeSpeaksH2C() async throws {
        let h2c = try client(server.h2cBaseURL, #", "http2": {"priorKnowledge": true}"#)
        let versions = try await sendAll(h2c, count: 64)
        #expect(versions.count == 64)
        #expect(versions.allSatisfy { $0 == "2" })
        let port = Int(server.h2cBaseURL.split(separator: ":").last!)!
        #expect(try server.connections(port: port) >= 1)
        #expect(try server.connections(port: port) <= 64)
        // Without prior knowledge the client speaks HTTP/1.1, which an h2c-only port refuses.
        let plain = try client(server.h2cBaseURL)
        let error = await #expect(throws: GatewireError.self) { try await plain.send(.get("/protocol")) }
        #expect(error?.kind == .protocolViolation)
    }

    @Test func calls1000WithEightConnectionsPerHostOpenAtMostEight() async throws {
        let limited = try client(server.http1BaseURL, #", "maxConnectionsPerHost": 8"#)
        let versions = try await sendAll(limited, count: 1000)
        #expect(versions.count == 1000)
        #expect(versions.allSatisfy { $0 == "1.1" })
        let port = Int(server.http1BaseURL.split(separator: ":").last!)!
        let connections = try server.connections(port: port)
        #expect(connections >= 1)
        #expect(connections <= 8)
    }

    @Test func theConfigReadsTheLimitsAndRejectsBadOnes() throws {
        let defaults = try GatewayConfig(json: #"{"baseURL": "http://127.0.0.1"}"#)
        #expect(defaults.connectionLimits == ConnectionLimits())
        #expect(defaults.connectionLimits.maxConnections == 100)
        #expect(defaults.connectionLimits.maxConnectionsPerHost == 0)
        #expect(defaults.connectionLimits.maxConcurrentStreams == 100)
        #expect(!defaults.http2PriorKnowledge)
        let set = try GatewayConfig(json: #"""
            {"baseURL": "http://127.0.0.1", "maxConnectionsPerHost": 8, "maxConnections": 0,
             "http2": {"maxConcurrentStreams": 250, "priorKnowledge": true}}
            """#)
        #expect(set.connectionLimits.maxConnectionsPerHost == 8)
        #expect(set.connectionLimits.maxConnections == 0)
        #expect(set.connectionLimits.maxConcurrentStreams == 250)
        #expect(set.http2PriorKnowledge)
        #expect(configError(#"{"baseURL": "http://h", "maxConnections": -1}"#)?.path == "maxConnections")
        #expect(configError(#"{"baseURL": "http://h", "maxConnectionsPerHost": 1.5}"#)?.path == "maxConnectionsPerHost")
        #expect(configError(#"{"baseURL": "http://h", "http2": {"maxConcurrentStreams": 0}}"#)?.path
            == "http2.maxConcurrentStreams")
        #expect(configError(#"{"baseURL": "http://h", "http2": {"streams": 5}}"#)?.path == "http2.streams")
        #expect(configError(#"{"baseURL": "http://h", "http2": {"priorKnowledge": 1}}"#)?.path == "http2.priorKnowledge")
    }
}

/// Calls beyond a connection limit wait in the queue, the wait counts against the deadline,
/// and the attempt record says how long it was (against the scripted test server's `/delay`).
@Suite(.serialized) struct ConnectionQueueTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    func client(_ extra: String, perHost: Int = 1) throws -> Client {
        try Client(config: GatewayConfig(json: #"""
            {"baseURL": "\#(server.baseURL)", "maxConnectionsPerHost": \#(perHost), "retry": {"maxRetries": 0}\#(extra)}
            """#))
    }

    /// With one connection, the second of two calls that each hold it for 1 s waits nearly
    /// that long before it starts (the server sleeps at least 1 s; the two calls start at
    /// nearly the same time: 200 ms of room for a loaded machine to start the second).
    @Test func theAttemptRecordSaysHowLongACallQueued() async throws {
        let client = try client("")
        async let first = client.send(.get("/delay/1000"))
        async let second = client.send(.get("/delay/1000"))
        let responses = try await [first, second]
        let queued = responses.map { $0.attempts[0].timings.queued }.sorted()
        #expect(responses.allSatisfy { $0.status == 200 })
        #expect(queued[1] >= 0.8)
        #expect(queued[1] > queued[0])
        #expect(responses[0].attempts[0].json.node["timings"]?["queued"]?.number == responses[0].attempts[0].timings.queued)
    }

    /// Both calls would take 3 s on the one connection; a 0.5 s deadline ends both, the one
    /// waiting for the connection too: its attempt was the wait (it may get the connection
    /// the first one's end freed, and be ended as it is sent).
    @Test func aDeadlineShorterThanTheQueueWaitFailsTheQueuedCall() async throws {
        let client = try client(#", "timeouts": {"deadline": 0.5}"#)
        async let first = failure(of: client.send(.get("/delay/3000")))
        async let second = failure(of: client.send(.get("/delay/3000")))
        let failures = await [first, second].compactMap { $0 }
        #expect(failures.map(\.kind) == [.deadline, .deadline])
        let attempts = failures.compactMap { $0.attempts.first }.sorted { $0.timings.queued < $1.timings.queued }
        #expect(attempts.count == 2)
        #expect(attempts.first.map { $0.timings.queued < 0.1 } == true)
        #expect(attempts.last.map { $0.timings.queued > 0.25 } == true)
        #expect(attempts.last?.bytesSent == 0)
    }

    /// Idle connections stay open for the next calls, however few run at once: eight calls
    /// that overlap (each held 1 s by the server) open eight connections; a lone call then
    /// reuses one, and eight more reuse all eight, none opened again. (libcurl's own cache
    /// size, four per transfer it has, would close one of the eight when the lone call ended,
    /// because the loop's queue hands libcurl only the transfers that run.) A new connection
    /// is one whose attempt has a connect time; a reused one has none (``TransferTimings``).
    @Test func idleConnectionsStayOpenWhileFewerCallsRun() async throws {
        let client = try client("", perHost: 8)
        func opened(_ count: Int, path: String) async throws -> Int {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<count {
                    group.addTask {
                        let response = try await client.send(.get(path))
                        #expect(response.status == 200)
                        return response.attempts[0].timings.connect > 0
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        #expect(try await opened(8, path: "/delay/1000") == 8)
        #expect(try await opened(1, path: "/echo") == 0)
        #expect(try await opened(8, path: "/delay/1000") == 0)
    }

    /// An attempt timeout ends a call still waiting for the connection when it passes, not
    /// when the connection frees up (libcurl 7.88 checks a queued transfer's timeout only
    /// then; the event loop's sweep does it): the queued call fails as `connect`, never sent,
    /// its attempt all wait, while the call on the connection goes on.
    ///
    /// The premise is that the holder keeps the connection for 2 s. A round whose holder's
    /// attempt ended before the queued call's 0.3 s could pass (a loaded machine's test server
    /// failing or closing it early) proves nothing either way and is run again, at most three
    /// times; a holder that ended later never excuses a queued call that was not ended.
    @Test func anAttemptTimeoutEndsAQueuedCallWhileItWaits() async throws {
        for round in 1...3 {
            let client = try client("")
            let started = Flag()
            let holderEnded = Mutex<Double?>(nil)
            let token = client.addEventMonitor { event in
                guard event.path == "/delay/2000" else { return }
                if event.kind == .attemptStarted { started.value.withLock { $0 = true } }
                if event.kind == .attemptFinished { holderEnded.withLock { $0 = MonotonicClock.now() } }
            }
            defer { _ = client.removeEventMonitor(token) }
            async let holder = client.send(.get("/delay/2000"))
            // The holder's transfer is handed to libcurl right after its attempt_started event,
            // on the loop thread, before any later call's: it takes the one connection.
            for _ in 0..<1000 where !started.value.withLock({ $0 }) { try await Task.sleep(nanoseconds: 10_000_000) }
            #expect(started.value.withLock { $0 })
            var request = Request.get("/delay/10")
            request.options.timeouts = Timeouts(attempt: 0.3)
            let waiting = request
            let sentAt = MonotonicClock.now()
            let outcome = await failure(of: try await client.send(waiting))
            let waited = MonotonicClock.now() - sentAt
            // The holder's end, awaited before the checks, so that a failure says what became of it.
            let held: String
            do { held = "answered \(try await holder.status)" } catch { held = "failed: \(error)" }
            if outcome == nil, round < 3, let ended = holderEnded.withLock({ $0 }), ended < sentAt + 0.3 {
                continue  // the holder let go of the connection before the premise held
            }
            #expect(held == "answered 200")
            let error = try #require(outcome, "the queued call succeeded after \(waited) s; the holder \(held)")
            #expect(error.kind == .connect)
            #expect(error.message.contains("no connection became free within the attempt timeout (0.3 s)"))
            #expect(error.attempts.count == 1)
            #expect(error.attempts.first?.bytesSent == 0)
            #expect(error.attempts.first.map { $0.timings.queued > 0 } == true)
            return
        }
    }
}

extension ConnectionQueueTests {
    /// A queued call whose attempt timeout passed just before the connection freed up is not
    /// sent with what is left of its timeout (nothing): the loop ends expired waits in a sweep
    /// every 0.1 s, and a connection that frees up between a wait's expiry and the next sweep
    /// must not carry the request. The queued call starts from the holder's `attemptStarted`
    /// monitor, on the loop thread, so it waits from the holder's start on; its timeout
    /// (0.35 s) passes halfway between two sweeps, and the holder lets go of the one connection
    /// (0.37 s) before the next, so most rounds fall in that gap; on a loaded machine the
    /// holder ends later and the sweep ends the wait. Either way the call fails as `connect`,
    /// never sent: the holder's 0.37 s are longer than its timeout.
    @Test func aQueuedCallPastItsTimeoutIsNotSentWhenTheConnectionFreesUp() async throws {
        let client = try client("")
        var request = Request.get("/delay/10")
        request.options.timeouts = Timeouts(attempt: 0.35)
        let waiting = request
        for _ in 0..<6 {
            let outcome = Mutex<Result<Response, GatewireError>?>(nil)
            let token = client.addEventMonitor { [weak client] event in
                guard event.kind == .attemptStarted, event.path == "/delay/370", let client else { return }
                client.start(waiting) { result in outcome.withLock { $0 = result } }
            }
            let holder = try await client.send(.get("/delay/370"))
            _ = client.removeEventMonitor(token)
            #expect(holder.status == 200)
            for _ in 0..<1000 where outcome.withLock({ $0 == nil }) { try await Task.sleep(nanoseconds: 10_000_000) }
            guard case .failure(let error)? = outcome.withLock({ $0 }) else {
                Issue.record("the queued call did not fail: \(String(describing: outcome.withLock { $0 }))")
                continue
            }
            #expect(error.kind == .connect, "\(error.message)")
            #expect(error.message.contains("no connection became free within the attempt timeout (0.35 s)"))
            #expect(error.attempts.first?.bytesSent == 0)
        }
    }
}

/// The error `call` fails with, or nil when it succeeds.
private func failure(of call: @autoclosure @Sendable () async throws -> Response) async -> GatewireError? {
    do {
        _ = try await call()
        return nil
    } catch let error as GatewireError {
        return error
    } catch {
        Issue.record("not a GatewireError: \(error)")
        return nil
    }
}

/// A flag one thread sets and another reads.
private final class Flag: Sendable {
    let value = Mutex(false)
}
