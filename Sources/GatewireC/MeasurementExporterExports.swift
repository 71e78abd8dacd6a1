import CGatewireABI
import Gatewire

/// A C measurement exporter: each batch of measurements as one JSON array
/// (``MeasurementJSON``), so a binding records them in its own metrics SDK.
private struct CMeasurementExporter: MeasurementExporter {
    let deliver: gw_measurement_export_fn
    /// The caller's `user_data`, as an address (raw pointers are not `Sendable`).
    let context: UInt

    func export(_ measurements: [MetricMeasurement]) {
        CText.borrow(MeasurementJSON.array(measurements)) { text, length in
            deliver(text, length, UnsafeMutableRawPointer(bitPattern: context))
        }
    }
}

@_cdecl("gw_client_add_measurement_exporter")
public func gw_client_add_measurement_exporter(
    _ client: OpaquePointer?, _ exporter: gw_measurement_export_fn?, _ userData: UnsafeMutableRawPointer?,
    _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?, _ outID: UnsafeMutablePointer<UInt64>?
) -> Int32 {
    outID?.pointee = 0
    guard let client else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_add_measurement_exporter: client is NULL")
    }
    guard let exporter else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_add_measurement_exporter: exporter is NULL")
    }
    let owner = unbox(client, as: ClientBox.self)
    let context = UInt(bitPattern: userData)
    let token = owner.client.addMeasurementExporter(CMeasurementExporter(deliver: exporter, context: context))
    // Register first: `outID?.pointee = ...` would skip the registration when outID is NULL.
    let id = owner.addMeasurementExporter(token, destroy: destroy.map { destroy in
        { destroy(UnsafeMutableRawPointer(bitPattern: context)) }
    })
    outID?.pointee = id
    return GW_OK
}

@_cdecl("gw_client_remove_measurement_exporter")
public func gw_client_remove_measurement_exporter(_ client: OpaquePointer?, _ id: UInt64) -> Int32 {
    guard let client else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_remove_measurement_exporter: client is NULL")
    }
    guard unbox(client, as: ClientBox.self).removeMeasurementExporter(id) else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "no measurement exporter with id \(id)")
    }
    return GW_OK
}

/// `gw_client_telemetry_metrics_json`: ``Client/metricsSnapshot()`` as the OTLP/HTTP JSON
/// request (what the OTLP metric exporter sends with `http/json`).
@_cdecl("gw_client_telemetry_metrics_json")
public func gw_client_telemetry_metrics_json(_ client: OpaquePointer?,
                                             _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outJSON?.pointee = nil
    guard let client, let outJSON else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_telemetry_metrics_json: client or out_json is NULL")
    }
    guard let text = unbox(client, as: ClientBox.self).client.otlpMetricsJSON() else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT,
                              "telemetry is off for this client (no \"telemetry\" in the config, no OTEL_EXPORTER_OTLP_ENDPOINT, no span or measurement exporter)")
    }
    outJSON.pointee = CText.copy(text)
    return GW_OK
}
