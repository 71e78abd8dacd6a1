import CGatewireABI
import Glibc
import Gatewire

@_cdecl("gw_set_log_sink")
public func gw_set_log_sink(_ sink: gw_log_fn?, _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let sink else {
        Diagnostics.setSink(nil)
        return GW_OK
    }
    let context = UInt(bitPattern: userData)
    Diagnostics.setSink { line in sink(line, UnsafeMutableRawPointer(bitPattern: context)) }
    return GW_OK
}

@_cdecl("gw_client_metrics_json")
public func gw_client_metrics_json(_ client: OpaquePointer?, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outJSON?.pointee = nil
    guard let client, let outJSON else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_metrics_json: client or out_json is NULL") }
    guard let metrics = unbox(client, as: ClientBox.self).client.plugins.lazy.compactMap({ $0 as? MetricsPlugin }).first else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "the client has no metrics plugin (add {\"name\": \"metrics\"} to the config's plugins)")
    }
    outJSON.pointee = strdup(metrics.serializedJSON())
    return GW_OK
}
