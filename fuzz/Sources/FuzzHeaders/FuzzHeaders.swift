import Gatewire

/// The parsers of header values and patterns on arbitrary text. The first byte picks the
/// parser (modulo their count); the rest is the text. Each input is parsed or refused;
/// a crash, a sanitizer report or a hang is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    // The Retry-After, Link and key-path parsers are package-only since the public surface
    // was sized for users; this package reaches the public parsers alone.
    switch data[0] % 3 {
    case 0: _ = GatewireDate(iso8601: text)
    case 1: _ = GatewireDate(parsing: text)
    default:
        // A pattern and a path, split at the first newline.
        let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        if let pattern = try? PathPattern(String(parts[0])) {
            _ = pattern.match(parts.count > 1 ? String(parts[1]) : "/")
        }
    }
    return 0
}
