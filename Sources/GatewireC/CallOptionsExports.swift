import CGatewireABI
import Gatewire

/// The defaults of `gw_call_options` and its nested structs: the header's `_INIT` macros as
/// Swift values, which each `_init` function, `gw_call_options_init` and the reader of a
/// version 5 struct (``CallOptionsReader``, for the fields version 5 lacks) copy (computed: C
/// structs holding pointers are not `Sendable`, so they cannot be stored statics).
enum CallOptionsDefaults {
    static let keep = Double(GW_KEEP)
    static var body: gw_body {
        gw_body(version: GW_BODY_VERSION, kind: GW_BODY_NONE, json: nil, bytes: nil, length: 0, content_type: nil,
                form_json: nil, parts: nil, part_count: 0)
    }
    static var retry: gw_retry_options {
        gw_retry_options(version: GW_RETRY_OPTIONS_VERSION, max_retries: GW_KEEP, initial_delay: keep, multiplier: keep,
                         max_delay: keep, jitter: GW_JITTER_KEEP, status_codes: nil, status_code_count: 0, methods: nil,
                         method_count: 0, max_retry_after: keep, idempotency_key: GW_KEEP,
                         retry_non_idempotent: GW_KEEP, test: nil, test_user_data: nil)
    }
    static var retryBudget: gw_retry_budget_options {
        gw_retry_budget_options(version: GW_RETRY_BUDGET_OPTIONS_VERSION, mode: GW_POLICY_KEEP, max_tokens: keep,
                                token_ratio: keep)
    }
    static var circuitBreaker: gw_circuit_breaker_options {
        gw_circuit_breaker_options(version: GW_CIRCUIT_BREAKER_OPTIONS_VERSION, mode: GW_POLICY_KEEP, failure_ratio: keep,
                                   minimum_throughput: GW_KEEP, sampling_duration: keep, break_duration: keep,
                                   status_codes: nil, status_code_count: 0)
    }
    static var redirects: gw_redirect_options {
        gw_redirect_options(version: GW_REDIRECT_OPTIONS_VERSION, follow: GW_FOLLOW_KEEP, max: GW_KEEP,
                            allow_downgrade: GW_KEEP, allow_cross_origin_body: GW_KEEP)
    }
    static var timeouts: gw_timeout_options {
        gw_timeout_options(version: GW_TIMEOUT_OPTIONS_VERSION, connect: 0, attempt: 0, deadline: 0)
    }
    static var rateLimit: gw_rate_limit_options {
        gw_rate_limit_options(version: GW_RATE_LIMIT_OPTIONS_VERSION, mode: GW_POLICY_KEEP, requests: GW_KEEP, per: keep,
                              burst: GW_KEEP, scope: GW_RATE_LIMIT_SCOPE_KEEP, wait: GW_KEEP,
                              pause_on_retry_after: GW_KEEP, max_pause: keep)
    }
    static var download: gw_download_options {
        gw_download_options(version: GW_DOWNLOAD_OPTIONS_VERSION, path: nil, on_chunk: nil, on_chunk_user_data: nil,
                            max_bytes: 0)
    }
    static var call: gw_call_options {
        gw_call_options(version: GW_CALL_OPTIONS_VERSION, method: nil, path: nil, route: nil, object_type: nil,
                        params_json: nil, headers_json: nil, body: body, retry: retry, retry_budget: retryBudget,
                        circuit_breaker: circuitBreaker, redirects: redirects, timeouts: timeouts,
                        max_response_bytes: 0, download: download, on_progress: nil, on_progress_user_data: nil,
                        rate_limit: rateLimit, traceparent: nil, tracestate: nil, policy_json: nil)
    }
    static var callVersion4: gw_call_options_v4 {
        gw_call_options_v4(version: GW_CALL_OPTIONS_VERSION_4, method: nil, path: nil, route: nil, params_json: nil,
                           headers_json: nil, body_json: nil, object_type: nil, max_retries: -1, attempt_timeout: 0,
                           deadline: 0, retry_test: nil, retry_test_user_data: nil, policy_json: nil, body: nil,
                           body_length: 0, content_type: nil, form_json: nil, parts: nil, part_count: 0,
                           on_progress: nil, on_progress_user_data: nil, download_path: nil, on_chunk: nil,
                           on_chunk_user_data: nil, download_max_bytes: 0)
    }
}

/// Writes `value` to `target` when `version` is `current`: the shared body of the nested
/// structs' `_init` functions, whose messages name `function`.
private func initialise<Options>(_ function: String, _ target: UnsafeMutablePointer<Options>?, named name: String = "options",
                                 version: UInt32, current: UInt32, with value: Options) -> Int32 {
    guard let target else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "\(function): \(name) is NULL") }
    guard version == current else {
        return LastError.fail(GW_ERROR_VERSION, "\(function): unsupported version \(version) (this library has \(current))")
    }
    target.pointee = value
    return GW_OK
}

@_cdecl("gw_call_options_init")
public func gw_call_options_init(_ options: UnsafeMutablePointer<gw_call_options>?, _ version: UInt32) -> Int32 {
    guard let options else { return LastError.fail(GW_ERROR_INVALID_ARGUMENT, "gw_call_options_init: options is NULL") }
    guard CallOptionsReader.supports(version) else {
        return LastError.fail(GW_ERROR_VERSION,
                              "gw_call_options_init: unsupported version \(version) (this library reads 1...\(GW_CALL_OPTIONS_VERSION))")
    }
    if version == GW_CALL_OPTIONS_VERSION {
        options.pointee = CallOptionsDefaults.call
        return GW_OK
    }
    if let size = CallOptionsReader.size(ofOlderLayout: version) {
        // A version 5 or 6 caller's struct ends before the later fields: write only its own.
        var defaults = CallOptionsDefaults.call
        defaults.version = version
        withUnsafeBytes(of: &defaults) { source in
            UnsafeMutableRawPointer(options).copyMemory(from: source.baseAddress!, byteCount: size)
        }
        return GW_OK
    }
    // Versions 1 to 4 are the gw_call_options_v4 layout, an older one shorter: write only its fields.
    var defaults = CallOptionsDefaults.callVersion4
    defaults.version = version
    withUnsafeBytes(of: &defaults) { source in
        UnsafeMutableRawPointer(options).copyMemory(from: source.baseAddress!,
                                                    byteCount: CallOptionsReader.size(ofVersion4Layout: version))
    }
    return GW_OK
}

@_cdecl("gw_body_init")
public func gw_body_init(_ body: UnsafeMutablePointer<gw_body>?, _ version: UInt32) -> Int32 {
    initialise("gw_body_init", body, named: "body", version: version, current: GW_BODY_VERSION, with: CallOptionsDefaults.body)
}

@_cdecl("gw_retry_options_init")
public func gw_retry_options_init(_ options: UnsafeMutablePointer<gw_retry_options>?, _ version: UInt32) -> Int32 {
    initialise("gw_retry_options_init", options, version: version, current: GW_RETRY_OPTIONS_VERSION, with: CallOptionsDefaults.retry)
}

@_cdecl("gw_retry_budget_options_init")
public func gw_retry_budget_options_init(_ options: UnsafeMutablePointer<gw_retry_budget_options>?,
                                         _ version: UInt32) -> Int32 {
    initialise("gw_retry_budget_options_init", options, version: version, current: GW_RETRY_BUDGET_OPTIONS_VERSION,
               with: CallOptionsDefaults.retryBudget)
}

@_cdecl("gw_circuit_breaker_options_init")
public func gw_circuit_breaker_options_init(_ options: UnsafeMutablePointer<gw_circuit_breaker_options>?,
                                            _ version: UInt32) -> Int32 {
    initialise("gw_circuit_breaker_options_init", options, version: version,
               current: GW_CIRCUIT_BREAKER_OPTIONS_VERSION, with: CallOptionsDefaults.circuitBreaker)
}

@_cdecl("gw_redirect_options_init")
public func gw_redirect_options_init(_ options: UnsafeMutablePointer<gw_redirect_options>?, _ version: UInt32) -> Int32 {
    initialise("gw_redirect_options_init", options, version: version, current: GW_REDIRECT_OPTIONS_VERSION,
               with: CallOptionsDefaults.redirects)
}

@_cdecl("gw_timeout_options_init")
public func gw_timeout_options_init(_ options: UnsafeMutablePointer<gw_timeout_options>?, _ version: UInt32) -> Int32 {
    initialise("gw_timeout_options_init", options, version: version, current: GW_TIMEOUT_OPTIONS_VERSION,
               with: CallOptionsDefaults.timeouts)
}

@_cdecl("gw_download_options_init")
public func gw_download_options_init(_ options: UnsafeMutablePointer<gw_download_options>?, _ version: UInt32) -> Int32 {
    initialise("gw_download_options_init", options, version: version, current: GW_DOWNLOAD_OPTIONS_VERSION,
               with: CallOptionsDefaults.download)
}

@_cdecl("gw_rate_limit_options_init")
public func gw_rate_limit_options_init(_ options: UnsafeMutablePointer<gw_rate_limit_options>?, _ version: UInt32) -> Int32 {
    initialise("gw_rate_limit_options_init", options, version: version, current: GW_RATE_LIMIT_OPTIONS_VERSION,
               with: CallOptionsDefaults.rateLimit)
}
