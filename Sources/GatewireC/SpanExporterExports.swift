import CGatewireABI
import Gatewire

/// A C span exporter: each finished call's spans as one JSON array of OTLP/JSON `Span`
/// objects (the OTLP JSON encoding, ``OTLPTraceJSON``), so a binding hands
/// them to its own tracing SDK with the core's ids and times.
private struct CSpanExporter: SpanExporter {
    let deliver: gw_span_export_fn
    /// The caller's `user_data`, as an address (raw pointers are not `Sendable`).
    let context: UInt

    func export(_ spans: [Span]) {
        CText.borrow(OTLPTraceJSON.array(spans)) { text, length in
            deliver(text, length, UnsafeMutableRawPointer(bitPattern: context))
        }
    }
}

@_cdecl("gw_client_add_span_exporter")
public func gw_client_add_span_exporter(
    _ client: OpaquePointer?, _ exporter: gw_span_export_fn?, _ userData: UnsafeMutableRawPointer?,
    _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?, _ outID: UnsafeMutablePointer<UInt64>?
) -> Int32 {
    outID?.pointee = 0
    guard let client else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_add_span_exporter: client is NULL") }
    guard let exporter else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_add_span_exporter: exporter is NULL")
    }
    let owner = unbox(client, as: ClientBox.self)
    let context = UInt(bitPattern: userData)
    let token = owner.client.addSpanExporter(CSpanExporter(deliver: exporter, context: context))
    // Register first: `outID?.pointee = ...` would skip the registration when outID is NULL.
    let id = owner.addExporter(token, destroy: destroy.map { destroy in { destroy(UnsafeMutableRawPointer(bitPattern: context)) } })
    outID?.pointee = id
    return GW_OK
}

@_cdecl("gw_client_remove_span_exporter")
public func gw_client_remove_span_exporter(_ client: OpaquePointer?, _ id: UInt64) -> Int32 {
    guard let client else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_remove_span_exporter: client is NULL") }
    guard unbox(client, as: ClientBox.self).removeExporter(id) else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "no span exporter with id \(id)")
    }
    return GW_OK
}
