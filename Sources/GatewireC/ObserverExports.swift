import CGatewireABI
import Gatewire

@_cdecl("gw_client_add_failure_observer")
public func gw_client_add_failure_observer(
    _ client: OpaquePointer?, _ observer: gw_failure_observer_fn?, _ userData: UnsafeMutableRawPointer?,
    _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?, _ outID: UnsafeMutablePointer<UInt64>?
) -> Int32 {
    addFailureObserver("gw_client_add_failure_observer", client, nil, observer, userData, destroy, outID)
}

@_cdecl("gw_client_add_failure_observer_filtered")
public func gw_client_add_failure_observer_filtered(
    _ client: OpaquePointer?, _ filterJSON: UnsafePointer<CChar>?, _ observer: gw_failure_observer_fn?,
    _ userData: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
    _ outID: UnsafeMutablePointer<UInt64>?
) -> Int32 {
    addFailureObserver("gw_client_add_failure_observer_filtered", client, filterJSON, observer, userData, destroy, outID)
}

/// Both gw_client_add_failure_observer functions: `function` is the one the caller called,
/// named in the messages; a NULL `filterJSON` observes every failure.
private func addFailureObserver(
    _ function: String, _ client: OpaquePointer?, _ filterJSON: UnsafePointer<CChar>?, _ observer: gw_failure_observer_fn?,
    _ userData: UnsafeMutableRawPointer?, _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?,
    _ outID: UnsafeMutablePointer<UInt64>?
) -> Int32 {
    outID?.pointee = 0
    guard let client else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "\(function): client is NULL") }
    guard let observer else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "\(function): observer is NULL") }
    let filter: FailureFilter
    do {
        filter = try string(filterJSON).map { (json) throws(ConfigError) in try FailureFilter(json: json) } ?? FailureFilter()
    } catch {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "filter \(error.description)")
    }
    let owner = unbox(client, as: ClientBox.self)
    let context = UInt(bitPattern: userData)  // raw pointers are not Sendable; ferry the address
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

@_cdecl("gw_client_remove_failure_observer")
public func gw_client_remove_failure_observer(_ client: OpaquePointer?, _ id: UInt64) -> Int32 {
    guard let client else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_remove_failure_observer: client is NULL") }
    guard unbox(client, as: ClientBox.self).removeObserver(id) else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "no failure observer with id \(id)")
    }
    return GW_OK
}
