import CGatewireABI
import Gatewire

// Accessors for the borrowed handles passed to callbacks: `gw_attempt *` (retry tests,
// plugins' did_receive) and `gw_request *` (plugins' prepare).

@_cdecl("gw_attempt_number")
public func gw_attempt_number(_ attempt: OpaquePointer?) -> Int32 {
    attempt.map { Int32(unbox($0, as: AttemptView.self).number) } ?? 0
}

@_cdecl("gw_attempt_status")
public func gw_attempt_status(_ attempt: OpaquePointer?) -> Int32 {
    attempt.map { Int32(unbox($0, as: AttemptView.self).status) } ?? 0
}

@_cdecl("gw_attempt_error_kind")
public func gw_attempt_error_kind(_ attempt: OpaquePointer?) -> Int32 {
    attempt.flatMap { unbox($0, as: AttemptView.self).errorKind?.rawValue } ?? GW_KIND_NONE
}

@_cdecl("gw_attempt_elapsed")
public func gw_attempt_elapsed(_ attempt: OpaquePointer?) -> Double {
    attempt.map { unbox($0, as: AttemptView.self).elapsed } ?? 0
}

@_cdecl("gw_attempt_header")
public func gw_attempt_header(_ attempt: OpaquePointer?, _ name: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let attempt, let name = string(name) else { return nil }
    let view = unbox(attempt, as: AttemptView.self)
    return view.strings.string("header:" + name.lowercased()) { view.headers[name] }
}

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
