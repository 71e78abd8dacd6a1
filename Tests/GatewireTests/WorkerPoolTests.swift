import Gatewire
import Glibc
import Testing

/// Bodies of at least 16 KiB are parsed and mapped on the worker pool; everything after the
/// mapping (plugins' `process`, observers, monitors, the completion) still runs on the
/// client's event-loop thread, exactly once per call, also when the call is cancelled or the
/// client closes while a worker maps.
@Suite(.serialized) struct WorkerPoolTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    static let mappings = #"""
        "mappings": {
          "User": {"attributes": {"id": {"to": "userId", "type": "integer"}, "name": "fullName",
                                  "created": {"to": "createdAt", "type": "date"}},
                   "relationships": {"home": {"to": "home", "mapping": "Place"}}},
          "Place": {"attributes": {"city": "cityName"}}
        },
        "responseDescriptors": [{"mapping": "User", "method": "POST", "pathPattern": "/echo/users", "keyPath": "body"}]
        """#

    func client(plugins: [any Plugin] = []) throws -> Client {
        let config = try GatewayConfig(json: "{\"baseURL\": \"\(server.baseURL)\", \"retry\": {\"maxRetries\": 0}, \(Self.mappings)}")
        return try Client(config: config, plugins: plugins)
    }

    /// A POST whose echoed response carries `count` users under `body` (about 75 bytes each).
    static func users(_ count: Int) throws -> Request {
        var text = "["
        for index in 0..<count {
            if index > 0 { text += "," }
            text += #"{"id": "\#(index)", "name": "User \#(index)", "created": "2024-01-0\#(index % 9 + 1)T10:00:00Z", "home": {"city": "C\#(index % 7)"}}"#
        }
        return .post("/echo/users", body: .json(try JSONValue.parse(text + "]")))
    }

    /// Records the thread of every plugin `process` call.
    struct ThreadRecorder: Plugin {
        let threads: Lock<[pthread_t]>
        func process(_ result: Result<Response, GatewireError>, context: PluginContext) -> Result<Response, GatewireError> {
            threads.withLock { $0.append(pthread_self()) }
            return result
        }
    }

    @Test func largeBodiesMapOnTheWorkersLikeSmallOnesAndFinishOnTheLoopThread() async throws {
        let processThreads = Lock<[pthread_t]>([])
        let client = try client(plugins: [ThreadRecorder(threads: processThreads)])
        let finished = Lock<Int>(0)
        client.addEventMonitor { event in
            if event.kind == .callFinished { finished.withLock { $0 += 1 } }
        }
        for count in [3, 2_000] {  // about 300 bytes (inline) and 150 KB (worker pool)
            let outcome = Waiter<(Result<Response, GatewireError>, Bool, pthread_t)>()
            client.start(try Self.users(count)) { result in
                outcome.put((result, client.isOnEventLoopThread, pthread_self()))
            }
            let (result, onLoop, thread) = outcome.wait()
            let response = try result.get()
            #expect(onLoop)
            #expect(processThreads.withLock { $0.last.map { pthread_equal($0, thread) != 0 } } == true)
            #expect(response.http.body.count > (count > 3 ? 16 * 1024 : 0))
            let users = try #require(response.mapped?.node["body"])
            #expect(users.count == count)
            #expect(users.elements.last?.serialized() == #"{"userId":\#(count - 1),"fullName":"User \#(count - 1)","#
                + #""createdAt":"2024-01-0\#((count - 1) % 9 + 1)T10:00:00.000Z","home":{"cityName":"C\#((count - 1) % 7)"}}"#)
            #expect(response.body?.node["body"]?.count == count)
        }
        #expect(finished.withLock { $0 } == 2)
        #expect(processThreads.withLock { $0.count } == 2)
    }

    /// Starts a call with a large body and returns once its attempt finished (the mapping is
    /// then queued or running on a worker; 20,000 users take well over 50 ms to map).
    func startLargeCall(_ client: Client, results: Lock<[Result<Response, GatewireError>]>,
                        done: Waiter<Void>) throws -> CallHandle {
        let received = Waiter<Void>()
        let token = client.addEventMonitor { event in
            if event.kind == .attemptFinished { received.put(()) }
        }
        let handle = client.start(try Self.users(20_000)) { result in
            results.withLock { $0.append(result) }
            done.put(())
        }
        received.wait()
        client.removeEventMonitor(token)
        usleep(10_000)
        return handle
    }

    @Test func closingWhileAWorkerMapsCompletesTheCallOnce() async throws {
        let client = try client()
        let failures = Lock<[ErrorKind]>([])
        client.addFailureObserver { error in failures.withLock { $0.append(error.kind) } }
        let results = Lock<[Result<Response, GatewireError>]>([])
        let done = Waiter<Void>()
        _ = try startLargeCall(client, results: results, done: done)
        client.close()
        done.wait()
        usleep(300_000)  // the worker's late outcome must not complete the call again
        let all = results.withLock { $0 }
        #expect(all.count == 1)
        switch all.first {
        case .failure(let error)?:
            #expect(error.kind == .cancelled)
            #expect(error.status == 200)  // the response had arrived
            #expect(failures.withLock { $0 } == [.cancelled])
        case .success(let response)?:  // the outcome came back before the close
            #expect(response.mapped?.node["body"]?.count == 20_000)
            #expect(failures.withLock { $0 }.isEmpty)
        case nil:
            Issue.record("no completion")
        }
        let late = await #expect(throws: GatewireError.self) { try await client.send(try Self.users(2_000)) }
        #expect(late?.kind == .cancelled)
    }

    @Test func cancellingWhileAWorkerMapsCompletesOnceAndTheClientGoesOn() async throws {
        let client = try client()
        let results = Lock<[Result<Response, GatewireError>]>([])
        let done = Waiter<Void>()
        let handle = try startLargeCall(client, results: results, done: done)
        handle.cancel()
        handle.cancel()
        done.wait()
        usleep(300_000)
        let all = results.withLock { $0 }
        #expect(all.count == 1)
        if case .failure(let error)? = all.first { #expect(error.kind == .cancelled) }
        // The pool keeps serving the client after the dropped outcome.
        let next = try await client.send(try Self.users(2_000))
        #expect(next.mapped?.node["body"]?.count == 2_000)
        client.close()
    }

    @Test func deadlinePassingWhileAWorkerMapsCompletesOnce() async throws {
        let client = try client()
        let results = Lock<[Result<Response, GatewireError>]>([])
        let done = Waiter<Void>()
        var request = try Self.users(20_000)
        let started = MonotonicNow.seconds
        // Long enough for the exchange, too short for the mapping of 20,000 users in most
        // runs; either way the call completes once.
        request.options.timeouts = Timeouts(deadline: 0.15)
        client.start(request) { result in
            results.withLock { $0.append(result) }
            done.put(())
        }
        done.wait()
        usleep(300_000)
        let all = results.withLock { $0 }
        #expect(all.count == 1)
        if case .failure(let error)? = all.first { #expect(error.kind == .deadline) }
        #expect(MonotonicNow.seconds - started < 5)
        client.close()
    }

    @Test func clientsOneAfterAnotherStartAndStopThePool() async throws {
        for _ in 0..<4 {
            let client = try client()
            let response = try await client.send(try Self.users(500))
            #expect(response.mapped?.node["body"]?.count == 500)
            client.close()
        }
        // Two clients share the pool; closing one leaves it to the other.
        let first = try client()
        let second = try client()
        _ = try await first.send(try Self.users(500))
        _ = try await second.send(try Self.users(500))
        first.close()
        let response = try await second.send(try Self.users(500))
        #expect(response.mapped?.node["body"]?.count == 500)
        second.close()
        // A mapped tree outliving the pool is released in place.
        #expect(response.body?.node["body"]?.count == 500)
    }

    /// A release handed to a worker runs on that worker's own thread (whose malloc arena holds
    /// what the worker built), not on the thread that hands it over.
    @Test func aReleaseRunsOnItsWorkersThread() {
        let pool = WorkerPool.lease()
        defer { WorkerPool.returnLease(pool) }
        let job = Waiter<(worker: Int, thread: pthread_t)>()
        pool.submit { worker in job.put((worker, pthread_self())) }
        let ran = job.wait()
        let released = Waiter<pthread_t>()
        #expect(pool.release(on: ran.worker) { released.put(pthread_self()) })
        let releasedOn = released.wait()
        #expect(pthread_equal(releasedOn, ran.thread) != 0)
        #expect(pthread_equal(releasedOn, pthread_self()) == 0)
    }
}
