/// The hash slot of a key in a Redis Cluster (Redis Cluster specification, "Key distribution
/// model"): `CRC16(key) mod 16384`, where CRC16 is CRC-16/XMODEM (polynomial 0x1021, initial
/// value 0) and `key` is only the part between the first `{` and the first `}` after it when
/// that part is not empty (a hash tag, which keeps related keys on one slot). Pure.
package enum RedisHashSlot {
    /// The number of hash slots (0...16383).
    package static let count = 16384

    /// The slot of `key` (binary-safe).
    package static func of(_ key: [UInt8]) -> Int {
        Int(crc16(hashed(key)) % UInt16(count))
    }

    /// The bytes that are hashed: the hash tag when there is one, else the whole key.
    package static func hashed(_ key: [UInt8]) -> ArraySlice<UInt8> {
        guard let open = key.firstIndex(of: UInt8(ascii: "{")),
              let close = key[(open + 1)...].firstIndex(of: UInt8(ascii: "}")),
              close > open + 1 else { return key[...] }
        return key[(open + 1)..<close]
    }

    /// CRC-16/XMODEM of `bytes` (the specification's reference: "123456789" gives 0x31C3).
    package static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? crc << 1 ^ 0x1021 : crc << 1 }
        }
        return crc
    }
}
