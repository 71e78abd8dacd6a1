/// How a ``RedisConnection`` waits, retries and bounds its queue. Times in seconds.
package struct RedisConnectionOptions: Hashable, Sendable {
    /// A command's timeout when it names none: its completion gets a
    /// ``RedisError/Kind/timeout`` error after this long without a reply (default 1 s; a
    /// fleet's state store uses its own `timeout`, e.g. 0.05 s). Must be > 0.
    package var commandTimeout: Double = 1
    /// How long connecting, `AUTH` and `SELECT` together may take before the attempt is
    /// dropped and retried after a backoff (default 1 s).
    package var connectTimeout: Double = 1
    /// The first reconnection delay; each failed attempt doubles it up to
    /// ``maxReconnectDelay``, and a delay is drawn with "equal jitter" between half of it and
    /// all of it (AWS Architecture Blog, "Exponential Backoff And Jitter"), so clients that
    /// lost one server do not come back in step. Default 0.05 s.
    package var initialReconnectDelay: Double = 0.05
    /// The longest reconnection delay (default 2 s).
    package var maxReconnectDelay: Double = 2
    /// The most commands waiting at once, sent without a reply yet or held while the
    /// connection logs in (timed-out ones count until their late reply or the disconnect);
    /// past it a command fails at once with ``RedisError/Kind/overloaded``. Default 10,000.
    package var maxPending = 10_000

    package init() {}

    /// The delay before reconnection attempt `attempt` (0 for the first after a failure).
    /// `random` gives a number in 0..<1 (tests pass a fixed one).
    package func reconnectDelay(attempt: Int, random: Double = Double.random(in: 0..<1)) -> Double {
        let exponential = initialReconnectDelay * Double(1 << min(attempt, 30))
        let capped = min(maxReconnectDelay, exponential)
        return capped / 2 + capped / 2 * random
    }
}
