import Gatewire
import Glibc
import Testing

/// Authentication against a real httpbin (gunicorn on 127.0.0.1, ``HTTPBinServer``): its
/// `/bearer` answers 401 without a bearer token and 200 with any, `/basic-auth/<u>/<p>` 401
/// unless the basic credentials match.
@Suite(.serialized) struct HTTPBinAuthTests {
    let httpbin: HTTPBinServer

    init() throws { httpbin = try HTTPBinServer() }

    final class Recorder<T: Sendable>: Sendable {
        private let items = Lock<[T]>([])
        func add(_ item: T) { items.withLock { $0.append(item) } }
        var all: [T] { items.withLock { $0 } }
    }

    /// A credential with no token whose refresh answers `token` after `delay` seconds.
    static func credential(token: String, delay: Double = 0, refreshes: Recorder<String?>) -> RefreshingCredential {
        RefreshingCredential(token: nil) { current in
            refreshes.add(current)
            if delay > 0 { try? await Task.sleep(nanoseconds: UInt64(delay * 1e9)) }
            return token
        }
    }

    @Test func aCredentialWithoutATokenRefreshesOnceAndReplaysInsideTheCall() async throws {
        let refreshes = Recorder<String?>()
        let credential = Self.credential(token: "swift-fresh-token", refreshes: refreshes)
        let client = try Client(baseURL: httpbin.baseURL, plugins: [credential])
        let observed = Recorder<Int>()
        client.addFailureObserver { observed.add($0.status) }
        let response = try await client.send(.get("/bearer"))
        #expect(response.status == 200)
        #expect(response.attempts.map(\.status) == [401, 200])
        #expect(response.attempts[0].decision.contains("replayed"))
        let body = try JSONValue.parse(response.http.text).node
        #expect(body["authenticated"]?.bool == true)
        #expect(body["token"]?.string == "swift-fresh-token")
        #expect(refreshes.all == [nil])
        #expect(credential.refreshCount == 1)
        #expect(observed.all.isEmpty)
        // Signed from now on: no new 401, no new refresh.
        let next = try await client.send(.get("/bearer"))
        #expect(next.attempts.map(\.status) == [200])
        #expect(credential.refreshCount == 1)
    }

    @Test func aWrongPasswordFiresThe401ObserverOnceAndTheNoConnectionObserverNever() async throws {
        let client = try Client(baseURL: httpbin.baseURL, plugins: [BasicAuthPlugin(username: "ann", password: "wrong")])
        let unauthorized = Recorder<Int>()
        let offline = Recorder<Int>()
        client.addFailureObserver(filter: FailureFilter(statusCodes: [401])) { unauthorized.add($0.status) }
        client.addFailureObserver(filter: .noConnection) { offline.add($0.status) }
        do {
            _ = try await client.send(.get("/basic-auth/ann/secret"))
            Issue.record("expected a 401")
        } catch {
            #expect(error.kind == .httpStatus)
            #expect(error.status == 401)
            // The observer ran before the call's own failure reached us.
            #expect(unauthorized.all == [401])
        }
        #expect(unauthorized.all == [401])
        #expect(offline.all.isEmpty)
        let right = try Client(baseURL: httpbin.baseURL, plugins: [BasicAuthPlugin(username: "ann", password: "secret")])
        let response = try await right.send(.get("/basic-auth/ann/secret"))
        #expect(try JSONValue.parse(response.http.text).node["authenticated"]?.bool == true)
    }

    @Test func fiveConcurrentCallsWithoutATokenShareOneRefresh() async throws {
        let refreshes = Recorder<String?>()
        // The refresh answers late, so every call's 401 arrives while it runs.
        let credential = Self.credential(token: "swift-shared-token", delay: 0.3, refreshes: refreshes)
        let client = try Client(baseURL: httpbin.baseURL, plugins: [credential])
        let responses = try await withThrowingTaskGroup(of: Response.self) { group in
            for _ in 0..<5 { group.addTask { try await client.send(.get("/bearer")) } }
            return try await group.reduce(into: [Response]()) { $0.append($1) }
        }
        #expect(responses.count == 5)
        #expect(responses.allSatisfy { $0.status == 200 })
        #expect(responses.allSatisfy { $0.attempts.map(\.status) == [401, 200] })
        #expect(refreshes.all == [nil])
        #expect(credential.refreshCount == 1)
    }
}
