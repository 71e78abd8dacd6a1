import CGatewireABI

/// The `gw_plugin_api` this library hands every shared-object plugin's entry: its own `gw_*`
/// functions, so that the plugin calls the core of the process that loaded it and need not
/// link libGatewire (include/gatewire.h, "Plugins"; the SQLite loadable-extension model).
enum PluginAPITable {
    /// The table: allocated and filled once, never freed (plugins keep the pointer for the
    /// life of the process). Read-only after that, from any thread.
    nonisolated(unsafe) static let shared: UnsafePointer<gw_plugin_api> = {
        var api = gw_plugin_api()
        api.version = GW_PLUGIN_API_VERSION
        api.last_error_message = { gw_last_error_message() }
        api.request_method = { gw_request_method($0) }
        api.request_url = { gw_request_url($0) }
        api.request_header = { gw_request_header($0, $1) }
        api.request_set_header = { gw_request_set_header($0, $1, $2) }
        api.request_set_url = { gw_request_set_url($0, $1) }
        api.request_fail = { gw_request_fail($0, $1) }
        api.attempt_number = { gw_attempt_number($0) }
        api.attempt_status = { gw_attempt_status($0) }
        api.attempt_error_kind = { gw_attempt_error_kind($0) }
        api.attempt_elapsed = { gw_attempt_elapsed($0) }
        api.attempt_header = { gw_attempt_header($0, $1) }
        api.process_result = { gw_process_result($0) }
        api.process_fail = { gw_process_fail($0, $1, $2) }
        api.result_ok = { gw_result_ok($0) }
        api.result_status = { gw_result_status($0) }
        api.result_error_kind = { gw_result_error_kind($0) }
        api.result_error_message = { gw_result_error_message($0) }
        api.result_header = { gw_result_header($0, $1) }
        api.result_body = { gw_result_body($0, $1) }
        api.result_mapped_json = { gw_result_mapped_json($0) }
        api.process_fail_with_errors = { gw_process_fail_with_errors($0, $1, $2, $3) }
        let table = UnsafeMutablePointer<gw_plugin_api>.allocate(capacity: 1)
        table.initialize(to: api)
        return UnsafePointer(table)
    }()
}
