import Gatewire
import Glibc

/// The response mapper over the configs of the shared mapping cases
/// (Tests/cases/mapping_cases.json) with arbitrary bodies. The first four bytes pick the case
/// (its config, and the method and path its request is sent with), the status and the
/// Content-Type (modulo their counts); the rest is the body. Every body maps or fails with a
/// MappingError; a crash, a sanitizer report or a hang is a finding.
public func fuzzMapper(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size >= 4 else { return 0 }
    let target = targets[Int(data[0]) % targets.count]
    let status = statuses[Int(data[1]) % statuses.count]
    let contentType = contentTypes[Int(data[2]) % contentTypes.count]
    let body = Array(UnsafeBufferPointer(start: data + 4, count: size - 4))
    let response = MappableResponse(method: target.method, path: target.path, status: status,
                                    contentType: contentType, body: body)
    let mapper = target.mapper
    if data[3] & 1 == 0 {
        _ = mapper.map(response)
    } else {
        // The deferred path: triage first, then the parse and walk the call makes later.
        let triage = mapper.triage(response, readingJSONBody: data[3] & 2 != 0)
        if triage.needsParse { _ = mapper.mapBody(of: triage) }
    }
    return 0
}

let statuses = [200, 201, 204, 206, 304, 400, 401, 404, 409, 422, 429, 500, 503]
let contentTypes: [String?] = ["application/json", "application/problem+json; charset=utf-8",
                               "text/plain", "APPLICATION/JSON", nil]

/// A case's mapper with the method and path its request uses.
struct Target: Sendable {
    let mapper: ResponseMapper
    let method: HTTPMethod
    let path: String
}

/// One target per shared mapping case whose config loads: its request's method and path (the
/// query cut), or for a route the route's method and pattern with every `:name` set to 1.
let targets: [Target] = {
    let cases = loadCases()
    var targets: [Target] = []
    for testCase in cases.node["cases"]!.elements {
        let configText = testCase["config"]!.serialized()
        guard let config = try? GatewayConfig(json: #"{"baseURL": "http://127.0.0.1:1", "# + configText.dropFirst())
        else { continue }
        let request = testCase["request"]!
        var method = HTTPMethod(rawValue: request["method"]?.string ?? "GET") ?? .get
        var path = String((request["path"]?.string ?? "/").split(separator: "?", omittingEmptySubsequences: false)[0])
        if let name = request["route"]?.string, let route = config.routes[name] {
            method = route.method
            path = route.pathPattern.split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.hasPrefix(":") ? "1" : String($0) }.joined(separator: "/")
        }
        targets.append(Target(mapper: ResponseMapper(catalog: config.catalog), method: method, path: path))
    }
    precondition(!targets.isEmpty, "no mapping case config loaded from \(casesPath)")
    return targets
}()

/// Tests/cases/mapping_cases.json of this checkout, or $GW_MAPPING_CASES.
let casesPath: String = {
    if let path = getenv("GW_MAPPING_CASES") { return String(cString: path) }
    var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // fuzz/Drivers/MapperDriver.swift
    return parts.joined(separator: "/") + "/Tests/cases/mapping_cases.json"
}()

func loadCases() -> JSONValue {
    guard let file = fopen(casesPath, "rb") else { fatalError("cannot open \(casesPath)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while case let count = fread(&buffer, 1, buffer.count, file), count > 0 {
        bytes.append(contentsOf: buffer[0..<count])
    }
    return try! JSONValue.parse(String(decoding: bytes, as: UTF8.self))
}
