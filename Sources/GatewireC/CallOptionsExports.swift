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
                                   policy_json: nil, body: nil, body_length: 0, content_type: nil, form_json: nil,
                                   parts: nil, part_count: 0, on_progress: nil, on_progress_user_data: nil,
                                   download_path: nil, on_chunk: nil, on_chunk_user_data: nil, download_max_bytes: 0)
    // An older version's struct is shorter: write only its fields.
    let size = CallOptionsReader.size(of: version)
    withUnsafeBytes(of: &defaults) { source in
        UnsafeMutableRawPointer(options).copyMemory(from: source.baseAddress!, byteCount: size)
    }
    return GW_OK
}
