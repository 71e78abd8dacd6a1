import CGatewireABI
import Gatewire

private func result(_ pointer: OpaquePointer?) -> ResultBox? { pointer.map { unbox($0, as: ResultBox.self) } }

@_cdecl("gw_result_mapped_at")
public func gw_result_mapped_at(_ pointer: OpaquePointer?, _ keyPath: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let box = result(pointer), let response = box.response else { return nil }
    let key = string(keyPath) ?? ""
    return box.strings.string("mapped_at:" + key) { response.mapped?.node[key]?.serialized() }
}

@_cdecl("gw_result_mapped_first")
public func gw_result_mapped_first(_ pointer: OpaquePointer?, _ keyPath: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let box = result(pointer), let response = box.response else { return nil }
    let key = string(keyPath) ?? ""
    return box.strings.string("mapped_first:" + key) { response.mappingResult.first(at: key)?.serialized() }
}

@_cdecl("gw_result_mapped_count")
public func gw_result_mapped_count(_ pointer: OpaquePointer?, _ keyPath: UnsafePointer<CChar>?) -> Int64 {
    guard let response = result(pointer)?.response else { return 0 }
    guard let keyPath else { return Int64(response.mappingResult.count) }
    return Int64(response.mappingResult.count(at: String(cString: keyPath)))
}

@_cdecl("gw_result_metadata_json")
public func gw_result_metadata_json(_ pointer: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = result(pointer), let response = box.response else { return nil }
    return box.strings.string("metadata") { response.metadata?.serialized() }
}
