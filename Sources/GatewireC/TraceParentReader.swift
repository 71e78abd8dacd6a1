import CGatewireABI
import Gatewire

/// `gw_call_options.traceparent` and `tracestate` (version 6) as the call's parent
/// ``TraceContext``, by the core's parser (W3C Trace Context Level 1, section 3.2), so that C
/// accepts exactly what Swift's `TraceContext(traceparent:)` and the CLI's `--traceparent` do.
enum TraceParentReader {
    typealias Failure = CallOptionsReader.Failure

    /// The parent the fields give, or nil when `traceparent` is NULL.
    /// - Throws: ``CallOptionsReader/Failure`` (GW_ERROR_INVALID_ARGUMENT) naming the field: a
    ///   `traceparent` the specification calls invalid; a `tracestate` without a
    ///   `traceparent`, or with a byte outside printable ASCII (section 3.3.1's list-members
    ///   are printable ASCII, and the value is sent as a header field: a control character
    ///   there would end the field, RFC 9110 section 5.5).
    static func parent(_ traceparent: UnsafePointer<CChar>?,
                       state tracestate: UnsafePointer<CChar>?) throws(Failure) -> TraceContext? {
        let state = tracestate.map { String(cString: $0) }
        guard let traceparent else {
            if state != nil { throw invalid("tracestate: set without traceparent (it travels with its parent)") }
            return nil
        }
        let text = String(cString: traceparent)
        if let state, let bad = state.utf8.first(where: { $0 < 0x20 || $0 > 0x7e }) {
            throw invalid("tracestate: byte 0x\(String(bad, radix: 16)) is not printable ASCII")
        }
        guard let context = TraceContext(traceparent: text, traceState: state) else {
            throw invalid("traceparent: \"\(text)\" is not a W3C traceparent (00-<32 hex trace id>-<16 hex span id>-"
                + "<2 hex flags>, lower case, ids not all zero)")
        }
        return context
    }

    private static func invalid(_ message: String) -> Failure { Failure(status: GW_ERROR_INVALID_ARGUMENT, message: message) }
}
