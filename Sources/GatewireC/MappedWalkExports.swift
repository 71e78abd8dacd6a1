import CGatewireABI
import Gatewire

// The walk of the mapped objects (gatewire.h: gw_result_mapped_walk): every value in place,
// as gw_result_mapped_value reads one, so a binding builds its own objects without JSON text.

@_cdecl("gw_result_mapped_walk")
public func gw_result_mapped_walk(_ pointer: OpaquePointer?, _ visitor: gw_value_visitor?,
                                  _ userData: UnsafeMutableRawPointer?) -> Int32 {
    guard let pointer, let visitor else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_result_mapped_walk: result or visitor is NULL")
    }
    guard let mapped = unbox(pointer, as: ResultBox.self).mapped else { return GW_OK }
    var value = gw_value()
    let finished = mapped.walk(enter: { key, node in
        value = gw_value()
        fill(&value, from: node)
        return visitor(userData, key?.baseAddress, key?.count ?? 0, &value) == 0
    }, leave: { _ in
        value = gw_value()
        value.type = GW_VALUE_END
        return visitor(userData, nil, 0, &value) == 0
    })
    return finished ? GW_OK : GW_DONE
}
