import GatewireJSON

/// The status codes a Responses Object key stands for (OpenAPI 3.0 section 4.7.16): a code
/// (`200`) stands for itself, a class (`2XX`) for its hundred codes but those listed on their
/// own, `default` for every code no other key lists. The importer maps successes (2xx) as
/// response descriptors and 4xx, 5xx and `default` (the codes of these two classes it
/// covers) as error descriptors.
struct StatusCodes {
    /// The codes each key of the Responses Object stands for, by key.
    let byKey: [String: [ClosedRange<Int>]]

    /// The codes of every key of `responses` (keys that are not a code, a class or `default`
    /// are left out: see ``isKnown(_:)``).
    init(keys: [String]) {
        var explicit: Set<Int> = []
        var classes: Set<Int> = []
        for key in keys {
            if let code = Self.code(key) { explicit.insert(code) }
            else if let digit = Self.classDigit(key) { classes.insert(digit) }
        }
        var byKey: [String: [ClosedRange<Int>]] = [:]
        for key in keys {
            if let code = Self.code(key) {
                byKey[key] = [code...code]
            } else if let digit = Self.classDigit(key) {
                byKey[key] = Self.ranges(Array(digit * 100...digit * 100 + 99).filter { !explicit.contains($0) })
            } else if key == "default" {
                byKey[key] = Self.ranges(Array(400...599).filter { !explicit.contains($0) && !classes.contains($0 / 100) })
            }
        }
        self.byKey = byKey
    }

    /// Whether `key` is a code (100...599), a class (`1XX`...`5XX`) or `default`.
    static func isKnown(_ key: String) -> Bool { code(key) != nil || classDigit(key) != nil || key == "default" }

    /// The config's `statusCodes` value for `ranges`: nil for what the descriptor's default is
    /// (`2xx` for a response descriptor, 4xx and 5xx for an error descriptor), else a code, a
    /// class (`"2xx"`), a range (`"400-403"`) or an array of them.
    static func configValue(_ ranges: [ClosedRange<Int>], error: Bool) -> JSONValue? {
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        if sorted == (error ? [400...599] : [200...299]) { return nil }
        let parts: [JSONValue] = sorted.map { range in
            if range.count == 1 { return .integer(Int64(range.lowerBound)) }
            if range.lowerBound % 100 == 0, range.count == 100 { return .string("\(range.lowerBound / 100)xx") }
            return .string("\(range.lowerBound)-\(range.upperBound)")
        }
        if parts.count == 1 { return parts[0] }
        let array = JSONValue.array()
        for part in parts { array.append(part) }
        return array
    }

    /// Whether every code of `ranges` is a success (2xx) or every one a failure (4xx, 5xx).
    static func isSuccess(_ ranges: [ClosedRange<Int>]) -> Bool { ranges.allSatisfy { (200...299).contains($0.lowerBound) } }
    static func isFailure(_ ranges: [ClosedRange<Int>]) -> Bool { ranges.allSatisfy { $0.lowerBound >= 400 } }

    private static func code(_ key: String) -> Int? {
        guard key.count == 3, key.allSatisfy(\.isNumber), let code = Int(key), (100...599).contains(code) else { return nil }
        return code
    }

    private static func classDigit(_ key: String) -> Int? {
        guard key.count == 3, key.lowercased().hasSuffix("xx"), let digit = Int(key.prefix(1)), (1...5).contains(digit) else { return nil }
        return digit
    }

    /// Sorted codes as the fewest closed ranges.
    private static func ranges(_ codes: [Int]) -> [ClosedRange<Int>] {
        var result: [ClosedRange<Int>] = []
        for code in codes {
            if let last = result.last, last.upperBound + 1 == code { result[result.count - 1] = last.lowerBound...code }
            else { result.append(code...code) }
        }
        return result
    }
}
