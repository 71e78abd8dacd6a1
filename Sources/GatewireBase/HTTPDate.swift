/// HTTP-dates (RFC 9110 section 5.6.7) as seconds since the Unix epoch, UTC.
///
/// A recipient must accept all three forms: the preferred IMF-fixdate
/// `Sun, 06 Nov 1994 08:49:37 GMT`, and the obsolete RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT`
/// and ANSI C asctime `Sun Nov  6 08:49:37 1994`. Used by `Retry-After`, the HTTP cache's
/// `Date`/`Expires` and a download's `Last-Modified` validator.
package enum HTTPDate {
    /// Parses an HTTP-date (any of the three forms) to seconds since the Unix epoch, UTC;
    /// surrounding spaces and tabs are ignored.
    ///
    /// `now` (epoch seconds) resolves RFC 850's two-digit year: per RFC 9110, a year that
    /// would lie more than 50 years in the future is taken to be in the past century.
    /// Nil when the text is not a valid date (unknown month, day 31 in a 30-day month, hour
    /// 24, a zone other than GMT, ...). The weekday name must be a real name but is not
    /// checked against the date.
    package static func parse(_ text: String, now: Double = 0) -> Double? {
        let tokens = text.trimmingOWS.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        switch tokens.count {
        case 6:  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            guard tokens[0].hasSuffix(","), shortDays.contains(String(tokens[0].dropLast())), tokens[5] == "GMT",
                  let day = number(tokens[1], digits: 1...2), let month = month(tokens[2]),
                  let year = number(tokens[3], digits: 4...4)
            else { return nil }
            return epoch(year: year, month: month, day: day, time: tokens[4])
        case 4:  // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            guard tokens[0].hasSuffix(","), longDays.contains(String(tokens[0].dropLast())), tokens[3] == "GMT"
            else { return nil }
            let parts = tokens[1].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, let day = number(parts[0], digits: 1...2), let month = month(parts[1]),
                  let yy = number(parts[2], digits: 2...2)
            else { return nil }
            let nowYear = civilYear(epochSeconds: now)
            var year = nowYear - nowYear % 100 + yy
            if year > nowYear + 50 { year -= 100 }
            return epoch(year: year, month: month, day: day, time: tokens[2])
        case 5:  // asctime: Sun Nov  6 08:49:37 1994
            guard shortDays.contains(tokens[0]), let month = month(tokens[1]),
                  let day = number(tokens[2], digits: 1...2), let year = number(tokens[4], digits: 4...4)
            else { return nil }
            return epoch(year: year, month: month, day: day, time: tokens[3])
        default:
            return nil
        }
    }

    private static let shortDays: Set<String> = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let longDays: Set<String> = [
        "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
    ]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func month(_ name: String) -> Int? {
        months.firstIndex(of: name).map { $0 + 1 }
    }

    /// A decimal number of exactly `digits` ASCII digits.
    private static func number(_ text: String, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    /// Epoch seconds of a validated UTC date and "HH:MM:SS" time.
    private static func epoch(year: Int, month: Int, day: Int, time: String) -> Double? {
        let hms = time.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard hms.count == 3, let hour = number(hms[0], digits: 2...2), let minute = number(hms[1], digits: 2...2),
              let second = number(hms[2], digits: 2...2), hour < 24, minute < 60, second <= 60,
              day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Double(days * 86400 + hour * 3600 + minute * 60 + second)
    }

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The UTC calendar year of an epoch time (Hinnant's `civil_from_days`, year only).
    private static func civilYear(epochSeconds: Double) -> Int {
        let seconds = epochSeconds.isFinite ? min(max(epochSeconds, -1e15), 1e15) : 0
        var days = Int(seconds / 86400)
        if seconds < 0, Double(days) * 86400 != seconds { days -= 1 }
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let month = mp < 10 ? mp + 3 : mp - 9
        return yoe + era * 400 + (month <= 2 ? 1 : 0)
    }
}
