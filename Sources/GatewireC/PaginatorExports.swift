import CGatewireABI
import Gatewire

// Issue 3: walking a route's pages from C.

/// The object behind a `gw_paginator *`.
final class PaginatorBox: Sendable {
    let owner: ClientBox
    let paginator: Paginator

    init(owner: ClientBox, paginator: Paginator) {
        self.owner = owner
        self.paginator = paginator
    }
}

@_cdecl("gw_paginator_new")
public func gw_paginator_new(_ client: OpaquePointer?, _ options: UnsafePointer<gw_call_options>?,
                             _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_paginator_new: out_paginator is NULL") }
    out.pointee = nil
    guard let client else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_paginator_new: client is NULL") }
    guard let options else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_paginator_new: options is NULL") }
    let owner = unbox(client, as: ClientBox.self)
    let request: Request
    do {
        request = try CallOptionsReader.request(from: options, client: owner.client)
    } catch {
        return LastError.fail(error.status, error.message)  // names the field: bindings call this for their own methods
    }
    do {
        out.pointee = box(PaginatorBox(owner: owner, paginator: try owner.client.paginator(request)))
        return GW_OK
    } catch {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, error.message)
    }
}

@_cdecl("gw_paginator_next")
public func gw_paginator_next(_ pointer: OpaquePointer?, _ outResult: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let outResult else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_paginator_next: out_result is NULL") }
    outResult.pointee = nil
    guard let pointer else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_paginator_next: paginator is NULL") }
    let paginator = unbox(pointer, as: PaginatorBox.self)
    if let refused = refuseBlocking("gw_paginator_next", paginator.owner) { return refused }
    do {
        guard let response = try paginator.paginator.next() else { return GW_DONE }
        outResult.pointee = box(ResultBox(.success(response)))
        return GW_OK
    } catch {
        outResult.pointee = box(ResultBox(.failure(error)))
        return LastError.fail(GW_ERROR_CALL_FAILED, error.description)
    }
}

@_cdecl("gw_paginator_page_count")
public func gw_paginator_page_count(_ pointer: OpaquePointer?) -> Int32 {
    guard let pointer else { return 0 }
    return Int32(clamping: unbox(pointer, as: PaginatorBox.self).paginator.pageCount)
}

@_cdecl("gw_paginator_free")
public func gw_paginator_free(_ pointer: OpaquePointer?) {
    guard let pointer else { return }
    release(pointer, as: PaginatorBox.self)
}
