import CGatewireABI
import Gatewire

@_cdecl("gw_call_options_init")
public func gw_call_options_init(_ options: UnsafeMutablePointer<gw_call_options>?, _ version: UInt32) -> Int32 {
    guard let options else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_call_options_init: options is NULL") }
    guard CallOptionsReader.supports(version) else {
        return LastError.fail(GW_ERROR_VERSION, "gw_call_options_init: unsupported version \(version) (this library has \(GW_CALL_OPTIONS_VERSION))")
    }
    var defaults = gw_call_options(version: version, method: nil, path: nil, route: nil, params_json: nil,
                                   headers_json: nil, body_json: nil, object_type: nil, max_retries: -1,
                                   attempt_timeout: 0, deadline: 0, retry_test: nil, retry_test_user_data: nil,
                                   policy_json: nil)
    // A version 1 struct is shorter: write only its fields.
    let size = version == GW_CALL_OPTIONS_VERSION_1 ? CallOptionsReader.version1Size : MemoryLayout<gw_call_options>.size
    withUnsafeBytes(of: &defaults) { source in
        UnsafeMutableRawPointer(options).copyMemory(from: source.baseAddress!, byteCount: size)
    }
    return GW_OK
}

/// Checks the client and options and builds the request, or records why not: a NULL
/// argument as "`function`: ... is NULL", a bad option value as the reader's message, which
/// names the field (`max_retries: ...`).
func prepareCall(_ function: String, _ client: OpaquePointer?, _ options: UnsafePointer<gw_call_options>?)
    -> (ClientBox, Request)?
{
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
        return (owner, try CallOptionsReader.request(from: CallOptionsReader.load(options), client: owner.client))
    } catch {
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
    guard let (owner, request) = prepareCall("gw_call", client, options) else { return GW_ERROR_INVALID_ARGUMENT }
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

@_cdecl("gw_client_check_blocking")
public func gw_client_check_blocking(_ client: OpaquePointer?) -> Int32 {
    guard let client else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_client_check_blocking: client is NULL") }
    return refuseBlocking("gw_client_check_blocking", unbox(client, as: ClientBox.self)) ?? GW_OK
}

/// The one rule of every function that blocks on a client's calls (gw_call,
/// gw_paginator_next, gw_client_check_blocking for bindings that wait on their own): on the
/// client's event-loop thread the calls it waits for could never complete. Records the
/// refusal naming `function` and returns GW_ERROR_WOULD_DEADLOCK, or nil when this thread may
/// block.
func refuseBlocking(_ function: String, _ owner: ClientBox) -> Int32? {
    guard owner.client.isOnEventLoopThread else { return nil }
    return LastError.fail(GW_ERROR_WOULD_DEADLOCK,
                          "\(function): called on the client's event-loop thread (in a callback), where waiting would deadlock; use gw_call_async")
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
    guard let (owner, request) = prepareCall("gw_call_async", client, options) else { return GW_ERROR_INVALID_ARGUMENT }
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

@_cdecl("gw_call_handle_free")
public func gw_call_handle_free(_ call: OpaquePointer?) {
    guard let call else { return }
    release(call, as: CallHandle.self)
}
