import CGatewireABI
import Gatewire

/// The object behind a borrowed `gw_event *`.
final class EventView {
    let event: CallEvent
    let strings = CStringCache()
    init(_ event: CallEvent) { self.event = event }
}

private func view(_ pointer: OpaquePointer?) -> EventView? { pointer.map { unbox($0, as: EventView.self) } }

@_cdecl("gw_client_add_event_monitor")
public func gw_client_add_event_monitor(
    _ client: OpaquePointer?, _ monitor: gw_event_fn?, _ userData: UnsafeMutableRawPointer?,
    _ destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?, _ outID: UnsafeMutablePointer<UInt64>?
) -> Int32 {
    outID?.pointee = 0
    guard let client else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_add_event_monitor: client is NULL") }
    guard let monitor else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_add_event_monitor: monitor is NULL") }
    let owner = unbox(client, as: ClientBox.self)
    let context = UInt(bitPattern: userData)
    let token = owner.client.addEventMonitor { event in
        let view = EventView(event)
        withExtendedLifetime(view) {
            monitor(OpaquePointer(Unmanaged.passUnretained(view).toOpaque()), UnsafeMutableRawPointer(bitPattern: context))
        }
    }
    // Register first: `outID?.pointee = ...` would skip the registration when outID is NULL.
    let id = owner.addMonitor(token, destroy: destroy.map { destroy in { destroy(UnsafeMutableRawPointer(bitPattern: context)) } })
    outID?.pointee = id
    return GW_OK
}

@_cdecl("gw_client_remove_event_monitor")
public func gw_client_remove_event_monitor(_ client: OpaquePointer?, _ id: UInt64) -> Int32 {
    guard let client else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_remove_event_monitor: client is NULL") }
    guard unbox(client, as: ClientBox.self).removeMonitor(id) else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "no event monitor with id \(id)")
    }
    return GW_OK
}

@_cdecl("gw_event_kind")
public func gw_event_kind(_ event: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let view = view(event) else { return nil }
    return view.strings.string("kind") { view.event.kind.rawValue }
}

@_cdecl("gw_event_call_id")
public func gw_event_call_id(_ event: OpaquePointer?) -> UInt64 { view(event)?.event.callID ?? 0 }

@_cdecl("gw_event_attempt")
public func gw_event_attempt(_ event: OpaquePointer?) -> Int32 { Int32(view(event)?.event.attempt ?? 0) }

@_cdecl("gw_event_status")
public func gw_event_status(_ event: OpaquePointer?) -> Int32 { Int32(view(event)?.event.status ?? 0) }

@_cdecl("gw_event_json")
public func gw_event_json(_ event: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let view = view(event) else { return nil }
    return view.strings.string("json") { view.event.serializedJSON() }
}
