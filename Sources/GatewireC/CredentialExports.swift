import CGatewireABI
import Gatewire
import Glibc

/// The object behind a `gw_credential *`: the Swift credential and the C user data, whose
/// `destroy` runs when the last reference (the caller's or a client's) goes.
final class CredentialBox: @unchecked Sendable {
    let credential: RefreshingCredential
    init(_ credential: RefreshingCredential) { self.credential = credential }
}

/// Owns the C refresh function's user data; `destroy` runs in deinit.
final class RefreshFunction: @unchecked Sendable {
    let function: gw_refresh_fn
    let userData: UnsafeMutableRawPointer?
    let destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?

    init(_ function: gw_refresh_fn, userData: UnsafeMutableRawPointer?, destroy: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?) {
        self.function = function
        self.userData = userData
        self.destroy = destroy
    }

    deinit { destroy?(userData) }
}

/// The object behind a `gw_refresh *`: answered once by `gw_refresh_complete`, which frees it.
final class RefreshHandle: @unchecked Sendable {
    let done: @Sendable (String?) -> Void
    init(_ done: @escaping @Sendable (String?) -> Void) { self.done = done }
}

/// The defaults as C strings for `gw_credential_options_init`: made once, never freed, never
/// written (so shared across threads without a lock).
nonisolated(unsafe) private let defaultHeaderCString = UnsafePointer(strdup(RefreshingCredential.defaultHeader)!)
nonisolated(unsafe) private let defaultPrefixCString = UnsafePointer(strdup(RefreshingCredential.defaultPrefix)!)

@_cdecl("gw_credential_options_init")
public func gw_credential_options_init(_ options: UnsafeMutablePointer<gw_credential_options>?, _ version: UInt32) -> Int32 {
    guard let options else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_credential_options_init: options is NULL") }
    guard version == GW_CREDENTIAL_OPTIONS_VERSION else {
        return LastError.fail(GW_ERROR_VERSION, "gw_credential_options_init: unsupported version \(version) (this library has \(GW_CREDENTIAL_OPTIONS_VERSION))")
    }
    var filled = gw_credential_options()
    filled.version = version
    filled.header = defaultHeaderCString
    filled.prefix = defaultPrefixCString
    filled.max_refreshes = Int32(RefreshingCredential.defaultBudget.maximum)
    filled.refresh_interval = RefreshingCredential.defaultBudget.interval
    options.pointee = filled
    return GW_OK
}

@_cdecl("gw_credential_new")
public func gw_credential_new(_ options: UnsafePointer<gw_credential_options>?,
                              _ outCredential: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let outCredential else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_credential_new: out_credential is NULL") }
    outCredential.pointee = nil
    guard let options else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_credential_new: options is NULL") }
    let settings = options.pointee
    guard settings.version == GW_CREDENTIAL_OPTIONS_VERSION else {
        return LastError.fail(GW_ERROR_VERSION, "gw_credential_new: unsupported version \(settings.version)")
    }
    guard let refresh = settings.refresh else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_credential_new: refresh is NULL") }
    guard settings.max_refreshes >= 0 else {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT,
                              "gw_credential_new: max_refreshes: \(settings.max_refreshes) is out of range (0 = the default, or more)")
    }
    guard settings.refresh_interval >= 0 else {  // NaN too
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT,
                              "gw_credential_new: refresh_interval: \(settings.refresh_interval) is out of range "
                                  + "(0 = the default, or seconds up to infinity)")
    }
    let header = string(settings.header) ?? RefreshingCredential.defaultHeader
    let prefix = string(settings.prefix) ?? RefreshingCredential.defaultPrefix
    if let problem = HTTPHeaders.fieldProblem(name: header, value: prefix + (string(settings.token) ?? "")) {
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, problem)  // names the header: bindings call this for their own classes
    }
    let function = RefreshFunction(refresh, userData: settings.user_data, destroy: settings.destroy)
    let credential = RefreshingCredential(
        token: string(settings.token), header: header, prefix: prefix,
        budget: (settings.max_refreshes == 0 ? RefreshingCredential.defaultBudget.maximum : Int(settings.max_refreshes),
                 settings.refresh_interval == 0 ? RefreshingCredential.defaultBudget.interval : settings.refresh_interval)
    ) { current, done in
        let handle = box(RefreshHandle(done))
        if let current {
            current.withCString { function.function(handle, $0, function.userData) }
        } else {
            function.function(handle, nil, function.userData)
        }
    }
    outCredential.pointee = box(CredentialBox(credential))
    return GW_OK
}

@_cdecl("gw_credential_free")
public func gw_credential_free(_ credential: OpaquePointer?) {
    guard let credential else { return }
    release(credential, as: CredentialBox.self)
}

@_cdecl("gw_credential_refresh_count")
public func gw_credential_refresh_count(_ credential: OpaquePointer?) -> Int32 {
    credential.map { Int32(clamping: unbox($0, as: CredentialBox.self).credential.refreshCount) } ?? 0
}

@_cdecl("gw_refresh_complete")
public func gw_refresh_complete(_ refresh: OpaquePointer?, _ token: UnsafePointer<CChar>?) -> Int32 {
    guard let refresh else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_refresh_complete: refresh is NULL") }
    let handle = unbox(refresh, as: RefreshHandle.self)
    release(refresh, as: RefreshHandle.self)
    // A token that cannot be sent in a header value is a failed refresh (RFC 9110 section 5.5).
    if let problem = string(token).flatMap(HTTPHeaders.valueProblem) {
        handle.done(nil)
        return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "the refreshed token: \(problem)")
    }
    handle.done(string(token))
    return GW_OK
}
