import Gatewire
import Testing

@Suite("Retry-After parsing (RFC 9110 section 10.2.3)")
struct RetryAfterTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT.
    let rfcExample = 784_111_777.0

    @Test("delay-seconds")
    func seconds() {
        #expect(RetryAfter.delay("120", now: 0) == 120)
        #expect(RetryAfter.delay("0", now: 0) == 0)
        #expect(RetryAfter.delay(" 5\t", now: 0) == 5)
        #expect(RetryAfter.delay("007", now: 0) == 7)
        let huge = RetryAfter.delay(String(repeating: "9", count: 400), now: 0)
        #expect(huge != nil && huge!.isFinite && huge! > 1e300)
    }

    @Test("httpDate is HTTPDate.parse")
    func httpDate() {
        #expect(RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == rfcExample)
        #expect(RetryAfter.httpDate("Sunday, 06-Nov-94 08:49:37 GMT", now: 1_795_996_800) == rfcExample)
        #expect(RetryAfter.httpDate("Sun, 31 Nov 1994 08:49:37 GMT") == nil)
    }

    @Test("an HTTP-date gives the time until it; a past date gives 0")
    func dateDelays() {
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now: rfcExample - 30) == 30)
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now: rfcExample - 0.5) == 0.5)
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:49:37 GMT", now: rfcExample + 3600) == 0)
        #expect(RetryAfter.delay("Sun Nov  6 08:50:37 1994", now: rfcExample) == 60)
    }

    @Test("malformed values give nil", arguments: [
        "", "  ", "-5", "1.5", "+3", "5s", "soon", "0x10",
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Nov 1994 08:49:37",
        "Sun, 06 Nov 94 08:49:37 GMT",
        "Sun, 31 Nov 1994 08:49:37 GMT",
        "Sun, 29 Feb 1900 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:00 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT",
        "Xyz, 06 Nov 1994 08:49:37 GMT",
        "Sun 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-1994 08:49:37 GMT",
        "Sun Nov  6 08:49:37",
        "Sun Nov  6 8:49:37 1994",
    ])
    func malformed(value: String) {
        #expect(RetryAfter.delay(value, now: rfcExample) == nil)
    }
}
