/// The W3C Trace Context of a span (W3C Trace Context Level 1, https://www.w3.org/TR/trace-context/):
/// the trace it belongs to, its own id, its flags and the vendors' `tracestate`. What a
/// `traceparent` header field carries, parsed and written by the rules of its section 3.2.
///
/// A call's parent comes from ``CallOptions/traceParent``, else ``TraceContext/current`` (a
/// task-local) when the call starts; every attempt then sends a `traceparent` of its own span
/// under the call's span (`Telemetry`).
public struct TraceContext: Sendable, Equatable, Hashable {
    /// The trace id: 16 bytes, never all zero (section 3.2.2.3).
    public var traceID: TraceID
    /// The id of this span (the `parent-id` field when sent): 8 bytes, never all zero
    /// (section 3.2.2.4).
    public var spanID: SpanID
    /// The `trace-flags` byte (section 3.2.2.5); bit 0 is ``isSampled``, the other bits are
    /// kept as received only within version `00`'s meaning (they are written as 0).
    public var flags: UInt8
    /// The `tracestate` header field as received (section 3.3), forwarded unchanged with the
    /// trace; nil when there was none. Not parsed: Gatewire adds no entry of its own.
    public var traceState: String?

    /// A context of the given ids; `sampled` sets flag bit 0.
    public init(traceID: TraceID, spanID: SpanID, sampled: Bool, traceState: String? = nil) {
        self.traceID = traceID
        self.spanID = spanID
        flags = sampled ? 1 : 0
        self.traceState = traceState
    }

    /// Whether the caller may have recorded this trace (flag bit 0, `sampled`).
    public var isSampled: Bool { flags & 1 == 1 }

    /// The `traceparent` header field value: `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`,
    /// lower-case (section 3.2.2), e.g. `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`.
    public var traceparent: String {
        // One string of 55 bytes written in place: this runs for every attempt.
        String(unsafeUninitializedCapacity: 55) { buffer in
            let dash = UInt8(ascii: "-"), zero = UInt8(ascii: "0")
            buffer[0] = zero
            buffer[1] = zero
            buffer[2] = dash
            writeHex(traceID.high, into: buffer, at: 3)
            writeHex(traceID.low, into: buffer, at: 19)
            buffer[35] = dash
            writeHex(spanID.value, into: buffer, at: 36)
            buffer[52] = dash
            buffer[53] = zero
            buffer[54] = isSampled ? UInt8(ascii: "1") : zero
            return 55
        }
    }

    /// Parses a `traceparent` value by the rules of section 3.2 (and 4.3 for later versions):
    /// `version-traceid-parentid-flags`, lower-case hex only; version `ff` is invalid; version
    /// `00` must be exactly 55 characters; a later version may be longer, with a `-` after
    /// the flags, and is read as version `00` (its extra fields ignored); an all-zero trace or
    /// parent id is invalid. `traceState` is the `tracestate` field to carry along.
    /// - Returns: nil for an invalid value (a receiver then starts a new trace, section 3.2.2).
    public init?(traceparent value: String, traceState: String? = nil) {
        let bytes = Array(value.utf8)
        guard bytes.count >= 55, let version = Self.hexByte(bytes, at: 0), version != 0xff,
              bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-") else {
            return nil
        }
        if version == 0 ? bytes.count != 55 : bytes.count > 55 && bytes[55] != UInt8(ascii: "-") { return nil }
        guard let high = Self.hexWord(bytes, at: 3), let low = Self.hexWord(bytes, at: 19),
              let span = Self.hexWord(bytes, at: 36), let flags = Self.hexByte(bytes, at: 53) else { return nil }
        guard high != 0 || low != 0, span != 0 else { return nil }
        traceID = TraceID(high: high, low: low)
        spanID = SpanID(span)
        // Version 00 defines bit 0 only; the others are not propagated (section 3.2.2.5).
        self.flags = flags & 1
        self.traceState = traceState
    }

    /// The ambient parent of calls started in this task (and the tasks it creates), when
    /// ``CallOptions/traceParent`` is nil: `TraceContext.$current.withValue(context) { ... }`.
    @TaskLocal public static var current: TraceContext?

    /// The 16 lower-case hex digits at `start` as a number, or nil when one is not `0-9a-f`.
    private static func hexWord(_ bytes: [UInt8], at start: Int) -> UInt64? {
        var value: UInt64 = 0
        for index in start..<start + 16 {
            guard let digit = hexDigit(bytes[index]) else { return nil }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    private static func hexByte(_ bytes: [UInt8], at start: Int) -> UInt8? {
        guard let high = hexDigit(bytes[start]), let low = hexDigit(bytes[start + 1]) else { return nil }
        return high << 4 | low
    }

    /// Section 3.2.2: `HEXDIGLC = DIGIT / "a" / "b" / "c" / "d" / "e" / "f"` (upper case is invalid).
    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

/// A 16-byte trace id (W3C Trace Context section 3.2.2.3), as two big-endian halves.
public struct TraceID: Sendable, Equatable, Hashable {
    /// The first 8 bytes, big-endian.
    public var high: UInt64
    /// The last 8 bytes, big-endian: what ``TraceSampler``'s ratio compares (OpenTelemetry's
    /// `TraceIdRatioBased` reads the low bytes of the id).
    public var low: UInt64

    /// An id of these two halves (valid unless both are 0).
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A new random id from the system's CSPRNG (`getrandom(2)` through
    /// `SystemRandomNumberGenerator`), never all zero.
    public static func random() -> TraceID {
        var system = SystemRandomNumberGenerator()
        while true {
            let id = TraceID(high: system.next(), low: system.next())
            if id.high != 0 || id.low != 0 { return id }
        }
    }

    /// 32 lower-case hex digits, as `traceparent` and OTLP/JSON write it.
    public var hex: String { hexDigits(high) + hexDigits(low) }
}

/// An 8-byte span id (W3C Trace Context section 3.2.2.4, `parent-id`), big-endian.
public struct SpanID: Sendable, Equatable, Hashable {
    /// The 8 bytes, big-endian.
    public var value: UInt64

    /// An id of these bytes (valid unless 0).
    public init(_ value: UInt64) { self.value = value }

    /// A new random id from the system's CSPRNG (`getrandom(2)`), never 0.
    public static func random() -> SpanID {
        var system = SystemRandomNumberGenerator()
        while true {
            let value: UInt64 = system.next()
            if value != 0 { return SpanID(value) }
        }
    }

    /// 16 lower-case hex digits.
    public var hex: String { hexDigits(value) }
}

/// `value` as 16 lower-case hex digits, leading zeros kept.
private func hexDigits(_ value: UInt64) -> String {
    String(unsafeUninitializedCapacity: 16) { buffer in
        writeHex(value, into: buffer, at: 0)
        return 16
    }
}

/// Writes `value` as 16 lower-case hex digits into `buffer` from `start`.
private func writeHex(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
    for index in 0..<16 {
        let digit = UInt8(truncatingIfNeeded: value >> (60 - 4 * UInt64(index))) & 0xf
        buffer[start + index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") - 10 + digit
    }
}
