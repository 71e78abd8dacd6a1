extension GatewireDate: Encodable {
    /// Encodes the date as ``iso8601`` (`2017-10-10T16:00:00.000Z`: UTC, milliseconds): the
    /// text the mapper's `date` attributes emit and RestKit sends, which ``init(from:)``
    /// reads back as the same date. There is no other strategy: to send seconds since 1970,
    /// encode ``secondsSince1970`` (or ``millisecondsSince1970``) in the type's own
    /// `encode(to:)`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }
}
