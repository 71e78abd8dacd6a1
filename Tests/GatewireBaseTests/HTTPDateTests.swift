import GatewireBase
import Testing

@Suite("HTTP-date parsing (RFC 9110 section 5.6.7)")
struct HTTPDateTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example.
    let rfcExample = 784_111_777.0

    @Test("the three HTTP-date forms give the same instant")
    func forms() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == rfcExample)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: 1_795_996_800) == rfcExample)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == rfcExample)
        #expect(HTTPDate.parse(" \tSun, 06 Nov 1994 08:49:37 GMT\t ") == rfcExample)
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT") == 951_782_400)
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
    }

    @Test("RFC 850 two-digit years: more than 50 years ahead means the past century")
    func twoDigitYears() {
        let now2026 = 1_795_996_800.0  // 2026-11-30
        #expect(HTTPDate.parse("Tuesday, 01-Jan-80 00:00:00 GMT", now: now2026) == 315_532_800)  // 1980
        #expect(HTTPDate.parse("Tuesday, 01-Jan-76 00:00:00 GMT", now: now2026) == 3_345_062_400)  // 2076
        #expect(HTTPDate.parse("Friday, 01-Jan-27 00:00:00 GMT", now: now2026) == 1_798_761_600)
    }

    @Test("not a date gives nil", arguments: [
        "", "120", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 31 Nov 1994 08:49:37 GMT",
        "Sun, 29 Feb 1900 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun Nov  6 8:49:37 1994",
    ])
    func notADate(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
