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
