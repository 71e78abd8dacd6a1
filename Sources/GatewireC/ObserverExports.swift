import CGatewireABI
import Gatewire

@_cdecl("gw_client_add_failure_observer")
public func gw_client_add_failure_observer(
    _ client: OpaquePointer?, _ observer: gw_failure_observer_fn?, _ userData: UnsafeMutableRawPointer?,
    _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?, _ outID: UnsafeMutablePointer<UInt64>?
) -> Int32 {
    outID?.pointee = 0
    guard let client else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_add_failure_observer: client is NULL") }
    guard let observer else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_add_failure_observer: observer is NULL") }
    let owner = unbox(client, as: ClientBox.self)
    let context = UInt(bitPattern: userData)  // raw pointers are not Sendable; ferry the address
    let token = owner.client.addFailureObserver { error in
        let failure = ResultBox(.failure(error))
        withExtendedLifetime(failure) {
            observer(OpaquePointer(Unmanaged.passUnretained(failure).toOpaque()), UnsafeMutableRawPointer(bitPattern: context))
        }
    }
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
