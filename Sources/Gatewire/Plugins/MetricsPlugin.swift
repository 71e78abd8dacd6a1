/// Counts calls and attempts and sums their times, per client; read with ``snapshot`` or
/// ``json``. Config: `{"name": "metrics"}` (C: `gw_client_metrics_json`, Python:
/// `Client.metrics()`).
public final class MetricsPlugin: Plugin, Sendable {
    public let name = "metrics"

    /// The counters; times in seconds.
    public struct Snapshot: Sendable, Equatable {
        /// Calls finished.
        public var calls = 0
        /// Calls that finished with a failure.
        public var failures = 0
        /// Attempts finished.
        public var attempts = 0
        /// Attempts after the first of their call (retries and replays).
        public var retries = 0
        /// Attempts without a response.
        public var transportErrors = 0
        /// Attempts by status class: "2xx", "4xx", ...
        public var statusClasses: [String: Int] = [:]
        /// Sum of attempt durations.
        public var attemptTime = 0.0
        /// Sum of time to first byte over attempts with a response.
        public var firstByteTime = 0.0
        /// The longest attempt.
        public var maxAttemptTime = 0.0
    }

    private let state = Lock(Snapshot())

    /// A plugin with zeroed counters.
    public init() {}

    /// The counters now.
    public var snapshot: Snapshot { state.withLock { $0 } }

    /// `{"calls", "failures", "attempts", "retries", "transport_errors", "status_classes":
    /// {"2xx": n, ...}, "attempt_time", "first_byte_time", "max_attempt_time"}`.
    public var json: JSONValue {
        let value = snapshot
        let object = JSONValue.object()
        object.set("calls", .integer(Int64(value.calls)))
        object.set("failures", .integer(Int64(value.failures)))
        object.set("attempts", .integer(Int64(value.attempts)))
        object.set("retries", .integer(Int64(value.retries)))
        object.set("transport_errors", .integer(Int64(value.transportErrors)))
        let classes = JSONValue.object()
        for (name, count) in value.statusClasses.sorted(by: { $0.key < $1.key }) { classes.set(name, .integer(Int64(count))) }
        object.set("status_classes", classes)
        object.set("attempt_time", .number(value.attemptTime))
        object.set("first_byte_time", .number(value.firstByteTime))
        object.set("max_attempt_time", .number(value.maxAttemptTime))
        return object
    }

    /// ``json`` as JSON text in the time format (``JSONValue/timeSignificantDigits``);
    /// `gw_client_metrics_json`.
    public func serializedJSON(pretty: Bool = false) -> String {
        json.serializedTimes(pretty: pretty)
    }

    public func didReceive(_ attempt: Attempt, response: HTTPResponse?, context: PluginContext) {
        state.withLock { counters in
            counters.attempts += 1
            if attempt.number > 1 { counters.retries += 1 }
            if attempt.status == 0 {
                counters.transportErrors += 1
            } else {
                counters.statusClasses["\(attempt.status / 100)xx", default: 0] += 1
                counters.firstByteTime += attempt.timings.firstByte
            }
            counters.attemptTime += attempt.duration
            counters.maxAttemptTime = max(counters.maxAttemptTime, attempt.duration)
        }
    }

    public func process(_ result: Result<Response, GatewireError>, context: PluginContext)
        -> Result<Response, GatewireError>
    {
        state.withLock { counters in
            counters.calls += 1
            if case .failure = result { counters.failures += 1 }
        }
        return result
    }
}
