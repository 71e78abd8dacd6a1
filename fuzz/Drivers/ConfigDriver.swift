import Gatewire

/// The gateway config loader on arbitrary text: every input loads or is refused with a
/// ConfigError; a crash, a sanitizer report or a hang is a finding. A config that loads is
/// also matched against a path, so its descriptors and route patterns are exercised.
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let config = try? GatewayConfig(json: text) else { return 0 }
    for route in config.routes.values {
        _ = try? PathPattern(route.pathPattern).match("/users/1/items")
    }
    let response = MappableResponse(method: .get, path: "/users/1", status: 200,
                                    contentType: "application/json", body: Array("{\"id\": 1}".utf8))
    _ = ResponseMapper(catalog: config.catalog).map(response)
    return 0
}
