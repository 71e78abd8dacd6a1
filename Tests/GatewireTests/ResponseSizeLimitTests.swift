import Gatewire
import Testing

/// The `maxResponseBytes` config key, top level and per route. What a limit does to a call
/// (aborted bodies, gzip bombs, the exact limit, per-call overrides) is pinned by the
/// `limit_response_*` cases of `Tests/cases/resilience_cases.json`, in Swift, C and Python.
@Suite struct ResponseSizeLimitTests {
    @Test("the default is 64 MiB; the config and a route set their own")
    func values() throws {
        #expect(ResponseSizeLimit.defaultBytes == 67_108_864)
        #expect(try GatewayConfig(baseURL: "http://127.0.0.1:1").maxResponseBytes == 67_108_864)
        let config = try GatewayConfig(json: """
            {"baseURL": "http://127.0.0.1:1", "maxResponseBytes": 1000,
             "routes": {"r": {"method": "GET", "pathPattern": "/r", "maxResponseBytes": 10}, "s": {"method": "GET", "pathPattern": "/s"}}}
            """)
        #expect(config.maxResponseBytes == 1000)
        #expect(config.routes["r"]?.maxResponseBytes == 10)
        #expect(config.routes["s"]?.maxResponseBytes == nil)
    }

    @Test("an out-of-range or non-integer value is a config error naming the field", arguments: [
        "0", "-1", "1.5", "\"64MiB\"", "4611686018427387905", "true",
    ])
    func refused(_ value: String) {
        for (json, path) in [
            (#"{"baseURL": "http://127.0.0.1:1", "maxResponseBytes": \#(value)}"#, "maxResponseBytes"),
            (#"{"baseURL": "http://127.0.0.1:1", "routes": {"r": {"method": "GET", "pathPattern": "/r", "maxResponseBytes": \#(value)}}}"#,
             "routes.r.maxResponseBytes"),
        ] {
            #expect(throws: ConfigError.self) { try GatewayConfig(json: json) }
            do {
                _ = try GatewayConfig(json: json)
            } catch {
                #expect(error.path == path, "\(error)")
            }
        }
    }
}
