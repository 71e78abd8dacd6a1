import CGatewireABI
import Gatewire
import Glibc

@_cdecl("gw_client_cookies_json")
public func gw_client_cookies_json(_ client: OpaquePointer?, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outJSON?.pointee = nil
    guard let client, let outJSON else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_cookies_json: client or out_json is NULL") }
    let list = JSONValue.array()
    for cookie in unbox(client, as: ClientBox.self).client.cookies { list.append(cookie.json) }
    outJSON.pointee = strdup(list.serialized())
    return GW_OK
}
