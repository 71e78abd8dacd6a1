import CGatewireABI
import Gatewire
import Glibc

@_cdecl("gw_version")
public func gw_version() -> UnsafePointer<CChar> {
    Version.cString
}

@_cdecl("gw_last_error_message")
public func gw_last_error_message() -> UnsafePointer<CChar> {
    let empty: StaticString = ""
    return LastError.message ?? UnsafeRawPointer(empty.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("gw_string_free")
public func gw_string_free(_ string: UnsafeMutablePointer<CChar>?) {
    free(string)
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
