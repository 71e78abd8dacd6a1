import Gatewire
import Synchronization
import Testing

/// Upload and download progress (``CallOptions/onProgress``) with a call's events
/// (``CallOptions/onEvent``), and the deprecated ``CallTask``, against httpbin's `/drip` (a slow download) and the scripted
/// test server (an upload, a retried call). Counts are asserted with slack, never timings.
@Suite(.serialized) struct ProgressTests {
    /// The scripted test server, stopped with the suite's instance (``TestServer``).
    let server: TestServer

    init() throws { server = try TestServer() }

    /// The reports one handler saw, in order.
    final class Reports: Sendable {
        private let list = Mutex<[TransferProgress]>([])
        func add(_ progress: TransferProgress) { list.withLock { $0.append(progress) } }
        var all: [TransferProgress] { list.withLock { $0 } }
    }

    func watched(_ request: Request) -> (Request, Reports) {
        var request = request
        let reports = Reports()
        request.options.onProgress = { reports.add($0) }
        return (request, reports)
    }

    @Test func aSlowDownloadReportsSeveralTimesMonotonicallyEndingAtItsSize() async throws {
        let httpbin = try HTTPBinServer()
        defer { httpbin.stop() }
        let client = try Client(baseURL: httpbin.baseURL)
        defer { client.close() }
        // 40 bytes over 2 s: a byte every 50 ms, so the reports are throttled, not the bytes.
        let (request, reports) = watched(.get("/drip", parameters: ["numbytes": "40", "duration": "2", "delay": "0"]))
        let response = try await client.send(request)
        #expect(response.http.body.count == 40)
        let all = reports.all
        let received = all.map(\.bytesReceived)
        #expect(all.count >= 4, "a 2 s download gives several reports: \(received)")
        #expect(all.count <= 2 * 10 + 1 + 5, "at most ten a second, plus the final (slack 5): \(all.count)")
        #expect(received == received.sorted(), "monotonic: \(received)")
        #expect(all.filter(\.isFinal).count == 1)
        #expect(all.last?.isFinal == true)
        #expect(all.last?.bytesReceived == 40)
        #expect(all.last?.bytesToReceive == 40)
        #expect(all.allSatisfy { $0.attempt == 1 })
    }

    @Test func anUploadReportsMonotonicallyEndingAtTheBodysSize() async throws {
        let client = try Client(baseURL: server.baseURL)
        defer { client.close() }
        let size = 4 * 1024 * 1024
        let body = [UInt8](repeating: 0x61, count: size)
        let (request, reports) = watched(.post("/fault/upload/200", body: .bytes(body, contentType: "text/plain")))
        let response = try await client.send(request)
        #expect(response.status == 200)
        let all = reports.all
        let sent = all.map(\.bytesSent)
        #expect(sent == sent.sorted(), "monotonic: \(sent)")
        #expect(all.last?.isFinal == true)
        #expect(all.last?.bytesSent == Int64(size))
        #expect(all.last?.bytesToSend == Int64(size))
        #expect(all.dropLast().allSatisfy { $0.bytesToSend == nil || $0.bytesToSend == Int64(size) })
    }

    @Test func aRetriedCallReportsEachAttemptWithOneFinalReportEach() async throws {
        let client = try Client(baseURL: server.baseURL)
        defer { client.close() }
        var (request, reports) = watched(.get("/fault/retried/503,503,200"))
        request.options.retryPolicy = RetryPolicy(maxRetries: 3, initialDelay: 0.01, jitter: .none)
        let response = try await client.send(request)
        #expect(response.attempts.count == 3)
        let finals = reports.all.filter(\.isFinal)
        #expect(finals.map(\.attempt) == [1, 2, 3])
        let bodies = response.attempts.map(\.bytesReceived)
        #expect(finals.map(\.bytesReceived) == bodies, "each attempt's final count is its body: \(bodies)")
        #expect(reports.all.map(\.attempt) == reports.all.map(\.attempt).sorted())
    }

    @Test func anAttemptThatFollowsRedirectsHasOneFinalReportItsLastHops() async throws {
        let client = try Client(baseURL: server.baseURL)
        defer { client.close() }
        let (request, reports) = watched(.get("/redirect/2"))
        let response = try await client.send(request)
        #expect(response.attempts.count == 1)
        #expect(response.attempts.first?.redirects.count == 2)
        let finals = reports.all.filter(\.isFinal)
        #expect(finals.count == 1)
        #expect(finals.first?.bytesReceived == Int64(response.http.body.count))
    }

    @Test func aCallWithoutAHandlerReportsNothingToAnotherCallsHandler() async throws {
        let client = try Client(baseURL: server.baseURL)
        defer { client.close() }
        let (watchedRequest, reports) = watched(.get("/bytes/1000"))
        _ = try await client.send(watchedRequest)
        let seen = reports.all.count
        #expect(seen >= 1)
        _ = try await client.send(.get("/bytes/100000"))
        #expect(reports.all.count == seen)
    }

    @Test func aCallsEventsAndProgressComeInOrderWithTheRetryDelay() async throws {
        let client = try Client(baseURL: server.baseURL)
        defer { client.close() }
        var request = Request.get("/fault/task/503,200")
        request.options.retryPolicy = RetryPolicy(maxRetries: 1, initialDelay: 0.05, jitter: .none)
        let seen = Mutex<(names: [String], delays: [Double], reasons: [String])>(([], [], []))
        request.options.onEvent = { event in
            seen.withLock { seen in
                seen.names.append(event.kind.rawValue)
                if let delay = event.delay {
                    seen.delays.append(delay)
                    seen.reasons.append(event.reason ?? "nil")
                }
            }
        }
        request.options.onProgress = { progress in
            if progress.isFinal { seen.withLock { $0.names.append("final \(progress.attempt)") } }
        }
        let response = try await client.send(request)
        let (names, delays, reasons) = seen.withLock { $0 }
        #expect(names == ["call_started", "attempt_started", "final 1", "attempt_finished", "retry_scheduled",
                          "attempt_started", "final 2", "attempt_finished", "call_finished"])
        #expect(delays == [0.05])
        #expect(reasons.count == 1 && reasons[0].contains("503"), "the retry decision: \(reasons)")
        #expect(response.status == 200)
        #expect(response.attempts.count == 2)
    }

    @available(*, deprecated, message: "tests the deprecated CallTask")
    @Test func aCallTaskThatCannotBeBuiltEndsItsEventsAndThrows() async throws {
        let client = try Client(baseURL: "http://127.0.0.1:9")
        defer { client.close() }
        let call = client.start(Request(route: "missing"))
        var count = 0
        for await _ in call.events { count += 1 }
        #expect(count == 0)
        await #expect(throws: GatewireError.self) { try await call.result }
    }

    @available(*, deprecated, message: "tests the deprecated CallTask")
    @Test func cancellingACallTaskCancelsTheCall() async throws {
        let client = try Client(baseURL: server.baseURL)
        defer { client.close() }
        let call = client.start(.get("/delay/5000"))
        call.cancel()
        do {
            _ = try await call.result
            Issue.record("a cancelled call succeeded")
        } catch {
            #expect(error.kind == .cancelled)
        }
    }
}
