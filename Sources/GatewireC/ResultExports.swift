import CGatewireABI
import Gatewire

private func result(_ pointer: OpaquePointer?) -> ResultBox? { pointer.map { unbox($0, as: ResultBox.self) } }

@_cdecl("gw_result_ok")
public func gw_result_ok(_ pointer: OpaquePointer?) -> Int32 {
    result(pointer)?.fields.ok ?? 0
}

@_cdecl("gw_result_status")
public func gw_result_status(_ pointer: OpaquePointer?) -> Int32 {
    result(pointer)?.fields.status ?? 0
}

@_cdecl("gw_result_error_kind")
public func gw_result_error_kind(_ pointer: OpaquePointer?) -> Int32 {
    result(pointer)?.fields.error_kind ?? GW_KIND_NONE
}

@_cdecl("gw_result_error_kind_name")
public func gw_result_error_kind_name(_ pointer: OpaquePointer?) -> UnsafePointer<CChar> {
    let name: StaticString = result(pointer)?.error?.kind.staticName ?? "none"
    return UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("gw_result_error_message")
public func gw_result_error_message(_ pointer: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = result(pointer) else { return nil }
    return box.strings.string("message") { box.error?.message ?? "" }
}

@_cdecl("gw_result_method")
public func gw_result_method(_ pointer: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = result(pointer) else { return nil }
    return box.strings.string("method") { (box.response?.method ?? box.error?.method)?.rawValue }
}

@_cdecl("gw_result_path")
public func gw_result_path(_ pointer: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = result(pointer) else { return nil }
    return box.strings.string("path") { box.response?.path ?? box.error?.path }
}

@_cdecl("gw_result_url")
public func gw_result_url(_ pointer: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = result(pointer), let response = box.response else { return nil }
    return box.strings.string("url") { response.url }
}

@_cdecl("gw_result_body")
public func gw_result_body(_ pointer: OpaquePointer?, _ outLength: UnsafeMutablePointer<Int>?) -> UnsafePointer<UInt8>? {
    let fields = result(pointer)?.fields
    outLength?.pointee = fields?.body_length ?? 0
    return fields?.body  // into the box's own copy-free storage: no malloc, no lock
}

@_cdecl("gw_result_header")
public func gw_result_header(_ pointer: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let box = result(pointer), let name = string(name) else { return nil }
    return box.strings.string("header:" + name.lowercased()) { box.http?.headers[name] }
}

@_cdecl("gw_result_headers_json")
public func gw_result_headers_json(_ pointer: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = result(pointer) else { return nil }
    return box.strings.string("headers") {
        let pairs = JSONValue.array()
        for field in box.http?.headers ?? HTTPHeaders() {
            let pair = JSONValue.array()
            pair.append(.string(field.name))
            pair.append(.string(field.value))
            pairs.append(pair)
        }
        return pairs.serialized()
    }
}

@_cdecl("gw_result_mapped_json")
public func gw_result_mapped_json(_ pointer: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = result(pointer) else { return nil }
    return box.strings.string("mapped") { box.response?.mapped?.serialized() }
}

@_cdecl("gw_result_error_objects_json")
public func gw_result_error_objects_json(_ pointer: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = result(pointer) else { return nil }
    return box.strings.string("error_objects") { box.error?.errorObjects?.serialized() }
}

/// `gw_result_retry_after`: the seconds a `rate_limited` failure names until its limit frees
/// a slot (``GatewireError/retryAfter``); 0 for any other result or NULL.
@_cdecl("gw_result_retry_after")
public func gw_result_retry_after(_ pointer: OpaquePointer?) -> Double {
    result(pointer)?.error?.retryAfter ?? 0
}

/// `gw_result_shared_state_local`: 1 when a shared breaker's or rate limit's decision for the
/// call was made in process while the store failed (``Response/sharedStateLocal``,
/// ``GatewireError/sharedStateLocal``); 0 otherwise or for NULL.
@_cdecl("gw_result_shared_state_local")
public func gw_result_shared_state_local(_ pointer: OpaquePointer?) -> Int32 {
    guard let box = result(pointer) else { return 0 }
    return box.response?.sharedStateLocal == true || box.error?.sharedStateLocal == true ? 1 : 0
}

@_cdecl("gw_result_attempts_json")
public func gw_result_attempts_json(_ pointer: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let box = result(pointer) else { return nil }
    return box.strings.string("attempts") { box.attempts.serializedJSON() }
}

@_cdecl("gw_result_attempt_count")
public func gw_result_attempt_count(_ pointer: OpaquePointer?) -> Int32 {
    result(pointer)?.fields.attempt_count ?? 0
}

@_cdecl("gw_result_read")
public func gw_result_read(_ pointer: OpaquePointer?, _ outFields: UnsafeMutablePointer<gw_result_fields>?) -> Int32 {
    guard let pointer, let outFields else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_result_read: result or out_fields is NULL")
    }
    guard outFields.pointee.version == GW_RESULT_FIELDS_VERSION else {
        return LastError.fail(GW_ERROR_VERSION, "gw_result_read: unsupported gw_result_fields version \(outFields.pointee.version)")
    }
    outFields.pointee = unbox(pointer, as: ResultBox.self).fields
    return GW_OK
}

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

@_cdecl("gw_result_cache")
public func gw_result_cache(_ pointer: OpaquePointer?) -> Int32 {
    guard let response = pointer.map({ unbox($0, as: ResultBox.self) })?.response, response.fromCache else {
        return GW_CACHE_NETWORK
    }
    return response.revalidated ? GW_CACHE_REVALIDATED : GW_CACHE_HIT
}

// The typed, in-place reads of mapped objects: one value, or a walk over every value, as
// gw_result_mapped_value reads one, so a binding builds its own objects without JSON text.

@_cdecl("gw_result_mapped_value")
public func gw_result_mapped_value(_ pointer: OpaquePointer?, _ keyPath: UnsafePointer<CChar>?, _ index: Int64,
                                   _ field: UnsafePointer<CChar>?, _ outValue: UnsafeMutablePointer<gw_value>?) -> Int32 {
    guard let pointer, let outValue else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_result_mapped_value: result or out_value is NULL")
    }
    guard index >= -1 else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_result_mapped_value: index \(index) is below -1")
    }
    outValue.pointee = gw_value()
    let mapped = unbox(pointer, as: ResultBox.self).mapped
    guard let found = mapped.flatMap({ lookup(in: $0, keyPath: keyPath, index: Int(index), field: field) }) else {
        return GW_OK  // GW_VALUE_MISSING
    }
    fill(&outValue.pointee, from: found)
    return GW_OK
}

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

@_cdecl("gw_result_free")
public func gw_result_free(_ pointer: OpaquePointer?) {
    guard let pointer else { return }
    release(pointer, as: ResultBox.self)
}
