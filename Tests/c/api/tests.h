/* Every C API test, one function each, defined in the file of its concern; main.c names them. */
#ifndef GW_API_TESTS_H
#define GW_API_TESTS_H

void test_version(void);
void test_null_arguments(void);
void test_versions(void);
void test_null_handles(void);
void test_config_errors(void);
void test_blocking_get(void);
void test_headers_and_body(void);
void test_concurrent_async(void);
void test_mapping(void);
void test_routes(void);
void test_retry(void);
void test_max_retries_keeps_the_route_policy(void);
void test_retry_test_function(void);
void test_failure_observer(void);
void test_filtered_observers(void);
void test_plugins(void);
void test_plugin_hooks_v2(void);
void test_plugin_version_1_array(void);
void test_body_errors_plugin(void);
void test_process_fail_with_errors(void);
void test_cancel(void);
void test_blocking_call_in_callback(void);
void test_free_with_call_in_flight(void);
void test_free_from_callback(void);
void test_destroy_without_out_id(void);
void test_timeouts(void);
void test_connection_limits(void);
void test_resilience_options(void);
void test_circuit_open_and_budget(void);
void test_refreshing_credential(void);
void test_events_logs_metrics_and_shared_objects(void);
void test_redirects(void);
void test_secrets_never_leave(void);
void test_times_in_json(void);
void test_httpbin_refresh_replays_inside_the_call(void);
void test_httpbin_wrong_password_observers(void);
void test_httpbin_concurrent_calls_share_one_refresh(void);
void test_httpbin_bodies_and_list_params(void);
void test_completion_queue(void);
void test_queue_wait_on_the_loop_thread(void);
void test_queue_notify(void);
void test_validation(void);

#endif
