/// Generated `Idempotency-Key` values (draft-ietf-httpapi-idempotency-key-header): a random
/// UUID version 4 in lower-case hex, e.g. `0f8fad5b-d9cb-469f-a165-70867728950e`.
enum IdempotencyKey {
    static let headerName = "Idempotency-Key"

    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 9562 variant
        let hex = bytes.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }
        return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { hex[$0].joined() }.joined(separator: "-")
    }
}
