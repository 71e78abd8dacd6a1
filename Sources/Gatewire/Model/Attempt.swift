/// One attempt of a call: one request on the wire and its response, as kept in the attempt
/// history of every result and error. A retry is a new attempt; a followed redirect is a hop
/// of the same attempt (``redirects``).
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
    /// Bytes of response body received, decoded (those past `ResponseSizeLimit` included
    /// up to the chunk that crossed it: the transfer stopped there).
    public var bytesReceived: Int64 = 0
    /// The delay before the next attempt in seconds, or nil when this was the last one.
    public var delayAfter: Double?
    /// Why the call retried or stopped after this attempt (empty for a success).
    public var decision: String
    /// The redirects this attempt followed, in order (see ``RedirectPolicy``): each hop's
    /// status and the URL it led to, redacted. ``status``, ``timings`` and ``bytesSent``
    /// cover the whole chain: the last response's status, the phases and bytes summed over
    /// the hops (as libcurl sums them when it follows).
    public var redirects: [RedirectHop] = []

    /// The attempt as a JSON object: `{"attempt", "start", "duration", "status", "error",
    /// "curl_code", "message", "timings": {"dns", "connect", "tls", "first_byte", "total", "queued"},
    /// "bytes_sent", "bytes_received", "delay", "decision", "redirects": [{"status", "url"}]}`;
    /// times in seconds, absent values `null`.
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
        object.set("bytes_received", .integer(bytesReceived))
        object.set("delay", delayAfter.map(JSONValue.number) ?? .null())
        object.set("decision", .string(decision))
        object.set("redirects", redirectsJSON)
        return object
    }

    /// ``redirects`` as a JSON array of ``RedirectHop/json`` objects.
    var redirectsJSON: JSONValue {
        let hops = JSONValue.array()
        for hop in redirects { hops.append(hop.json) }
        return hops
    }
}

extension [Attempt] {
    /// The history as a JSON array of ``Attempt/json`` objects.
    public var json: JSONValue {
        let array = JSONValue.array()
        for attempt in self { array.append(attempt.json) }
        return array
    }

    /// The history as JSON text in the time format (``JSONValue/timeSignificantDigits``);
    /// `gw_result_attempts_json`.
    public func serializedJSON(pretty: Bool = false) -> String {
        json.serializedTimes(pretty: pretty)
    }
}

extension JSONValue {
    /// Significant digits of every real number in the JSON documents Gatewire writes about
    /// time: the attempt history (``Attempt/json``, with its ``TransferTimings/json``), call
    /// events (``CallEvent/json``) and the metrics plugin's counters (``MetricsPlugin/json``),
    /// that is `gw_result_attempts_json`, `gw_event_json` and `gw_client_metrics_json`.
    /// Times are seconds as JSON numbers written `%.11g`-style (Jansson's
    /// `JSON_REAL_PRECISION(11)`, exponent without `+` or leading zeros: `0.25`, `1.5e-5`,
    /// `86399.999999`): 11 is the fewest digits that keep every whole microsecond exact for
    /// times up to a day (`86399.999999` has 11), and libcurl measures in microseconds.
    /// Mapped objects, bodies and other user data keep the full 17 digits.
    public static let timeSignificantDigits = 11

    /// The value as JSON text in the time format (``timeSignificantDigits``).
    public func serializedTimes(pretty: Bool = false) -> String {
        serialized(pretty: pretty, significantDigits: Self.timeSignificantDigits)
    }
}
