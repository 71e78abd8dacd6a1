import CJansson

/// A response body that passed ``DeferredJSON/surelyValid(_:)`` but that nothing has needed
/// as a tree yet: Jansson parses it on first access (once; thread-safe), so a call whose
/// body no descriptor maps does not pay for a parse its caller may never look at.
///
/// Only bodies the quick check calls surely valid are deferred, so the parse cannot fail
/// and deferring changes no outcome: invalid JSON still fails the call at once with
/// Jansson's line and column.
final class DeferredJSON: Sendable {
    private let state: Lock<(bytes: [UInt8], value: JSONValue?)>

    /// The bytes to parse on first access (they share the response's storage).
    init(validBytes bytes: [UInt8]) { state = Lock((bytes, nil)) }

    /// The parsed body (nil only if Jansson failed to allocate).
    var value: JSONValue? {
        state.withLock { state in
            if state.value == nil, !state.bytes.isEmpty {
                state.value = state.bytes.withUnsafeBytes { bytes in try? JSONValue.parse(bytes) }
                state.bytes = []
            }
            return state.value
        }
    }

    /// Whether `bytes` is JSON that Jansson surely accepts (false: invalid, or not sure).
    static func surelyValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            return gw_json_surely_valid(base, buffer.count) == 1
        }
    }
}
