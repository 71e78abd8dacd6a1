/// A point in time with millisecond precision, for Swift callers (Foundation's `Date` is
/// not available in the core).
///
/// It decodes (through `JSONNodeDecoder` or any `Decoder`) from the ISO 8601 strings the
/// mapper emits (`2017-10-10T16:00:00.000Z`), from any ISO 8601 or HTTP-date string
/// ``init(parsing:)`` accepts, and from a JSON number of seconds since 1970.
///
/// Calendar arithmetic is the proleptic Gregorian calendar in UTC (Howard Hinnant's
/// days-from-civil), valid for years 0001...9999.
public struct GatewireDate: Decodable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z (negative before).
    public let millisecondsSince1970: Int64

    /// Seconds since 1970-01-01T00:00:00Z, with a millisecond fraction.
    public var secondsSince1970: Double { Double(millisecondsSince1970) / 1000 }

    /// The earliest and latest instants that have a 4-digit year (0001-01-01 ... 9999-12-31).
    static let range: ClosedRange<Int64> = -62_135_596_800_000 ... 253_402_300_799_999

    /// A date from milliseconds since 1970; nil outside years 0001...9999.
    public init?(millisecondsSince1970 ms: Int64) {
        guard GatewireDate.range.contains(ms) else { return nil }
        millisecondsSince1970 = ms
    }

    /// A date from seconds since 1970, rounded to the nearest millisecond; nil when not finite
    /// or outside years 0001...9999.
    public init?(secondsSince1970 seconds: Double) {
        let ms = (seconds * 1000).rounded()
        guard ms.isFinite, ms >= -62_135_596_800_000, ms <= 253_402_300_799_999 else { return nil }
        self.init(millisecondsSince1970: Int64(ms))
    }

    /// Parses an ISO 8601 date-time or an HTTP-date (RFC 9110 IMF-fixdate).
    ///
    /// ISO 8601 (the RestKit strict regex, `YYYY-MM-DD[T ]hh:mm:ss(.f+)?(Z|±hh:mm|±hhmm)?`):
    /// fractional seconds of any length are truncated to milliseconds; no zone means UTC;
    /// a date alone (`YYYY-MM-DD`) is midnight UTC. HTTP-date: `Sun, 06 Nov 1994 08:49:37 GMT`
    /// exactly (the day name must be a valid name; it is not checked against the date).
    /// Returns nil for anything else, or for out-of-range fields (month 13, 31 April, hour 24).
    public init?(parsing text: String) {
        var text = text
        guard let date = text.withUTF8({ GatewireDate(parsing: $0) }) else { return nil }
        self = date
    }

    /// Parses an ISO 8601 date-time or an HTTP-date from UTF-8 bytes (see ``init(parsing:)``);
    /// the bytes are only read during the call.
    init?(parsing bytes: UnsafeBufferPointer<UInt8>) {
        guard let ms = GatewireDate.parseISO8601(bytes) ?? GatewireDate.parseHTTPDate(bytes) else { return nil }
        self.init(millisecondsSince1970: ms)
    }

    /// Parses only ISO 8601 (see ``init(parsing:)``).
    public init?(iso8601 text: String) {
        var text = text
        guard let date = text.withUTF8({ GatewireDate(iso8601: $0) }) else { return nil }
        self = date
    }

    /// Parses only ISO 8601, from UTF-8 bytes read during the call.
    init?(iso8601 bytes: UnsafeBufferPointer<UInt8>) {
        guard let ms = GatewireDate.parseISO8601(bytes) else { return nil }
        self.init(millisecondsSince1970: ms)
    }

    /// ISO 8601 in UTC with milliseconds, `2017-10-10T16:00:00.000Z` (RestKit's request
    /// serialization format, `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`).
    public var iso8601: String {
        withISO8601 { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with ``iso8601``'s text as its 24 ASCII bytes (the year always has 4
    /// digits) in a temporary stack buffer (valid only during the call; not NUL-terminated),
    /// without making a `String`.
    func withISO8601<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        let ms = millisecondsSince1970
        let days = floorDiv(ms, 86_400_000)
        let msOfDay = ms - days * 86_400_000
        let (year, month, day) = GatewireDate.civil(fromDays: days)
        let hour = msOfDay / 3_600_000, minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60, milli = msOfDay % 1000
        // yyyy-MM-ddTHH:mm:ss.SSSZ, each field's digits at its offset (unrolled: this runs
        // once per mapped date).
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return try withUnsafeMutableBytes(of: &text) { raw throws(E) -> R in
            let b = raw.bindMemory(to: UInt8.self)
            func digit(_ value: Int64) -> UInt8 { UInt8(truncatingIfNeeded: 48 + value) }
            func two(_ value: Int64, at offset: Int) {
                b[offset] = digit(value / 10)
                b[offset + 1] = digit(value % 10)
            }
            two(year / 100, at: 0)
            two(year % 100, at: 2)
            b[4] = UInt8(ascii: "-")
            two(month, at: 5)
            b[7] = UInt8(ascii: "-")
            two(day, at: 8)
            b[10] = UInt8(ascii: "T")
            two(hour, at: 11)
            b[13] = UInt8(ascii: ":")
            two(minute, at: 14)
            b[16] = UInt8(ascii: ":")
            two(second, at: 17)
            b[19] = UInt8(ascii: ".")
            b[20] = digit(milli / 100)
            two(milli % 100, at: 21)
            b[23] = UInt8(ascii: "Z")
            return try body(UnsafeBufferPointer(b))
        }
    }

    /// The ISO 8601 text, as ``iso8601``.
    public var description: String { iso8601 }

    /// Earlier dates are smaller.
    public static func < (lhs: GatewireDate, rhs: GatewireDate) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    /// Decodes an ISO 8601 / HTTP-date string, or a number of seconds since 1970.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            guard let date = GatewireDate(parsing: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not an ISO 8601 date")
            }
            self = date
        } else {
            let seconds = try container.decode(Double.self)
            guard let date = GatewireDate(secondsSince1970: seconds) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(seconds) is out of the date range")
            }
            self = date
        }
    }

    // MARK: Calendar arithmetic (proleptic Gregorian, UTC)

    /// Days since 1970-01-01 of a civil date (Hinnant's `days_from_civil`).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01 (Hinnant's `civil_from_days`).
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func milliseconds(year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64,
                             second: Int64, milli: Int64) -> Int64? {
        guard (1...9999).contains(year), (1...12).contains(month),
              (1...daysInMonth(year: year, month: month)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        let days = GatewireDate.days(year: year, month: month, day: day)
        return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milli
    }

    // MARK: Parsers (bytes of UTF-8 text)

    /// `count` ASCII digits at `index` as a number, or nil.
    private static func digits(_ b: UnsafeBufferPointer<UInt8>, _ index: Int, _ count: Int) -> Int64? {
        guard index + count <= b.count else { return nil }
        var value: Int64 = 0
        for i in index..<(index + count) {
            guard b[i] >= 48, b[i] <= 57 else { return nil }
            value = value * 10 + Int64(b[i] - 48)
        }
        return value
    }

    /// Milliseconds since 1970 of an ISO 8601 text (see ``init(parsing:)``), or nil.
    static func parseISO8601(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let year = digits(b, 0, 4), b.count >= 10, b[4] == UInt8(ascii: "-"),
              let month = digits(b, 5, 2), b[7] == UInt8(ascii: "-"), let day = digits(b, 8, 2)
        else { return nil }
        if b.count == 10 {
            return milliseconds(year: year, month: month, day: day, hour: 0, minute: 0, second: 0, milli: 0)
        }
        guard b.count >= 19, b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == UInt8(ascii: " "),
              let hour = digits(b, 11, 2), b[13] == UInt8(ascii: ":"), let minute = digits(b, 14, 2),
              b[16] == UInt8(ascii: ":"), let second = digits(b, 17, 2)
        else { return nil }
        var index = 19
        var milli: Int64 = 0
        if index < b.count, b[index] == UInt8(ascii: ".") || b[index] == UInt8(ascii: ",") {
            index += 1
            let start = index
            while index < b.count, b[index] >= 48, b[index] <= 57 {
                if index - start < 3 { milli = milli * 10 + Int64(b[index] - 48) }
                index += 1
            }
            guard index > start else { return nil }
            for _ in min(index - start, 3)..<3 { milli *= 10 }
        }
        var offsetMinutes: Int64 = 0
        if index < b.count {
            switch b[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                index += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign: Int64 = b[index] == UInt8(ascii: "-") ? -1 : 1
                guard let hours = digits(b, index + 1, 2) else { return nil }
                index += 3
                var minutes: Int64 = 0
                if index < b.count {
                    if b[index] == UInt8(ascii: ":") { index += 1 }
                    guard let m = digits(b, index, 2) else { return nil }
                    minutes = m
                    index += 2
                }
                guard hours <= 23, minutes <= 59 else { return nil }
                offsetMinutes = sign * (hours * 60 + minutes)
            default:
                return nil
            }
        }
        guard index == b.count,
              let local = milliseconds(year: year, month: month, day: day, hour: hour, minute: minute,
                                       second: second, milli: milli)
        else { return nil }
        return local - offsetMinutes * 60_000
    }

    private static let dayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT` (29 bytes).
    static func parseHTTPDate(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard b.count == 29 else { return nil }
        let text = String(decoding: b, as: UTF8.self)
        let chars = Array(text)
        guard chars.count == 29, dayNames.contains(String(chars[0..<3])), chars[3] == ",", chars[4] == " ",
              chars[7] == " ", chars[11] == " ", chars[16] == " ", chars[19] == ":", chars[22] == ":",
              String(chars[25...]) == " GMT",
              let monthIndex = monthNames.firstIndex(of: String(chars[8..<11])),
              let day = digits(b, 5, 2), let year = digits(b, 12, 4), let hour = digits(b, 17, 2),
              let minute = digits(b, 20, 2), let second = digits(b, 23, 2)
        else { return nil }
        return milliseconds(year: year, month: Int64(monthIndex + 1), day: day, hour: hour, minute: minute,
                            second: second, milli: 0)
    }
}

/// Floor division (rounds toward negative infinity).
func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}
