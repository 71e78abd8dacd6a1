/// One event of a call's life, for logging and metrics (Alamofire's `EventMonitor`, OkHttp's
/// `EventListener`). Every call produces, in order: `callStarted`, then per attempt
/// `attemptStarted` and `attemptFinished` (with timings), `retryScheduled` before each
/// delay, and `callFinished` once (after the plugins' `process`, before the failure
/// observers and the completion).
///
/// Two kinds belong to no call but to the client's `sharedState` store (docs/fleet.md "When
/// Redis fails"), each announced once per outage: `sharedStateDegraded` when the store has
/// failed repeatedly and the client's circuit breakers and rate limits decide in process,
/// `sharedStateRecovered` when it answers again. They reach the client's event monitors only
/// (no call's ``CallOptions/onEvent``), with ``callID`` 0, ``attempt`` 0, ``elapsed`` 0,
/// ``path`` empty and the sentence the log writes in ``reason``.
public struct CallEvent: Sendable {
    /// What happened.
    public enum Kind: String, Sendable, CaseIterable {
        case callStarted = "call_started"
        case attemptStarted = "attempt_started"
        case attemptFinished = "attempt_finished"
        case retryScheduled = "retry_scheduled"
        case callFinished = "call_finished"
        case sharedStateDegraded = "shared_state_degraded"
        case sharedStateRecovered = "shared_state_recovered"
    }

    /// What happened.
    public var kind: Kind
    /// The call, unique within its client (the same as ``PluginContext/callID``).
    public var callID: UInt64
    /// The call's method.
    public var method: HTTPMethod
    /// The call's path relative to the base URL, secret query values hidden (``Redactor``).
    public var path: String
    /// The attempt number (0 for `callStarted`; the attempts made for `callFinished`).
    public var attempt: Int
    /// Seconds since the call started.
    public var elapsed: Double
    /// The status: of the attempt (`attemptFinished`, `retryScheduled`) or the call
    /// (`callFinished`); 0 for none.
    public var status: Int = 0
    /// The failure kind (`attemptFinished` with a transport failure, failed `callFinished`).
    public var errorKind: ErrorKind?
    /// The delay before the next attempt in seconds (`retryScheduled`).
    public var delay: Double?
    /// Why the call retries (`retryScheduled`): the retry decision, as the attempt's
    /// ``Attempt/decision`` will say; not part of ``json``. For the store's kinds, what
    /// happened (``json``'s `"message"`).
    public var reason: String?
    /// The finished attempt with its timings (`attemptFinished`).
    public var record: Attempt?

    /// `{"event", "call_id", "method", "path", "attempt", "elapsed", "status", "error",
    /// "delay", "timings", "redirects"}` ("redirects": the finished attempt's hops as in
    /// ``Attempt/json``); absent values `null`, times in seconds. The store's kinds are
    /// `{"event", "call_id": 0, "message"}`.
    public var json: JSONValue {
        let object = JSONValue.object()
        object.set("event", .string(kind.rawValue))
        if kind == .sharedStateDegraded || kind == .sharedStateRecovered {
            object.set("call_id", .integer(0))
            object.set("message", .string(reason ?? ""))
            return object
        }
        object.set("call_id", .integer(Int64(truncatingIfNeeded: callID)))
        object.set("method", .string(method.rawValue))
        object.set("path", .string(path))
        object.set("attempt", .integer(Int64(attempt)))
        object.set("elapsed", .number(elapsed))
        object.set("status", .integer(Int64(status)))
        object.set("error", errorKind.map { .string($0.name) } ?? .null())
        object.set("delay", delay.map(JSONValue.number) ?? .null())
        object.set("timings", record?.timings.json ?? .null())
        object.set("redirects", record?.redirectsJSON ?? .null())
        return object
    }

    /// ``json`` as JSON text in the time format (``JSONValue/timeSignificantDigits``);
    /// `gw_event_json`.
    public func serializedJSON(pretty: Bool = false) -> String {
        json.serializedTimes(pretty: pretty)
    }
}

extension CallEvent {
    /// The store's announcement (`degraded`, else recovered) with its sentence.
    init(storeDegraded degraded: Bool, message: String) {
        self.init(kind: degraded ? .sharedStateDegraded : .sharedStateRecovered, callID: 0, method: .get, path: "",
                  attempt: 0, elapsed: 0, reason: message)
    }
}

/// Sees every ``CallEvent`` of a client. Runs on the event-loop thread and must not block;
/// an error it throws is contained (reported to ``Diagnostics``).
public typealias EventMonitor = @Sendable (CallEvent) throws -> Void

/// The client's event monitors; registration and removal are safe from any thread.
final class EventMonitors: Sendable {
    private let registry = CallbackRegistry<EventMonitor>()

    func add(_ monitor: @escaping EventMonitor) -> ObserverToken { registry.add(monitor) }

    @discardableResult
    func remove(_ token: ObserverToken) -> Bool { registry.remove(token) }

    var isEmpty: Bool { registry.snapshot.isEmpty }

    /// Gives `event` to every monitor of the client, then to `callMonitor` (the call's own,
    /// ``CallOptions/onEvent``); builds it only when one listens.
    func emit(_ event: @autoclosure () -> CallEvent, to callMonitor: EventMonitor? = nil) {
        let monitors = registry.snapshot
        guard !monitors.isEmpty || callMonitor != nil else { return }
        let value = event()
        for monitor in monitors { Self.run(monitor, value) }
        if let callMonitor { Self.run(callMonitor, value) }
    }

    private static func run(_ monitor: EventMonitor, _ value: CallEvent) {
        do {
            try monitor(value)
        } catch {
            Diagnostics.report("an event monitor threw \(error) (contained) on \(value.kind.rawValue)")
        }
    }
}
