import CGatewireABI
import Gatewire

@_cdecl("gw_result_cache")
public func gw_result_cache(_ pointer: OpaquePointer?) -> Int32 {
    guard let response = pointer.map({ unbox($0, as: ResultBox.self) })?.response, response.fromCache else {
        return GW_CACHE_NETWORK
    }
    return response.revalidated ? GW_CACHE_REVALIDATED : GW_CACHE_HIT
}
