import Gatewire
import Synchronization
import Testing

/// The event loop's admission queue, counted on the server side: with the default config,
/// 1,024 HTTP/2 calls in flight open no more connections than they need at the server's
/// stream limit, and a call that waits in the queue never reaches libcurl, so a cancel or a
/// deadline ends it before the server sees it. No timing is asserted.
@Suite(.serialized) struct AdmissionQueueHTTP2Tests {
    /// nginx's `http2_max_concurrent_streams`: the client's default `maxConcurrentStreams`,
    /// so the two agree on what one connection carries (libcurl 7.88 does not say what the
    /// server announced; the queue uses the config's value).
    static let serverStreams = 100
    let server: NginxH2Server

    init() throws { server = try NginxH2Server(counted: true, maxStreams: Self.serverStreams) }

    /// Without the queue, libcurl 7.88 opened up to `maxConnections` (100) connections here:
    /// once the first was full, every call added opened its own.
    @Test func calls1024InFlightWithTheDefaultConfigOpenNoMoreConnectionsThanCountOverStreams() async throws {
        let client = try Client(config: GatewayConfig(json: #"""
            {"baseURL": "\#(server.baseURL)", "caFile": "\#(server.certificatePath)", "retry": {"maxRetries": 0}}
            """#))
        let count = 1024
        let versions = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<count {
                group.addTask {
                    let response = try await client.send(.get("/echo/\(index)"))
                    #expect(try JSONValue.parse(response.http.text).node["uri"]?.string == "/echo/\(index)")
                    return response.http.httpVersion
                }
            }
            var versions: [String] = []
            for try await version in group { versions.append(version) }
            return versions
        }
        #expect(versions.count == count)
        #expect(versions.allSatisfy { $0 == "2" })
        let connections = try server.connections(port: server.port)
        #expect(connections >= 1)
        #expect(connections <= (count + Self.serverStreams - 1) / Self.serverStreams)  // 11
    }
}

/// A call waiting in the queue (one connection, held by another call) against the scripted
/// test server, whose `/sequence/<key>/count` says how often the server saw a key.
@Suite(.serialized) struct AdmissionQueueWaitTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    /// A client with one connection, and a call that holds it for 5 s (room for a slow machine,
    /// TSan's included, to start the next call well within it), started (its transfer
    /// handed to libcurl) before this returns; `holderEnded`: when its attempt ended, if it has.
    func clientWithTheConnectionHeld() async throws
        -> (client: Client, holder: Task<Response, any Error>, holderEnded: Moment) {
        let client = try Client(config: GatewayConfig(json: #"""
            {"baseURL": "\#(server.baseURL)", "maxConnectionsPerHost": 1, "retry": {"maxRetries": 0}}
            """#))
        let started = Mutex(false)
        let ended = Moment()
        _ = client.addEventMonitor { event in
            guard event.path == "/delay/5000" else { return }
            if event.kind == .attemptStarted { started.withLock { $0 = true } }
            if event.kind == .attemptFinished { ended.value.withLock { $0 = MonotonicClock.now() } }
        }
        let holder = Task { try await client.send(.get("/delay/5000")) }
        for _ in 0..<1000 where !started.withLock({ $0 }) { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(started.withLock { $0 })
        return (client, holder, ended)
    }

    /// How many requests for `key` the server has seen.
    func seen(_ client: Client, key: String) async throws -> Double? {
        try await JSONValue.parse(client.send(.get("/sequence/\(key)/count")).http.text).node["count"]?.number
    }

    @Test func aQueuedCallCancelledBeforeAdmissionNeverReachesTheServer() async throws {
        let (client, holder, _) = try await clientWithTheConnectionHeld()
        let outcome = Mutex<Result<Response, GatewireError>?>(nil)
        let handle = client.start(.get("/sequence/queued-cancel/200")) { result in outcome.withLock { $0 = result } }
        handle.cancel()
        #expect(try await holder.value.status == 200)
        let result = try #require(outcome.withLock { $0 })
        guard case .failure(let error) = result else {
            Issue.record("the cancelled call succeeded")
            return
        }
        #expect(error.kind == .cancelled)
        #expect(error.attempts.count == 1)
        #expect(error.attempts.first?.bytesSent == 0)
        #expect(error.attempts.first.map { $0.timings.queued > 0 } == true)
        #expect(try await seen(client, key: "queued-cancel") == 0)
    }

    @Test func aQueuedCallWithAnInfiniteAttemptTimeoutRunsWithoutLimit() async throws {
        let (client, holder, _) = try await clientWithTheConnectionHeld()
        var request = Request.get("/sequence/queued-infinite/200")
        request.options.timeouts = Timeouts(attempt: .infinity)
        let queued = try await client.send(request)  // admitted when the holder lets go
        #expect(queued.status == 200)
        #expect(try await holder.value.status == 200)
    }

    /// The premise is that the holder keeps the connection for 5 s. A round whose holder's
    /// attempt ended before the queued call's deadline (a loaded machine's test server failing
    /// or closing it early) proves nothing either way and is run again, at most three times.
    @Test func aDeadlineFailsACallStillInTheQueueWithItsQueuedTime() async throws {
        for round in 1...3 {
            let (client, holder, holderEnded) = try await clientWithTheConnectionHeld()
            let key = "queued-deadline-\(round)"
            var request = Request.get("/sequence/\(key)/200")
            request.options.timeouts = Timeouts(deadline: 0.3)
            let waiting = request
            let sentAt = MonotonicClock.now()
            var outcome: GatewireError?
            do {
                _ = try await client.send(waiting)
            } catch let failure {
                outcome = failure
            }
            // The holder's end, awaited before the checks, so that a failure says what became of it.
            let held: String
            do { held = "answered \(try await holder.value.status)" } catch { held = "failed: \(error)" }
            if outcome == nil, round < 3, let ended = holderEnded.value.withLock({ $0 }), ended < sentAt + 0.3 {
                continue  // the holder let go of the connection before the premise held
            }
            let error = try #require(outcome, "the call past its deadline succeeded; the holder \(held)")
            #expect(error.kind == .deadline)
            #expect(error.attempts.count == 1)
            #expect(error.attempts.first?.bytesSent == 0)
            // It waited from its start to its deadline (0.3 s) behind the holder's 5 s.
            #expect(error.attempts.first.map { $0.timings.queued > 0.25 } == true)
            #expect(held == "answered 200")
            #expect(try await seen(client, key: key) == 0)
            return
        }
    }
}

/// The queue's turns across origins, at the transport: with the default limits (100
/// connections in all), 99 transfers hold their connections to 127.0.0.1 (`/delay`), a quick
/// one frees its place, and ten more to 127.0.0.1, then one to 127.0.0.2 (another origin of
/// the same server), wait for it. The waiting ones share that one place, each handed over when
/// the one before it has ended, so the order they complete in is the order the queue chose.
/// No timing is asserted.
@Suite(.serialized) struct AdmissionQueueTurnTests {
    /// The names of the transfers in the order they completed ("NAME failed" for a failure).
    final class CompletionOrder: Sendable {
        private let names = Mutex<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    let server: TestServer

    init() throws { server = try TestServer() }

    @Test func aBurstToOneOriginDelaysAnotherOriginsTransferByOneTurn() async throws {
        let loop = EventLoop()
        defer { loop.shutdown() }
        let order = CompletionOrder()
        func transfer(_ url: String, _ name: String) -> Transfer {
            Transfer(request: HTTPRequest(method: .get, url: url), options: TransferOptions()) { result in
                order.add(result.response?.status == 200 ? name : "\(name) failed")
            }
        }
        let holders = (1..<ConnectionLimits().maxConnections).map { transfer(server.baseURL + "/delay/60000", "holder \($0)") }
        let quick = transfer(server.baseURL + "/echo/quick", "quick")
        let burst = (0..<10).map { transfer(server.baseURL + "/echo/a\($0)", "a\($0)") }
        let other = transfer("http://127.0.0.2:\(server.port)/echo/b", "b")
        // One job, so every transfer has been admitted or queued before libcurl runs any.
        let all = holders + [quick] + burst + [other]
        _ = loop.execute { for transfer in all { loop.start(transfer) } }
        for _ in 0..<3000 where order.all.count < 12 { try await Task.sleep(nanoseconds: 10_000_000) }
        // The burst's origin waited first and has the first turn; the other origin the next.
        // The first twelve: on a machine slow enough, holders may end before the check.
        #expect(Array(order.all.prefix(12)) == ["quick", "a0", "b", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"])
    }
}

/// When something happened (``MonotonicClock``), once it has.
final class Moment: Sendable {
    let value = Mutex<Double?>(nil)
}
