import GatewireJSON

/// A set of HTTP status codes (100...599), as RestKit's `NSIndexSet` of status codes.
///
/// Config forms: `200`, `"2xx"` (a class; `"2XX"` too), `"200"`, `"200-299"` (inclusive), or
/// an array of any of these (`["2xx", 304]`, `[400, 422]`). Swift: ``successful``,
/// ``class(_:)``, an array literal of codes, or ``init(ranges:)``.
public struct StatusCodeSet: Sendable, Hashable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// Disjoint, sorted, non-adjacent inclusive ranges.
    public let ranges: [ClosedRange<Int>]

    /// The set covering `ranges` (overlaps and neighbours are merged).
    public init(ranges: [ClosedRange<Int>]) {
        var merged: [ClosedRange<Int>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound + 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        self.ranges = merged
    }

    /// Individual codes: `[400, 422]`.
    public init(arrayLiteral codes: Int...) { self.init(ranges: codes.map { $0...$0 }) }

    /// 200...299, RestKit's `RKStatusCodeIndexSetForClass(RKStatusCodeClassSuccessful)`.
    public static let successful = StatusCodeSet.class(2)
    /// 400...599: client and server errors, the default of error descriptors.
    public static let failures = StatusCodeSet(ranges: [400...599])

    /// All codes of a class: `.class(4)` is 400...499.
    public static func `class`(_ digit: Int) -> StatusCodeSet { StatusCodeSet(ranges: [digit * 100...digit * 100 + 99]) }

    /// The union of two sets.
    public func union(_ other: StatusCodeSet) -> StatusCodeSet { StatusCodeSet(ranges: ranges + other.ranges) }

    /// Whether `status` is in the set.
    public func contains(_ status: Int) -> Bool { ranges.contains { $0.contains(status) } }

    /// Whether the two sets share a code.
    public func overlaps(_ other: StatusCodeSet) -> Bool {
        ranges.contains { a in other.ranges.contains { b in a.overlaps(b) } }
    }

    /// `2xx`, `400,422`, `200-204,304`: whole classes as `Nxx`.
    public var description: String {
        ranges.map { range -> String in
            if range.lowerBound % 100 == 0, range.upperBound % 100 == 99 {
                return stride(from: range.lowerBound, to: range.upperBound, by: 100).map { "\($0 / 100)xx" }.joined(separator: ",")
            }
            return range.count == 1 ? "\(range.lowerBound)" : "\(range.lowerBound)-\(range.upperBound)"
        }.joined(separator: ",")
    }

    /// Parses the config forms above.
    /// - Throws: ``ConfigError`` naming the field (with `[i]` for an array element) for a code
    ///   outside 100...599, a reversed range, an empty array or an unreadable string.
    package init(config node: ConfigNode) throws(ConfigError) {
        if node.json.kind == .array {
            let elements = try node.elements()
            guard !elements.isEmpty else { throw node.error("expected at least one status code") }
            var ranges: [ClosedRange<Int>] = []
            for element in elements { ranges.append(contentsOf: try StatusCodeSet.parse(element)) }
            self.init(ranges: ranges)
        } else {
            self.init(ranges: try StatusCodeSet.parse(node))
        }
    }

    private static func parse(_ node: ConfigNode) throws(ConfigError) -> [ClosedRange<Int>] {
        let valid = 100...599
        if node.json.kind == .integer {
            let code = Int(try node.integer(in: 100...599))
            return [code...code]
        }
        guard node.json.kind == .string else {
            throw node.error("expected a status code, a class like \"2xx\", a range like \"200-299\" or an array of them, got \(node.json.kind.name)")
        }
        let text = try node.string()
        let lower = text.lowercased()
        if lower.count == 3, lower.hasSuffix("xx"), let digit = Int(lower.prefix(1)), (1...5).contains(digit) {
            return [digit * 100...digit * 100 + 99]
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { part in part.allSatisfy(\.isASCII) ? Int(part.trimmingSpaces) : nil }
        guard numbers.count == parts.count, (1...2).contains(numbers.count) else {
            throw node.error("\"\(text)\" is not a status code, a class like \"2xx\" or a range like \"200-299\"")
        }
        guard numbers.allSatisfy(valid.contains) else { throw node.error("\"\(text)\" is outside 100...599") }
        guard numbers[0] <= numbers[numbers.count - 1] else { throw node.error("\"\(text)\" is a reversed range") }
        return [numbers[0]...numbers[numbers.count - 1]]
    }
}

extension Substring {
    /// Without leading and trailing spaces.
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
