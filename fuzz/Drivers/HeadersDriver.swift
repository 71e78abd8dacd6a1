import Gatewire

/// The parsers of header values and patterns on arbitrary text. The first byte picks the
/// parser (modulo their count); the rest is the text. Each input is parsed or refused;
/// a crash, a sanitizer report or a hang is a finding.
public func fuzzHeaders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    switch data[0] % 8 {
    case 0: _ = RetryAfter.delay(text, now: 1_700_000_000)  // delta-seconds or HTTP-date (RFC 9110 10.2.3)
    case 1: _ = RetryAfter.httpDate(text)                    // IMF-fixdate, RFC 850, asctime (RFC 9110 5.6.7)
    case 2: _ = LinkHeader.parse(text)                       // RFC 8288
    case 3: _ = LinkHeader.target("next", in: text)
    case 4: _ = GatewireDate(iso8601: text)
    case 5: _ = GatewireDate(parsing: text)
    case 6:
        // A pattern and a path, split at the first newline.
        let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        _ = PathPattern.parameterProblem(String(parts[0]))
        if let pattern = try? PathPattern(String(parts[0])) {
            _ = pattern.match(parts.count > 1 ? String(parts[1]) : "/")
        }
    default:
        // A key path looked up in a fixed document.
        _ = try? JSONKeyPath(text).value(in: document.node)
    }
    return 0
}

/// Nested objects, arrays and scalars for the key paths to walk.
let document: JSONValue = try! JSONValue.parse(
    #"{"data": {"items": [{"id": 1, "tags": ["a", "b"]}, {"id": 2}], "meta": {"next": null}}, "a.b": true, "": 0}"#)
