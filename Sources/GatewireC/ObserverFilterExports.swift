import CGatewireABI
import Glibc
import Gatewire

@_cdecl("gw_client_add_failure_observer_filtered")
public func gw_client_add_failure_observer_filtered(
    _ client: OpaquePointer?, _ filterJSON: UnsafePointer<CChar>?, _ observer: gw_failure_observer_fn?,
    _ userData: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
    _ outID: UnsafeMutablePointer<UInt64>?
) -> Int32 {
    outID?.pointee = 0
    guard let client else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_add_failure_observer_filtered: client is NULL") }
    guard let observer else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_add_failure_observer_filtered: observer is NULL") }
    let filter: FailureFilter
    do {
        filter = try string(filterJSON).map { (json) throws(ConfigError) in try FailureFilter(json: json) } ?? FailureFilter()
    } catch {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "filter \(error.description)")
    }
    let owner = unbox(client, as: ClientBox.self)
    let context = UInt(bitPattern: userData)
    let token = owner.client.addFailureObserver(filter: filter) { error in
        let failure = ResultBox(.failure(error))
        withExtendedLifetime(failure) {
            observer(OpaquePointer(Unmanaged.passUnretained(failure).toOpaque()), UnsafeMutableRawPointer(bitPattern: context))
        }
    }
    // Register first: `outID?.pointee = ...` would skip the registration when outID is NULL.
    let id = owner.addObserver(token, destroy: destroy.map { destroy in { destroy(UnsafeMutableRawPointer(bitPattern: context)) } })
    outID?.pointee = id
    return GW_OK
}

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
