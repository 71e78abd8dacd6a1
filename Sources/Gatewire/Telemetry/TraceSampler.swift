/// Which calls' spans are recorded and exported: OpenTelemetry's samplers as the SDK
/// environment variable `OTEL_TRACES_SAMPLER` names them (`always_on`, `always_off`,
/// `traceidratio`, `parentbased_always_on`, `parentbased_always_off`,
/// `parentbased_traceidratio`), with `OTEL_TRACES_SAMPLER_ARG` the ratio.
public struct TraceSampler: Sendable, Equatable {
    /// Whether a call with a parent follows the parent's sampled flag (the `parentbased_*`
    /// samplers) rather than the ratio.
    public var followsParent: Bool
    /// The share of traces sampled, 0...1: a trace id whose low 8 bytes, as a number, are
    /// below `ratio * 2^64` is sampled (the `TraceIdRatioBased` sampler), so every service
    /// using the same ratio keeps the same traces.
    public var ratio: Double

    /// A sampler; `ratio` is clamped to 0...1.
    public init(followsParent: Bool = true, ratio: Double = 1) {
        self.followsParent = followsParent
        self.ratio = min(1, max(0, ratio))
    }

    /// The sampler `OTEL_TRACES_SAMPLER` names (`argument`: `OTEL_TRACES_SAMPLER_ARG`, the
    /// ratio of the `*traceidratio` ones, default 1.0), or nil for an unknown name or a ratio
    /// that is not a number in 0...1 (the SDK specification then keeps the default).
    public init?(environmentName name: String, argument: String?) {
        let ratio: Double
        if let argument {
            guard let value = Double(argument), (0...1).contains(value) else { return nil }
            ratio = value
        } else {
            ratio = 1
        }
        switch name {
        case "always_on": self.init(followsParent: false, ratio: 1)
        case "always_off": self.init(followsParent: false, ratio: 0)
        case "traceidratio": self.init(followsParent: false, ratio: ratio)
        case "parentbased_always_on": self.init(followsParent: true, ratio: 1)
        case "parentbased_always_off": self.init(followsParent: true, ratio: 0)
        case "parentbased_traceidratio": self.init(followsParent: true, ratio: ratio)
        default: return nil
        }
    }

    /// Whether a call in trace `traceID` under `parent` (nil: a new trace) is sampled.
    public func samples(_ traceID: TraceID, parent: TraceContext?) -> Bool {
        if followsParent, let parent { return parent.isSampled }
        if ratio >= 1 { return true }
        if ratio <= 0 { return false }
        return Double(traceID.low) < ratio * 0x1.0p64
    }
}
