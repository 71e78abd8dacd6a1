/// The breaker around the shared store itself (Stoplight's fail-safe layer): whether a
/// client's breakers and rate limits trust Redis now, and whether they should ask it at all. Event-loop
/// thread only; times are ``MonotonicClock`` seconds.
///
/// - After any failed operation (an error, no reply within the store's `timeout`, a reply
///   of the wrong shape) the breakers and rate limits decide in process (``decidesLocally``) until one
///   operation succeeds: what an instance knows from Redis may be stale, and "no breaker"
///   is never the fallback.
/// - After ``failureThreshold`` failures in a row the client stops asking (``allows(now:)``
///   is false) for ``pause`` seconds; then the next operations are probes, and a failed
///   probe stops the asking for another pause. A fixed pause (no growth) keeps the return
///   prompt: a probe per pause per client is nothing to a server that is back, and the
///   connection's own reconnection backoff already spaces the connects.
/// - Degradation and recovery are each announced once, on the ``Diagnostics`` log and to the
///   client's event monitors (``CallEvent/Kind/sharedStateDegraded`` and
///   ``CallEvent/Kind/sharedStateRecovered``, through ``announce``): one when the client
///   stops asking, one when Redis answers again.
final class StoreHealth {
    /// Failures in a row after which the client stops asking for a while.
    static let failureThreshold = 3
    /// How long the client stops asking, in seconds.
    static let pause = 1.0

    /// The server as messages name it (no password).
    let server: String
    private var failures = 0
    /// When the client may ask again; nil while it asks freely.
    private var retryAt: Double?
    private var announced = false
    /// Told each announcement: `degraded` (else recovered) and its sentence.
    private let announce: (_ degraded: Bool, _ message: String) -> Void

    /// The health of the store at `server`; `announce` hears each degradation and recovery
    /// once (on the thread that reports the outcomes: the loop's).
    init(server: String, announce: @escaping (_ degraded: Bool, _ message: String) -> Void = { _, _ in }) {
        self.server = server
        self.announce = announce
    }

    /// Whether the breakers and rate limits decide in process: since the last failure, until a success.
    var decidesLocally: Bool { failures > 0 }

    /// Whether an operation may be sent at `now` (false while the client has stopped asking).
    func allows(now: Double) -> Bool { retryAt.map { now >= $0 } ?? true }

    /// An operation got its reply.
    func succeeded() {
        if announced {
            let message = "shared state: \(server) answers again; circuit breakers and rate limits share their state again"
            Diagnostics.report(message)
            announce(false, message)
        }
        announced = false
        failures = 0
        retryAt = nil
    }

    /// An operation failed (`why`: the error, for the log line).
    func failed(_ why: String, now: Double) {
        failures += 1
        guard failures >= Self.failureThreshold else { return }
        retryAt = now + Self.pause
        guard !announced else { return }
        announced = true
        let message = "shared state: \(server) failed \(failures) times in a row (\(why)); circuit breakers "
            + "and rate limits decide in process, asking again in \(Self.pause) s"
        Diagnostics.report(message)
        announce(true, message)
    }
}
