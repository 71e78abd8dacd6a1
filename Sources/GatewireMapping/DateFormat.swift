/// How an attribute of type ``AttributeType/date`` reads its source value
/// (config `"dateFormat"`). Output is always ISO 8601 UTC with milliseconds.
package enum DateFormat: String, Sendable, Hashable, CaseIterable {
    /// The default: an ISO 8601 or HTTP-date string, or a JSON number of seconds since 1970
    /// (RestKit's default transformers, minus its US-only `MM/dd/yyyy` and RFC 850/asctime
    /// forms). A numeric *string* is not taken as a timestamp here.
    case automatic
    /// An ISO 8601 string only (see ``GatewireDate/init(parsing:)``).
    case iso8601
    /// Seconds since 1970: a JSON number, or a string holding one (`"1477429167"`).
    case epochSeconds
    /// Milliseconds since 1970: a JSON number, or a string holding one (`"1678229664302"`).
    case epochMilliseconds
}
