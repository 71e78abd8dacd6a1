/// Time limits of a call, in seconds.
///
/// Ranges (`CallLimits/duration`, as the config's `timeouts`): ``connect`` 0.001...86400;
/// ``attempt`` and ``deadline`` nil or `.infinity` (both mean no limit) or 0.001...86400.
/// NaN, zero, negatives and finite values above 86400 (a day) fail a call that carries
/// them in ``CallOptions/timeouts`` before anything is sent, with kind `invalidArgument`
/// and a message naming the field: `options.timeouts.attempt: nan is out of range (nil or
/// infinity = no limit, or 0.001...86400 seconds)`.
public struct Timeouts: Sendable, Equatable {
    /// Longest wait for a connection, per attempt: 0.001...86400. Default 10 s.
    public var connect: Double
    /// Longest time for one attempt, connect included: 0.001...86400; nil or `.infinity`
    /// for none. Default 30 s.
    public var attempt: Double?
    /// Longest time for the whole call, all attempts and delays included: 0.001...86400;
    /// nil (default) or `.infinity` for none.
    public var deadline: Double?

    /// Limits in seconds; nil or `.infinity` for `attempt` or `deadline` means no limit.
    /// Not checked here: a call checks them (see ``Timeouts``).
    public init(connect: Double = 10, attempt: Double? = 30, deadline: Double? = nil) {
        self.connect = connect
        self.attempt = attempt
        self.deadline = deadline
    }
}
