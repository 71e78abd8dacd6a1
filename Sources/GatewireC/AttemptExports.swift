import CGatewireABI
import Gatewire

// One attempt's outcome, the borrowed `gw_attempt *` of retry tests and plugins' did_receive
// (the "Attempts" section of gatewire.h).

@_cdecl("gw_attempt_number")
public func gw_attempt_number(_ attempt: OpaquePointer?) -> Int32 {
    attempt.map { Int32(unbox($0, as: AttemptView.self).number) } ?? 0
}

@_cdecl("gw_attempt_status")
public func gw_attempt_status(_ attempt: OpaquePointer?) -> Int32 {
    attempt.map { Int32(unbox($0, as: AttemptView.self).status) } ?? 0
}

@_cdecl("gw_attempt_error_kind")
public func gw_attempt_error_kind(_ attempt: OpaquePointer?) -> Int32 {
    attempt.flatMap { unbox($0, as: AttemptView.self).errorKind?.rawValue } ?? GW_KIND_NONE
}

@_cdecl("gw_attempt_elapsed")
public func gw_attempt_elapsed(_ attempt: OpaquePointer?) -> Double {
    attempt.map { unbox($0, as: AttemptView.self).elapsed } ?? 0
}

@_cdecl("gw_attempt_header")
public func gw_attempt_header(_ attempt: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let attempt, let name = string(name) else { return nil }
    let view = unbox(attempt, as: AttemptView.self)
    return view.strings.string("header:" + name.lowercased()) { view.headers[name] }
}
