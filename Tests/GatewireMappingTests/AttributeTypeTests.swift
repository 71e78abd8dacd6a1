import GatewireJSON
import GatewireMapping
import Testing

@Suite struct AttributeTypeTests {
    func coerce(_ text: String, _ type: AttributeType, _ format: DateFormat = .automatic) throws(MappingError) -> String {
        let value = try! JSONValue.parse(text)
        return try type.coerce(value.node, dateFormat: format, keyPath: "x").serialized()
    }

    func failure(_ text: String, _ type: AttributeType, _ format: DateFormat = .automatic) -> MappingError? {
        do { _ = try coerce(text, type, format); return nil } catch { return error }
    }

    @Test func integerIsExact() throws {
        #expect(try coerce("1061", .integer) == "1061")
        #expect(try coerce("9223372036854775807", .integer) == "9223372036854775807")
        #expect(try coerce("1305102810874389703", .integer) == "1305102810874389703")
        #expect(try coerce("3.0", .integer) == "3")
        #expect(try coerce(#""-42""#, .integer) == "-42")
        #expect(try coerce(#""9223372036854775807""#, .integer) == "9223372036854775807")
    }

    @Test func integerRejectsInexactValues() {
        #expect(failure(#""12abc""#, .integer)?.message == #""12abc" is not an integer"#)
        #expect(failure("3.5", .integer)?.message.contains("fraction") == true)
        // 2^63 as a digit string, and as a real (what Jansson would give for a huge number).
        #expect(failure(#""9223372036854775808""#, .integer)?.message == #""9223372036854775808" is beyond the 64-bit integer range"#)
        #expect(failure("9.223372036854775808e18", .integer)?.message.contains("beyond the 64-bit integer range") == true)
        #expect(failure(#""""#, .integer) != nil)
        #expect(failure(#"" 12""#, .integer) != nil)
        #expect(failure("true", .integer) != nil)
        #expect(failure("{}", .integer)?.keyPath == "x")
    }

    @Test func numberAcceptsNumbersAndWholeNumericStrings() throws {
        #expect(try coerce("12", .number) == "12")
        #expect(try coerce("12.5", .number) == "12.5")
        #expect(try coerce(#""12.5""#, .number) == "12.5")
        #expect(try coerce(#""-7""#, .number) == "-7")
        #expect(try coerce(#""1e3""#, .number) == "1000.0")
        #expect(failure(#""12abc""#, .number) != nil)
        #expect(failure(#""nan""#, .number) != nil)
        #expect(failure(#""0x10""#, .number) != nil)
        #expect(failure(#""""#, .number) != nil)
    }

    @Test func booleanIsStrict() throws {
        #expect(try coerce("true", .boolean) == "true")
        #expect(try coerce(#""false""#, .boolean) == "false")
        #expect(try coerce("1", .boolean) == "true")
        #expect(try coerce("0", .boolean) == "false")
        #expect(failure("2", .boolean) != nil)
        #expect(failure(#""yes""#, .boolean) != nil)
    }

    @Test func stringKeepsDigitStringsAndWritesNumbers() throws {
        #expect(try coerce(#""4242""#, .string) == #""4242""#)
        #expect(try coerce(#""23502""#, .string) == #""23502""#)
        #expect(try coerce("1061", .string) == #""1061""#)
        #expect(try coerce("1.0", .string) == #""1""#)
        #expect(try coerce("12.5", .string) == #""12.5""#)
        #expect(try coerce("false", .string) == #""false""#)
        #expect(failure("[1]", .string) != nil)
    }

    @Test func datesInEveryFormGiveISOWithMilliseconds() throws {
        let expected = #""2017-10-10T16:00:00.000Z""#
        #expect(try coerce(#""2017-10-10T16:00:00Z""#, .date) == expected)
        #expect(try coerce(#""2017-10-10T16:00:00.000Z""#, .date) == expected)
        #expect(try coerce(#""2017-10-10T18:00:00+02:00""#, .date) == expected)
        #expect(try coerce(#""2017-10-10T11:30:00-04:30""#, .date) == expected)
        #expect(try coerce(#""2017-10-10T16:00:00""#, .date) == expected)  // no zone = UTC
        #expect(try coerce(#""2017-10-10T16:00:00.123456Z""#, .date) == #""2017-10-10T16:00:00.123Z""#)
        #expect(try coerce(#""Tue, 10 Oct 2017 16:00:00 GMT""#, .date) == expected)
        #expect(try coerce(#""Sun, 06 Nov 1994 08:49:37 GMT""#, .date) == #""1994-11-06T08:49:37.000Z""#)
        #expect(try coerce("1507651200", .date) == expected)  // number = epoch seconds
        #expect(try coerce("1507651200.5", .date) == #""2017-10-10T16:00:00.500Z""#)
        #expect(try coerce("1507651200000", .date, .epochMilliseconds) == expected)
        #expect(try coerce(#""1507651200""#, .date, .epochSeconds) == expected)
        #expect(try coerce("1678229664302", .date, .epochMilliseconds) == #""2023-03-07T22:54:24.302Z""#)
        #expect(try coerce("0", .date) == #""1970-01-01T00:00:00.000Z""#)
        #expect(try coerce("-1", .date) == #""1969-12-31T23:59:59.000Z""#)
        #expect(try coerce(#""2024-02-29""#, .date) == #""2024-02-29T00:00:00.000Z""#)
    }

    @Test func badDatesAreErrors() {
        #expect(failure(#""2017-13-10T16:00:00Z""#, .date) != nil)
        #expect(failure(#""2023-02-29T00:00:00Z""#, .date) != nil)
        #expect(failure(#""yesterday""#, .date) != nil)
        #expect(failure(#""1507651200""#, .date) != nil)  // numeric string needs epochSeconds
        #expect(failure("1507651200", .date, .iso8601) != nil)
        #expect(failure(#""Tue, 10 Oct 2017 16:00:00 GMT""#, .date, .iso8601) != nil)
        #expect(failure("1e300", .date) != nil)
    }

    @Test func jsonPassesThrough() throws {
        #expect(try coerce(#"{"a":[1,"2"]}"#, .json) == #"{"a":[1,"2"]}"#)
    }

    @Test func gatewireDateRoundTrips() throws {
        let date = try #require(GatewireDate(parsing: "2017-10-10T16:00:00.250Z"))
        #expect(date.millisecondsSince1970 == 1_507_651_200_250)
        #expect(date.secondsSince1970 == 1_507_651_200.25)
        #expect(date.iso8601 == "2017-10-10T16:00:00.250Z")
        #expect(GatewireDate(parsing: "0001-01-01T00:00:00Z")?.iso8601 == "0001-01-01T00:00:00.000Z")
        #expect(GatewireDate(parsing: "9999-12-31T23:59:59.999Z")?.iso8601 == "9999-12-31T23:59:59.999Z")
        #expect(GatewireDate(parsing: "2017-10-10T16:00:00Z")! < date)
    }
}
