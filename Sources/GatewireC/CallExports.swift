import CGatewireABI
import Gatewire

/// Checks the client and options and builds the request, or records why not and returns
/// nil with `status` set: a NULL argument as "`function`: ... is NULL", a bad option value
/// as the reader's message, which names the field (`retry.max_retries: ...`), with its status
/// (GW_ERROR_VERSION for a nested struct of another version, else GW_ERROR_INVALID_ARGUMENT).
func prepareCall(_ function: String, _ client: OpaquePointer?, _ options: UnsafePointer<gw_call_options>?,
                 status: inout Int32) -> (ClientBox, Request)? {
    status = GW_ERROR_INVALID_ARGUMENT
    guard let client else {
        LastError.set("\(function): client is NULL")
        return nil
    }
    guard let options else {
        LastError.set("\(function): options is NULL")
        return nil
    }
    let owner = unbox(client, as: ClientBox.self)
    do {
        return (owner, try CallOptionsReader.request(from: options, client: owner.client))
    } catch {
        status = error.status
        LastError.set(error.message)  // names the field, not `function`: bindings call this for their own methods
        return nil
    }
}

@_cdecl("gw_call")
public func gw_call(_ client: OpaquePointer?, _ options: UnsafePointer<gw_call_options>?,
                    _ outResult: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let outResult else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_call: out_result is NULL") }
    outResult.pointee = nil
    if let options, case let version = UnsafeRawPointer(options).load(as: UInt32.self), !CallOptionsReader.supports(version) {
        return LastError.fail(GW_ERROR_VERSION, "gw_call: unsupported gw_call_options version \(version)")
    }
    var status = GW_OK
    guard let (owner, request) = prepareCall("gw_call", client, options, status: &status) else { return status }
    if let refused = refuseBlocking("gw_call", owner) { return refused }
    do {
        let response = try owner.client.sendAndWait(request)
        outResult.pointee = box(ResultBox(.success(response)))
        return GW_OK
    } catch {
        outResult.pointee = box(ResultBox(.failure(error)))
        return LastError.fail(GW_ERROR_CALL_FAILED, error.description)
    }
}

@_cdecl("gw_call_async")
public func gw_call_async(_ client: OpaquePointer?, _ options: UnsafePointer<gw_call_options>?,
                          _ completion: gw_completion_fn?, _ userData: UnsafeMutableRawPointer?,
                          _ outCall: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    outCall?.pointee = nil
    guard let completion else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_call_async: completion is NULL") }
    if let options, case let version = UnsafeRawPointer(options).load(as: UInt32.self), !CallOptionsReader.supports(version) {
        return LastError.fail(GW_ERROR_VERSION, "gw_call_async: unsupported gw_call_options version \(version)")
    }
    var status = GW_OK
    guard let (owner, request) = prepareCall("gw_call_async", client, options, status: &status) else { return status }
    let context = UInt(bitPattern: userData)
    let handle = owner.client.start(request) { result in
        completion(box(ResultBox(result)), UnsafeMutableRawPointer(bitPattern: context))
    }
    outCall?.pointee = box(handle)
    return GW_OK
}

@_cdecl("gw_call_cancel")
public func gw_call_cancel(_ call: OpaquePointer?) -> Int32 {
    guard let call else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_call_cancel: call is NULL") }
    unbox(call, as: CallHandle.self).cancel()
    return GW_OK
}

@_cdecl("gw_call_resume_body")
public func gw_call_resume_body(_ call: OpaquePointer?) -> Int32 {
    guard let call else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_call_resume_body: call is NULL") }
    unbox(call, as: CallHandle.self).resumeBody()
    return GW_OK
}

@_cdecl("gw_call_handle_free")
public func gw_call_handle_free(_ call: OpaquePointer?) {
    guard let call else { return }
    release(call, as: CallHandle.self)
}
