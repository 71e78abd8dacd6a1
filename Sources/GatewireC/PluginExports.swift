import CGatewireABI
import Gatewire

// Inside a plugin's hooks: the attempt's request (`gw_request *`, prepare and will_send) and
// the call's final result (`gw_process *`, process), as the "Plugins" section of gatewire.h.

@_cdecl("gw_request_method")
public func gw_request_method(_ request: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let request else { return nil }
    let view = unbox(request, as: RequestView.self)
    return view.strings.string("method") { view.request.method.rawValue }
}

@_cdecl("gw_request_url")
public func gw_request_url(_ request: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let request else { return nil }
    let view = unbox(request, as: RequestView.self)
    return view.strings.string("url:\(view.urlVersion)") { view.request.url }
}

@_cdecl("gw_request_header")
public func gw_request_header(_ request: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let request, let name = string(name) else { return nil }
    let view = unbox(request, as: RequestView.self)
    guard let value = view.request.headers[name] else { return nil }
    return view.strings.string("header:\(name.lowercased()):\(value)") { value }
}

@_cdecl("gw_request_set_header")
public func gw_request_set_header(_ request: OpaquePointer?, _ name: UnsafePointer<CChar>?,
                                  _ value: UnsafePointer<CChar>?) -> Int32 {
    guard let request else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_request_set_header: request is NULL") }
    guard let name = string(name) else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_request_set_header: name is NULL") }
    // A bad name or value is named without the function: a binding's set_header calls this.
    if let problem = HTTPHeaders.fieldProblem(name: name, value: string(value) ?? "") {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, problem)
    }
    let view = unbox(request, as: RequestView.self)
    if let value = string(value) { view.request.headers.set(name, value) } else { view.request.headers.remove(name) }
    return GW_OK
}

@_cdecl("gw_request_set_url")
public func gw_request_set_url(_ request: OpaquePointer?, _ url: UnsafePointer<CChar>?) -> Int32 {
    guard let request else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_request_set_url: request is NULL") }
    guard let url = string(url), url.hasPrefix("http://") || url.hasPrefix("https://") else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_request_set_url: url must be an absolute http:// or https:// URL")
    }
    let view = unbox(request, as: RequestView.self)
    view.request.url = url
    view.urlVersion += 1
    return GW_OK
}

@_cdecl("gw_request_fail")
public func gw_request_fail(_ request: OpaquePointer?, _ message: UnsafePointer<CChar>?) -> Int32 {
    guard let request else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_request_fail: request is NULL") }
    let view = unbox(request, as: RequestView.self)
    guard view.failable else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_request_fail: only a prepare hook can fail the call")
    }
    view.failure = string(message) ?? "prepare failed"
    return GW_OK
}

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
    processFail(process, kind, message, errorsJSON: nil, function: "gw_process_fail")
}

@_cdecl("gw_process_fail_with_errors")
public func gw_process_fail_with_errors(_ process: OpaquePointer?, _ kind: Int32, _ message: UnsafePointer<CChar>?,
                                        _ errorsJSON: UnsafePointer<CChar>?) -> Int32 {
    processFail(process, kind, message, errorsJSON: errorsJSON, function: "gw_process_fail_with_errors")
}

/// Both process-fail exports: checks everything before changing the result, so that an
/// argument error leaves it as it was. `errorsJSON` NULL keeps a failure's error objects.
private func processFail(_ process: OpaquePointer?, _ kind: Int32, _ message: UnsafePointer<CChar>?,
                         errorsJSON: UnsafePointer<CChar>?, function: String) -> Int32 {
    guard let process else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "\(function): process is NULL") }
    guard kind == 0 || ErrorKind(rawValue: kind) != nil else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "\(function): unknown kind \(kind)")
    }
    var errorObjects: JSONValue?
    if let text = string(errorsJSON) {
        do {
            errorObjects = try JSONValue.parse(text)
        } catch {
            return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "\(function): errors_json is not JSON: \(error)")
        }
        guard errorObjects?.node.kind == .array else {
            return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "\(function): errors_json must be a JSON array")
        }
    }
    let view = unbox(process, as: ProcessView.self)
    let text = string(message) ?? "a plugin failed the call"
    let failure: GatewireError
    switch view.result {
    case .success(let response):
        failure = response.failure(ErrorKind(rawValue: kind) ?? .plugin, message: text, errorObjects: errorObjects)
    case .failure(var error):
        error.kind = ErrorKind(rawValue: kind) ?? .plugin
        error.message = text
        if let errorObjects { error.errorObjects = errorObjects }
        failure = error
    }
    view.result = .failure(failure)
    return GW_OK
}
