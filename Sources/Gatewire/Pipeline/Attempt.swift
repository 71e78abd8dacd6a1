/// One attempt of a call, as kept in the attempt history of every result and error.
public struct Attempt: Sendable {
    /// 1 for the first attempt.
    public var number: Int
    /// Seconds from the start of the call to the start of this attempt.
    public var startOffset: Double
    /// Seconds this attempt took.
    public var duration: Double
    /// The response status, or 0 when no response arrived.
    public var status: Int
    /// The transport failure kind, or nil when a response arrived.
    public var errorKind: ErrorKind?
    /// libcurl's `CURLcode` for a transport failure, else 0.
    public var curlCode: Int32
    /// libcurl's message for a transport failure, else nil.
    public var message: String?
    /// The attempt's timings.
    public var timings: TransferTimings
    /// Bytes of request written to the connection.
    public var bytesSent: Int64
    /// The delay before the next attempt in seconds, or nil when this was the last one.
    public var delayAfter: Double?
    /// Why the call retried or stopped after this attempt (empty for a success).
    public var decision: String

    /// The attempt as a JSON object: `{"attempt", "start", "duration", "status", "error",
    /// "curl_code", "message", "timings": {"dns", "connect", "tls", "first_byte", "total"},
    /// "bytes_sent", "delay", "decision"}`; times in seconds, absent values `null`.
    public var json: JSONValue {
        let object = JSONValue.object()
        object.set("attempt", .integer(Int64(number)))
        object.set("start", .number(startOffset))
        object.set("duration", .number(duration))
        object.set("status", .integer(Int64(status)))
        object.set("error", errorKind.map { .string($0.name) } ?? .null())
        object.set("curl_code", .integer(Int64(curlCode)))
        object.set("message", message.map(JSONValue.string) ?? .null())
        object.set("timings", timings.json)
        object.set("bytes_sent", .integer(bytesSent))
        object.set("delay", delayAfter.map(JSONValue.number) ?? .null())
        object.set("decision", .string(decision))
        return object
    }
}

extension [Attempt] {
    /// The history as a JSON array of ``Attempt/json`` objects.
    public var json: JSONValue {
        let array = JSONValue.array()
        for attempt in self { array.append(attempt.json) }
        return array
    }

    /// The history as JSON text, times written with 9 significant digits (nanoseconds for
    /// any call under a second; libcurl measures in microseconds).
    public func serializedJSON(pretty: Bool = false) -> String {
        json.serialized(pretty: pretty, significantDigits: 9)
    }
}
