import Gatewire
import Testing

/// Parameters of several types in one dictionary, and a call's own acceptance rule
/// (`validate(statusCode:)`), against a real httpbin (``HTTPBinServer``): `/anything`
/// echoes the decoded query under `args`, `/status/:code` answers with that status.
@Suite(.serialized) struct ParametersAndValidationTests {
    let httpbin: HTTPBinServer

    init() throws { httpbin = try HTTPBinServer() }

    func client() throws -> Client { try Client(baseURL: httpbin.baseURL) }

    struct Echo: Decodable {
        let args: [String: Arg]
        let url: String

        /// httpbin gives a repeated query parameter as an array, a single one as a string.
        enum Arg: Decodable, Equatable {
            case one(String)
            case many([String])

            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let text = try? container.decode(String.self) { self = .one(text) } else { self = .many(try container.decode([String].self)) }
            }
        }
    }

    struct OrderID: LosslessStringConvertible, Sendable, ParameterValue {
        let value: Int
        init(_ value: Int) { self.value = value }
        init?(_ description: String) { guard description.hasPrefix("ord_"), let n = Int(description.dropFirst(4)) else { return nil }; value = n }
        var description: String { "ord_\(value)" }
    }

    @Test func parametersOfSeveralTypesGoOnTheWire() async throws {
        let request = Request.get("/anything/:kind", parameters: [
            "kind": "orders", "page": 2, "ids": [1, 2], "q": "a b", "open": true, "ratio": 2.5,
            "big": Int64(1) << 40, "small": UInt8(7), "scale": Float(0.5), "order": OrderID(17),
            "names": ["x", "y,z"], "none": [Int](),
        ])
        let response = try await client().send(request)
        #expect(response.path == "/anything/orders?big=1099511627776&open=true&order=ord_17&page=2&q=a%20b"
            + "&ratio=2.5&scale=0.5&small=7&ids=1&ids=2&names=x&names=y%2Cz")
        let echo = try response.decode(Echo.self)
        #expect(echo.args["page"] == .one("2"))
        #expect(echo.args["ids"] == .many(["1", "2"]))
        #expect(echo.args["names"] == .many(["x", "y,z"]))
        #expect(echo.args["order"] == .one("ord_17"))
        #expect(echo.args["none"] == nil)
        #expect(echo.args["kind"] == nil)  // it filled the path
    }

    @Test func aStringDictionaryStillPassesAsItIs() async throws {
        let strings: [String: String] = ["q": "x", "id": "7"]
        var request = Request(.get, "/anything/:id", parameters: strings)
        request.parameters["extra"] = "1"
        #expect(request.parameters == ["q": "x", "id": "7", "extra": "1"])
        #expect(request.listParameters.isEmpty)
        let response = try await client().send(request)
        #expect(response.path == "/anything/7?extra=1&q=x")
        let listed = Request(route: "r", parameters: ["ids": [3, 4], "q": "x"])
        #expect(listed.listParameters == ["ids": ["3", "4"]])
        #expect(listed.parameters == ["q": "x"])
    }

    @Test func aCallAcceptsOnlyTheStatusesItValidates() async throws {
        let client = try client()
        let observed = Lock<[Int]>([])
        client.addFailureObserver { error in observed.withLock { $0.append(error.status) } }
        let ok = try await client.send(Request.get("/status/201").validate(statusCode: 200..<300))
        #expect(ok.status == 201)
        do {
            _ = try await client.send(Request.get("/status/201").validate(statusCode: [200]))
            Issue.record("201 accepted")
        } catch {
            #expect(error.kind == .httpStatus)
            #expect(error.status == 201)
            #expect(error.message == "status 201 is not accepted by the call (it accepts 200)")
            #expect(error.response?.status == 201)
            #expect(error.attempts.count == 1)
        }
        #expect(observed.withLock { $0 } == [201])
    }

    @Test func validationNeverAcceptsWhatTheStatusGateRefuses() async throws {
        let client = try client()
        var request = Request.get("/status/404").validate(statusCode: 200..<500)
        request.options.maxRetries = 0
        do {
            _ = try await client.send(request)
            Issue.record("404 accepted")
        } catch {
            #expect(error.kind == .httpStatus)
            #expect(error.message == "status 404 is not accepted")  // the gate's own failure
        }
        // A refused 2xx is final even under a policy that retries it.
        var retried = Request.get("/status/202").validate(statusCode: [200])
        retried.options.retryPolicy = RetryPolicy(maxRetries: 2, initialDelay: 0.01, retryableStatusCodes: [202])
        do {
            _ = try await client.send(retried)
            Issue.record("202 accepted")
        } catch {
            #expect(error.status == 202)
            #expect(error.attempts.count == 1, "attempts: \(error.attempts)")
        }
    }
}
