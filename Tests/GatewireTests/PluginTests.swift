import Gatewire
import Glibc
import Testing

/// Plugins, global failure observers, event monitors and the refreshing credential, end to
/// end against the scripted test server on 127.0.0.1.
@Suite(.serialized) struct PluginTests {
    let server: TestServer

    init() throws { server = try TestServer() }

    func key(_ name: String) -> String { "\(name)-\(getpid())-\(Int(MonotonicNow.seconds * 1e6))" }

    /// A thread-safe list for what callbacks record.
    final class Recorder<T: Sendable>: Sendable {
        private let items = Lock<[T]>([])
        func add(_ item: T) { items.withLock { $0.append(item) } }
        var all: [T] { items.withLock { $0 } }
    }

    struct Tracer: Plugin {
        let name: String
        let log: Recorder<String>
        func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
            log.add("\(name).prepare#\(context.attempt)")
        }
        func willSend(_ request: HTTPRequest, context: PluginContext) { log.add("\(name).willSend#\(context.attempt)") }
        func didReceive(_ attempt: Attempt, response: HTTPResponse?, context: PluginContext) {
            log.add("\(name).didReceive#\(attempt.number)")
        }
        func process(_ result: Result<Response, GatewireError>, context: PluginContext) -> Result<Response, GatewireError> {
            log.add("\(name).process")
            return result
        }
    }

    /// Slack-style APIs answer 200 with `{"ok": false, "error": "..."}`.
    struct OkFieldPlugin: Plugin {
        func process(_ result: Result<Response, GatewireError>, context: PluginContext) -> Result<Response, GatewireError> {
            guard case .success(let response) = result, let body = try? JSONValue.parse(response.http.text),
                  body.node["ok"]?.bool == false else { return result }
            return .failure(response.failure(message: "API error: \(body.node["error"]?.string ?? "?")"))
        }
    }

    func rotate(_ realm: String) async throws -> String {
        let response = try await Client(baseURL: server.baseURL).send(Request(.post, "/auth/\(realm)/rotate"))
        return try #require(JSONValue.parse(response.http.text).node["token"]?.string)
    }

    @Test func hookOrderIsAnOnionAcrossAttempts() async throws {
        let log = Recorder<String>()
        let config = try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "retry": {"maxRetries": 2, "initialDelay": 0.01, "jitter": "none"}}"#)
        let client = try Client(config: config, plugins: [Tracer(name: "A", log: log), Tracer(name: "B", log: log)])
        let response = try await client.send(.get("/sequence/\(key("order"))/503,200"))
        #expect(response.status == 200)
        #expect(log.all == ["A.prepare#1", "B.prepare#1", "A.willSend#1", "B.willSend#1", "B.didReceive#1", "A.didReceive#1",
                            "A.prepare#2", "B.prepare#2", "A.willSend#2", "B.willSend#2", "B.didReceive#2", "A.didReceive#2",
                            "B.process", "A.process"])
    }

    @Test func processTurnsAnOkFalseBodyIntoAFailureThatObserversSee() async throws {
        let client = try Client(baseURL: server.baseURL, plugins: [OkFieldPlugin()])
        let seen = Recorder<ErrorKind>()
        client.addFailureObserver { seen.add($0.kind) }
        await #expect(throws: GatewireError.self) { try await client.send(.get("/slack/invalid_auth")) }
        do {
            _ = try await client.send(.get("/slack/channel_not_found"))
        } catch {
            #expect(error.kind == .plugin)
            #expect(error.status == 200)
            #expect(error.message.contains("channel_not_found"))
        }
        #expect(try await client.send(.get("/slack/ok")).status == 200)
        #expect(seen.all == [.plugin, .plugin])
    }

    @Test func twentyConcurrent401sShareOneRefreshThenAllSucceed() async throws {
        let realm = key("realm")
        _ = try await rotate(realm)  // the server's token is one the client does not have
        let refreshes = Recorder<String?>()
        let base = server.baseURL
        let credential = RefreshingCredential(token: "stale") { current in
            refreshes.add(current)
            // The refresh call goes through a client without the credential.
            let response = try? await Client(baseURL: base).send(Request(.post, "/auth/\(realm)/rotate"))
            return response.flatMap { try? JSONValue.parse($0.http.text).node["token"]?.string }
        }
        let client = try Client(baseURL: server.baseURL, plugins: [credential])
        let statuses = try await withThrowingTaskGroup(of: Response.self) { group in
            for _ in 0..<20 { group.addTask { try await client.send(.get("/auth/\(realm)")) } }
            return try await group.reduce(into: [Response]()) { $0.append($1) }
        }
        #expect(statuses.count == 20)
        #expect(statuses.allSatisfy { $0.status == 200 })
        #expect(refreshes.all == ["stale"])
        #expect(credential.refreshCount == 1)
        let replayed = statuses.filter { $0.attempts.count == 2 }
        #expect(replayed.allSatisfy { $0.attempts.map(\.status) == [401, 200] })
        #expect(replayed.allSatisfy { $0.attempts[0].decision.contains("replayed") })
    }

    @Test func aFailedRefreshFailsEveryWaitingCallWithAuth() async throws {
        let realm = key("realm")
        _ = try await rotate(realm)
        let refreshes = Recorder<Int>()
        let base = server.baseURL
        let credential = RefreshingCredential(token: "stale") { _ in
            refreshes.add(1)
            // Fail only once all 20 calls got their 401, so every call waits on this refresh
            // (a call sent after the failure would be entitled to a refresh of its own).
            let checker = try? Client(baseURL: base)
            for _ in 0..<1000 {
                let counts = try? await checker?.send(.get("/auth/\(realm)/rotations"))
                let rejected = counts.flatMap { try? JSONValue.parse($0.http.text).node["rejected"]?.integer } ?? 0
                if rejected >= 20 { break }
                try? await Task.sleep(nanoseconds: 10_000_000)
            }
            return nil
        }
        let client = try Client(baseURL: server.baseURL, plugins: [credential])
        let observed = Recorder<Int>()
        client.addFailureObserver(filter: FailureFilter(statusCodes: [401])) { observed.add($0.status) }
        let kinds = await withTaskGroup(of: GatewireError?.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    do { _ = try await client.send(.get("/auth/\(realm)")); return nil } catch { return error as? GatewireError }
                }
            }
            return await group.reduce(into: [GatewireError?]()) { $0.append($1) }
        }
        #expect(kinds.count == 20)
        #expect(kinds.allSatisfy { $0?.kind == .auth && $0?.status == 401 })
        #expect(observed.all == Array(repeating: 401, count: 20))
        #expect(refreshes.all.count == 1)
    }

    @Test func credentialsThatKeepFailingEndAsA401() async throws {
        let realm = key("realm")
        _ = try await rotate(realm)
        let credential = RefreshingCredential(token: "stale") { _, done in done("also-wrong") }
        let client = try Client(baseURL: server.baseURL, plugins: [credential])
        do {
            _ = try await client.send(.get("/auth/\(realm)"))
            Issue.record("expected a 401")
        } catch {
            #expect(error.kind == .httpStatus)
            #expect(error.status == 401)
            #expect(error.attempts.map(\.status) == [401, 401])
        }
    }

    /// Closing the client while the credential refreshes: the call waiting for it completes
    /// once, as a cancelled call (status 401, the attempt it made), and the provider's answer
    /// after the close changes nothing but the token.
    @Test func closingWhileTheCredentialRefreshesCompletesTheCallOnce() async throws {
        let pending = Lock<(@Sendable (String?) -> Void)?>(nil)
        let credential = RefreshingCredential(token: "stale") { _, done in pending.withLock { $0 = done } }
        let client = try Client(config: GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "retry": {"maxRetries": 0}}"#),
                            plugins: [credential])
        let observed = Recorder<ErrorKind>()
        client.addFailureObserver { observed.add($0.kind) }
        let results = Recorder<Result<Response, GatewireError>>()
        client.start(.get("/status/401")) { results.add($0) }
        let end = MonotonicNow.seconds + 5
        while pending.withLock({ $0 == nil }), MonotonicNow.seconds < end { usleep(1_000) }
        #expect(pending.withLock { $0 != nil }, "the refresh was never asked")
        client.close()  // returns once the loop has completed every call
        #expect(results.all.count == 1)
        guard case .failure(let error)? = results.all.first else {
            Issue.record("not a failure: \(results.all)")
            return
        }
        #expect(error.kind == .cancelled)
        #expect(error.status == 401)
        #expect(error.message == "the call was cancelled")
        #expect(error.attempts.map(\.status) == [401])
        #expect(error.attempts.first?.decision == "401: asking the credential")
        #expect(observed.all == [.cancelled])
        pending.withLock { $0 }?("fresh")  // the answer comes after the close
        usleep(100_000)
        #expect(results.all.count == 1)
        #expect(observed.all == [.cancelled])
        #expect(credential.token == "fresh")
    }

    @Test func filteredObserversFireOnlyForTheirFailures() async throws {
        let port = try TestServer.closedPort()
        let unauthorized = Recorder<Int>()
        let offline = Recorder<Int>()
        let everything = Recorder<Int>()
        let client = try Client(baseURL: server.baseURL)
        client.addFailureObserver(filter: FailureFilter(statusCodes: [401])) { unauthorized.add($0.status) }
        client.addFailureObserver(filter: .noConnection) { offline.add($0.status) }
        client.addFailureObserver(filter: try FailureFilter(json: #"{"statusCodes": "5xx", "pathPattern": "/status/:code"}"#)) {
            everything.add($0.status)
        }
        _ = try? await client.send(.get("/status/401"))
        _ = try? await client.send(.get("/status/503"))
        _ = try? await client.send(.get("/status/404"))
        let offlineClient = try Client(baseURL: "http://127.0.0.1:\(port)")
        offlineClient.addFailureObserver(filter: .noConnection) { offline.add($0.status) }
        offlineClient.addFailureObserver(filter: FailureFilter(statusCodes: [401])) { unauthorized.add($0.status) }
        _ = try? await offlineClient.send(.get("/x"))
        #expect(unauthorized.all == [401])
        #expect(offline.all == [0])
        #expect(everything.all == [503])
    }

    /// "No connection" is about the server: a call the app cancels, one ended by closing the
    /// client, or one the client refuses to send has status 0 but is not "no connection".
    @Test func cancelledClosedAndRefusedCallsAreNotNoConnection() async throws {
        let offline = Recorder<String>()
        let every = Recorder<String>()
        let client = try Client(config: try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "retry": {"maxRetries": 0}}"#))
        client.addFailureObserver(filter: .noConnection) { offline.add($0.kind.name) }
        client.addFailureObserver { every.add($0.kind.name) }
        let cancelled = Waiter<Void>()
        let handle = client.start(.get("/delay/2000")) { _ in cancelled.put(()) }
        usleep(100_000)
        handle.cancel()
        cancelled.wait()
        _ = try? await client.send(Request(route: "nope"))  // refused before sending: invalid_argument
        var timedOut = Request.get("/delay/2000")
        timedOut.options.timeouts = Timeouts(attempt: 0.2)
        _ = try? await client.send(timedOut)
        let closing = Waiter<Void>()
        client.start(.get("/delay/2000")) { _ in closing.put(()) }
        usleep(100_000)
        client.close()
        closing.wait()
        #expect(offline.all == ["timeout"])
        #expect(every.all == ["cancelled", "invalid_argument", "timeout", "cancelled"])
    }

    struct ObserverFailure: Error {}

    @Test func aThrowingObserverDoesNotBreakTheCall() async throws {
        let client = try Client(baseURL: server.baseURL)
        let after = Recorder<Int>()
        client.addFailureObserver { _ in throw ObserverFailure() }
        client.addFailureObserver { after.add($0.status) }
        do {
            _ = try await client.send(.get("/status/500"))
            Issue.record("expected a failure")
        } catch {
            #expect(error.status == 500)
        }
        #expect(after.all == [500])
    }

    @Test func logsNeverContainSecrets() async throws {
        let lines = Recorder<String>()
        let secret = "s3cr3t-\(getpid())"
        let logger = LoggingPlugin(redactor: Redactor(headers: ["X-Api-Key"]), logHeaders: true) { lines.add($0) }
        let client = try Client(baseURL: server.baseURL, plugins: [
            BearerPlugin(token: secret), APIKeyPlugin(.header("X-Api-Key"), value: secret),
            APIKeyPlugin(.query("api_key"), value: secret), RequestIDPlugin(), logger,
        ])
        let response = try await client.send(.get("/echo", parameters: ["q": "1"]))
        let echo = try JSONValue.parse(response.http.text).node
        #expect(echo["headers"]?["authorization"]?.string == "Bearer \(secret)")
        #expect(echo["headers"]?["x-api-key"]?.string == secret)
        #expect(echo["query"]?["api_key"]?.string == secret)
        #expect(echo["headers"]?["x-request-id"]?.string?.isEmpty == false)
        _ = try? await client.send(.get("/status/500"))
        #expect(lines.all.count >= 6)
        #expect(lines.all.allSatisfy { !$0.contains(secret) })
        #expect(lines.all.contains { $0.contains("<redacted>") })
    }

    @Test func requestIdIsKeptAcrossAttemptsAndDiffersBetweenCalls() async throws {
        let seen = Recorder<String>()
        struct Capture: Plugin {
            let seen: Recorder<String>
            func willSend(_ request: HTTPRequest, context: PluginContext) { seen.add(request.headers["X-Request-ID"] ?? "") }
        }
        let config = try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "retry": {"maxRetries": 1, "initialDelay": 0.01}, "plugins": [{"name": "requestId"}, {"name": "metrics"}]}"#)
        let client = try Client(config: config, plugins: [Capture(seen: seen)])
        _ = try await client.send(.get("/sequence/\(key("rid"))/503,200"))
        _ = try await client.send(.get("/echo"))
        #expect(seen.all.count == 3)
        #expect(seen.all[0] == seen.all[1])
        #expect(seen.all[1] != seen.all[2])
        let metrics = try #require(client.plugins.compactMap { $0 as? MetricsPlugin }.first).snapshot
        #expect(metrics.calls == 2)
        #expect(metrics.attempts == 3)
        #expect(metrics.retries == 1)
        #expect(metrics.statusClasses == ["5xx": 1, "2xx": 2])
    }

    @Test func eventMonitorSeesEveryStep() async throws {
        let events = Recorder<String>()
        let config = try GatewayConfig(json: #"{"baseURL": "\#(server.baseURL)", "retry": {"maxRetries": 1, "initialDelay": 0.01}}"#)
        let client = try Client(config: config)
        let token = client.addEventMonitor { events.add("\($0.kind.rawValue):\($0.attempt):\($0.status)") }
        _ = try await client.send(.get("/sequence/\(key("events"))/503,200"))
        #expect(events.all == ["call_started:0:0", "attempt_started:1:0", "attempt_finished:1:503", "retry_scheduled:1:503",
                               "attempt_started:2:0", "attempt_finished:2:200", "call_finished:2:200"])
        #expect(client.removeEventMonitor(token))
    }

    @Test func configPluginErrorsNameTheField() throws {
        #expect(throws: ConfigError.self) { try GatewayConfig(json: #"{"baseURL": "http://h", "plugins": [{"name": "nope"}]}"#) }
        do {
            _ = try GatewayConfig(json: #"{"baseURL": "http://h", "plugins": [{"path": "/nonexistent/libx.so"}]}"#)
        } catch {
            #expect(error.path == "plugins[0].path")
        }
    }
}
