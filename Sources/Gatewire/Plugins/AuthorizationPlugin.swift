/// Sets `Authorization` on every attempt from static credentials: `Basic base64(user:pass)`
/// (RFC 7617 section 2) or `Bearer token` (RFC 6750 section 2.1). A call that sets its own
/// `Authorization` header keeps it.
struct AuthorizationPlugin: Plugin {
    let authentication: Authentication

    func prepare(_ request: inout HTTPRequest, context: PluginContext) throws {
        guard !request.headers.contains(RefreshingCredential.defaultHeader) else { return }
        switch authentication {
        case .basic(let username, let password):
            request.headers.set(RefreshingCredential.defaultHeader, "Basic " + Base64.encode(Array("\(username):\(password)".utf8)))
        case .bearer(let token):
            request.headers.set(RefreshingCredential.defaultHeader, RefreshingCredential.defaultPrefix + token)
        }
    }
}

/// Base64 with padding (RFC 4648 section 4), for the Basic credentials only.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = bytes[start..<min(start + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for index in 0..<4 {
                output.append(index <= chunk.count ? alphabet[Int(value >> (18 - 6 * UInt32(index)) & 0x3F)] : UInt8(ascii: "="))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
