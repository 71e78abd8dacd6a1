/// Parsing of the `Retry-After` response header (RFC 9110 section 10.2.3).
///
/// The value is either delay-seconds (`1*DIGIT`, e.g. `120`) or an HTTP-date (RFC 9110
/// section 5.6.7): the preferred IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, or one of the
/// obsolete forms a recipient must still accept, RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and
/// ANSI C asctime `Sun Nov  6 08:49:37 1994`. All dates are UTC. Times are seconds as `Double`.
package enum RetryAfter {
    /// The delay a `Retry-After` value asks for, in seconds from `now`.
    ///
    /// - Parameters:
    ///   - value: the header's field value; surrounding spaces and tabs are ignored.
    ///   - now: the current time in seconds since the Unix epoch (UTC).
    /// - Returns: the delay in seconds (0 for a date in the past; very long digit strings
    ///   saturate to a huge finite number), or nil when the value is malformed. Callers treat
    ///   nil as "no Retry-After" (unlike urllib3, which raises `InvalidHeader`).
    package static func delay(_ value: String, now: Double) -> Double? {
        let text = value.trimmingOWS
        guard !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            var seconds: Double = 0
            for digit in text.utf8 { seconds = min(seconds * 10 + Double(digit - 0x30), .greatestFiniteMagnitude) }
            return seconds
        }
        guard let date = HTTPDate.parse(String(text), now: now) else { return nil }
        let delay = date - now
        return delay.isNaN ? nil : max(0, delay)
    }

    /// Parses an HTTP-date to seconds since the Unix epoch, UTC: ``HTTPDate/parse(_:now:)``.
    package static func httpDate(_ text: String, now: Double = 0) -> Double? {
        HTTPDate.parse(text, now: now)
    }
}
