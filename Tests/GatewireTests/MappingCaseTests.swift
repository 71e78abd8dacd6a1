import CJansson
import Gatewire
import Glibc
import Testing

/// The shared table of mapping cases (`Tests/cases/mapping_cases.json`), run through
/// the Swift core against the real test server. The C test program (`Tests/c/test_mapping_cases.c`)
/// and pytest (`Tests/python/test_mapping_cases.py`) run the same file, so the bindings
/// cannot drift from the core.
@Suite(.serialized) struct MappingCaseTests {
    static let file = TestServer.repoRoot + "/Tests/cases/mapping_cases.json"
    /// The same file with a misspelt key in every object this runner reads.
    static let misspeltFile = TestServer.repoRoot + "/Tests/cases/unknown_keys/mapping_cases.json"

    /// The keys this runner reads, per object; any other key is a mistake that would check nothing.
    static let caseKeys: Set = ["name", "decision", "config", "request", "expect"]
    static let requestKeys: Set = ["route", "method", "path", "params", "body", "objectType", "allPages"]
    static let expectKeys: Set = ["ok", "status", "mapped", "kind", "message", "keyPath", "errorObjects", "bodyPrefix",
                                  "at", "metadataSubset", "pages", "pageError"]

    /// The keys of `testCase` this runner does not read: the case, its request, its expect,
    /// each `expect.at` entry and `expect.pageError`, in that order.
    static func unknownKeys(_ testCase: JSONNode) -> [String] {
        let name = testCase["name"]?.string ?? "?"
        let expect = testCase["expect"]
        var problems = CaseKeys.unknown(in: testCase, known: caseKeys, case: name)
        problems += CaseKeys.unknown(in: testCase["request"], known: requestKeys, case: name, prefix: "request.")
        problems += CaseKeys.unknown(in: expect, known: expectKeys, case: name, prefix: "expect.")
        for (keyPath, want) in expect?["at"]?.members ?? [] {
            problems += CaseKeys.unknown(in: want, known: ["count", "first"], case: name, prefix: "expect.at.\(keyPath).")
        }
        problems += CaseKeys.unknown(in: expect?["pageError"], known: ["kind", "status"], case: name,
                                     prefix: "expect.pageError.")
        return problems
    }

    static func load(_ path: String = file) throws -> JSONValue {
        guard let file = fopen(path, "rb") else { throw TestServerError(description: "cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return try bytes.withUnsafeBytes { try JSONValue.parse($0) }
    }

    @Test func theCaseFileCoversEveryDecisionWithAtLeastFiftyCases() throws {
        let cases = try Self.load().node["cases"]!.elements
        #expect(cases.count >= 50)
        let decisions = Set(cases.compactMap { $0["decision"]?.integer })
        #expect(decisions == Set(1...11))
    }

    @Test func everyCaseUsesOnlyKeysTheRunnerReads() throws {
        #expect(try Self.load().node["cases"]!.elements.flatMap(Self.unknownKeys) == [])
    }

    @Test func aMisspeltKeyIsNamedWithItsCase() throws {
        #expect(try Self.load(Self.misspeltFile).node["cases"]!.elements.flatMap(Self.unknownKeys) == [
            #"case "misspelt keys": unknown key "comment""#,
            #"case "misspelt keys": unknown key "request.parms""#,
            #"case "misspelt keys": unknown key "expect.stauts""#,
            #"case "misspelt keys": unknown key "expect.at.items.cout""#,
            #"case "misspelt keys": unknown key "expect.pageError.knd""#,
        ])
    }

    @Test func everyCasePassesThroughTheSwiftCore() throws {
        let server = try TestServer()
        defer { server.stop() }
        let cases = try Self.load().node["cases"]!.elements
        var passed = 0
        for testCase in cases {
            let name = testCase["name"]?.string ?? "?"
            let unknown = Self.unknownKeys(testCase)
            let failures = unknown.isEmpty ? try run(testCase, baseURL: server.baseURL) : unknown
            for failure in failures { Issue.record(unknown.isEmpty ? "case \"\(name)\": \(failure)" : "\(failure)") }
            if failures.isEmpty { passed += 1 }
        }
        #expect(passed == cases.count)
    }

    /// Runs one case; returns what differs from its expectation (empty: it passed).
    func run(_ testCase: JSONNode, baseURL: String) throws -> [String] {
        let configText = testCase["config"]!.serialized()
        let config = try GatewayConfig(json: "{\"baseURL\": \"\(baseURL)\", " + configText.dropFirst())
        let client = try Client(config: config)
        defer { client.close() }
        let spec = testCase["request"]!
        var parameters: [String: String] = [:]
        for (key, value) in spec["params"]?.members ?? [] { parameters[key] = value.string ?? value.serialized() }
        var request: Request
        if let route = spec["route"]?.string {
            request = Request(route: route, parameters: parameters)
        } else {
            request = Request(HTTPMethod(name: spec["method"]?.string ?? "GET")!, spec["path"]?.string ?? "",
                              parameters: parameters)
        }
        if let body = spec["body"] {
            let objectType = spec["objectType"]?.string
            let routeType = request.route.flatMap { config.routes[$0]?.objectType }
            request.body = objectType != nil || routeType != nil ? .object(body.retained(), type: objectType) : .json(body.retained())
        }
        let expect = testCase["expect"]!
        var failures: [String] = []
        func check(_ condition: Bool, _ message: @autoclosure () -> String) { if !condition { failures.append(message()) } }

        if spec["allPages"]?.bool == true {
            var pages: [JSONValue?] = []
            var pageError: GatewireError?
            do {
                let paginator = try client.paginator(request)
                while let page = try paginator.next() { pages.append(page.mapped) }
            } catch {
                pageError = error
            }
            let expected = expect["pages"]!.elements
            check(pages.count == expected.count, "\(pages.count) pages, expected \(expected.count)")
            for (index, (page, want)) in zip(pages, expected).enumerated() {
                check(Self.equal(page, want), "page \(index + 1): \(page?.serialized() ?? "nil") != \(want.serialized())")
            }
            if let want = expect["pageError"] {
                check(pageError?.kind.name == want["kind"]?.string, "page error kind \(pageError?.kind.name ?? "none")")
                check(pageError?.status == Int(want["status"]?.integer ?? -1), "page error status \(pageError?.status ?? -1)")
            } else {
                check(pageError == nil, "unexpected page error \(pageError.map { "\($0)" } ?? "")")
            }
            return failures
        }

        let outcome: Result<Response, GatewireError>
        do { outcome = .success(try client.sendAndWait(request)) } catch { outcome = .failure(error) }
        let wantOK = expect["ok"]?.bool ?? true
        switch outcome {
        case .success(let response):
            check(wantOK, "succeeded, expected a failure (mapped \(response.mapped?.serialized() ?? "nil"))")
            if let status = expect["status"]?.integer { check(response.status == Int(status), "status \(response.status) != \(status)") }
            if let want = expect["mapped"] {
                check(Self.equal(response.mapped, want), "mapped \(response.mapped?.serialized() ?? "nil") != \(want.serialized())")
            }
            for (keyPath, want) in expect["at"]?.members ?? [] {
                let result = response.mappingResult
                if let count = want["count"]?.integer {
                    check(result.count(at: keyPath) == Int(count), "count at \"\(keyPath)\" \(result.count(at: keyPath)) != \(count)")
                }
                if let first = want["first"] {
                    check(Self.equal(result.first(at: keyPath)?.retained(), first),
                          "first at \"\(keyPath)\" \(result.first(at: keyPath)?.serialized() ?? "nil") != \(first.serialized())")
                }
            }
            for (key, want) in expect["metadataSubset"]?.members ?? [] {
                let got = response.metadata?.node[key]
                check(Self.equal(got?.retained(), want), "metadata.\(key) \(got?.serialized() ?? "nil") != \(want.serialized())")
            }
        case .failure(let error):
            check(!wantOK, "failed: \(error)")
            guard !wantOK else { return failures }
            if let status = expect["status"]?.integer { check(error.status == Int(status), "status \(error.status) != \(status)") }
            if let kind = expect["kind"]?.string { check(error.kind.name == kind, "kind \(error.kind.name) != \(kind)") }
            if let message = expect["message"]?.string {
                check(error.message.contains(message), "message \"\(error.message)\" lacks \"\(message)\"")
            }
            if let keyPath = expect["keyPath"]?.string {
                check(error.message.hasPrefix(keyPath + ": "), "message \"\(error.message)\" does not name key path \(keyPath)")
            }
            if let want = expect["errorObjects"] {
                check(Self.equal(error.errorObjects, want),
                      "errorObjects \(error.errorObjects?.serialized() ?? "nil") != \(want.serialized())")
            }
            if let prefix = expect["bodyPrefix"]?.string {
                check(error.bodyPreview.hasPrefix(prefix), "body preview \"\(error.bodyPreview.prefix(80))\" lacks the prefix")
            }
        }
        return failures
    }

    /// Exact JSON equality (Jansson's json_equal: 1 and 1.0 differ); JSON `null` matches nil.
    static func equal(_ value: JSONValue?, _ expected: JSONNode) -> Bool {
        guard let value else { return expected.isNull }
        return json_equal(value.pointer, expected.pointer) == 1
    }
}

