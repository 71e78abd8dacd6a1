import CGatewireABI
import Gatewire

// A plugin's process hook: the call's final result and how to fail it.

@_cdecl("gw_process_result")
public func gw_process_result(_ process: OpaquePointer?) -> OpaquePointer? {
    guard let process else { return nil }
    let view = unbox(process, as: ProcessView.self)
    if let current = view.handle as? ResultBox { return OpaquePointer(Unmanaged.passUnretained(current).toOpaque()) }
    let result = ResultBox(view.result)  // kept by the view until the hook returns
    view.handle = result
    return OpaquePointer(Unmanaged.passUnretained(result).toOpaque())
}

@_cdecl("gw_process_fail")
public func gw_process_fail(_ process: OpaquePointer?, _ kind: Int32, _ message: UnsafePointer<CChar>?) -> Int32 {
    guard let process else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_process_fail: process is NULL") }
    guard kind == 0 || ErrorKind(rawValue: kind) != nil else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_process_fail: unknown kind \(kind)")
    }
    let view = unbox(process, as: ProcessView.self)
    let text = string(message) ?? "a plugin failed the call"
    let failure: GatewireError
    switch view.result {
    case .success(let response):
        failure = response.failure(ErrorKind(rawValue: kind) ?? .plugin, message: text)
    case .failure(var error):
        error.kind = ErrorKind(rawValue: kind) ?? .plugin
        error.message = text
        failure = error
    }
    view.result = .failure(failure)
    return GW_OK
}
