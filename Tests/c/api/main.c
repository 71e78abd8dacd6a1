/*
 * The C ABI end to end: include/gatewire.h + libGatewire.so against the scripted test server
 * (Tests/support/testserver.py) at $GW_TEST_BASE_URL and httpbin (gunicorn) at $GW_HTTPBIN_URL
 * for the authentication endpoints. Run through Tests/support/run_with_server.py --httpbin,
 * which starts both servers and sets those variables.
 *
 * The tests live one concern a file in this folder (retry.c, plugins.c, queues.c, ...),
 * sharing support.h; each test_* function reads as an example of the API and has a name in
 * `tests` below: `test_gatewire_c NAME...` runs those tests, `--list` lists the names, no
 * argument runs them all; CMake registers each name as the ctest c_api.NAME. CHECK* count
 * passes and failures and print file:line for a failure; the last line is "<passed> passed,
 * <failed> failed" and the exit status is non-zero on any failure. A watchdog fails the run
 * (naming the test) if any blocking call hangs.
 */
#include "support.h"
#include "tests.h"

/* Every test, in the order a run without names runs them; `uses_httpbin`: the test calls
 * httpbin at $GW_HTTPBIN_URL besides the test server. `--list` prints one test a line, its name
 * then " httpbin" when it uses httpbin: CMake registers each as its own ctest, c_api.<name>,
 * with httpbin started only for those (cmake/GatewireListCTests.cmake). */
typedef struct named_test {
    const char *name;
    void (*run)(void);
    int uses_httpbin;
} named_test;

static const named_test tests[] = {
    {"version", test_version, 0},
    {"null_arguments", test_null_arguments, 0},
    {"versions", test_versions, 0},
    {"null_handles", test_null_handles, 0},
    {"config_errors", test_config_errors, 0},
    {"config_from_openapi", test_config_from_openapi, 0},
    {"blocking_get", test_blocking_get, 0},
    {"headers_and_body", test_headers_and_body, 0},
    {"concurrent_async", test_concurrent_async, 0},
    {"mapping", test_mapping, 0},
    {"mapped_values", test_mapped_values, 0},
    {"mapped_walk", test_mapped_walk, 0},
    {"routes", test_routes, 0},
    {"retry", test_retry, 0},
    {"max_retries_keeps_the_route_policy", test_max_retries_keeps_the_route_policy, 0},
    {"retry_test_function", test_retry_test_function, 0},
    {"failure_observer", test_failure_observer, 0},
    {"plugins", test_plugins, 0},
    {"cancel", test_cancel, 0},
    {"blocking_call_in_callback", test_blocking_call_in_callback, 0},
    {"free_with_call_in_flight", test_free_with_call_in_flight, 0},
    {"free_from_callback", test_free_from_callback, 0},
    {"timeouts", test_timeouts, 0},
    {"connection_limits", test_connection_limits, 0},
    {"resilience_options", test_resilience_options, 0},
    {"circuit_open_and_budget", test_circuit_open_and_budget, 0},
    {"plugin_hooks_v2", test_plugin_hooks_v2, 0},
    {"plugin_version_1_array", test_plugin_version_1_array, 0},
    {"body_errors_plugin", test_body_errors_plugin, 0},
    {"process_fail_with_errors", test_process_fail_with_errors, 0},
    {"refreshing_credential", test_refreshing_credential, 0},
    {"filtered_observers", test_filtered_observers, 0},
    {"events_logs_metrics_and_shared_objects", test_events_logs_metrics_and_shared_objects, 0},
    {"redirects", test_redirects, 0},
    {"secrets_never_leave", test_secrets_never_leave, 0},
    {"times_in_json", test_times_in_json, 0},
    {"telemetry_of_a_retried_call", test_telemetry_of_a_retried_call, 0},
    {"httpbin_refresh_replays_inside_the_call", test_httpbin_refresh_replays_inside_the_call, 1},
    {"httpbin_wrong_password_observers", test_httpbin_wrong_password_observers, 1},
    {"httpbin_concurrent_calls_share_one_refresh", test_httpbin_concurrent_calls_share_one_refresh, 1},
    {"httpbin_bodies_and_list_params", test_httpbin_bodies_and_list_params, 1},
    {"multipart_uploads", test_multipart_uploads, 0},
    {"httpbin_cookie_jar", test_httpbin_cookie_jar, 1},
    {"http_cache", test_http_cache, 0},
    {"destroy_without_out_id", test_destroy_without_out_id, 0},
    {"completion_queue", test_completion_queue, 0},
    {"queue_wait_on_the_loop_thread", test_queue_wait_on_the_loop_thread, 0},
    {"queue_notify", test_queue_notify, 0},
    {"validation", test_validation, 0},
    {"progress_download", test_progress_download, 1},
    {"progress_upload_and_retries", test_progress_upload_and_retries, 0},
    {"download_to_file", test_download_to_file, 0},
    {"httpbin_chunks", test_httpbin_chunks, 1},
    {"queue_wait_without_limit", test_queue_wait_without_limit, 0},
    {"numbers_out_of_range", test_numbers_out_of_range, 0},
    {"text_with_nul", test_text_with_nul, 0},
};

#define TEST_COUNT (sizeof tests / sizeof tests[0])

static const named_test *find_test(const char *name)
{
    size_t i;
    for (i = 0; i < TEST_COUNT; i++) {
        if (strcmp(tests[i].name, name) == 0)
            return &tests[i];
    }
    return NULL;
}

/* Runs one test; a test that made no check at all fails (it would pass whatever it saw). */
static void run_test(const named_test *test)
{
    int before = passed + failed;
    step(test->name);
    test->run();
    if (passed + failed == before) {
        failed++;
        fprintf(stderr, "[%s] made no checks\n", test->name);
    }
}

/* test_gatewire_c [--list | NAME...]: runs the named tests (all of them without names), or
 * lists the names. An unknown name is a usage error (exit 2), so a misspelt ctest fails. */
int main(int argc, char **argv)
{
    int i;
    int needs_httpbin = argc == 1; /* all tests run */
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_alarm;
    sigaction(SIGALRM, &action, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);
    main_thread = pthread_self();

    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        size_t t;
        for (t = 0; t < TEST_COUNT; t++)
            printf("%s%s\n", tests[t].name, tests[t].uses_httpbin ? " httpbin" : "");
        return 0;
    }
    for (i = 1; i < argc; i++) {
        const named_test *test = find_test(argv[i]);
        if (test == NULL) {
            fprintf(stderr, "test_gatewire: no test named \"%s\" (--list lists them)\n", argv[i]);
            return 2;
        }
        if (test->uses_httpbin)
            needs_httpbin = 1;
    }

    base_url = getenv("GW_TEST_BASE_URL");
    if (base_url == NULL || base_url[0] == '\0') {
        fprintf(stderr, "test_gatewire: GW_TEST_BASE_URL is not set; run me through "
                        "Tests/support/run_with_server.py (a missing server is a failure)\n");
        printf("0 passed, 1 failed\n");
        return 2;
    }
    httpbin_url = getenv("GW_HTTPBIN_URL");
    if (needs_httpbin && (httpbin_url == NULL || httpbin_url[0] == '\0')) {
        fprintf(stderr, "test_gatewire: GW_HTTPBIN_URL is not set; run me through "
                        "Tests/support/run_with_server.py --httpbin (a missing server is a failure)\n");
        printf("0 passed, 1 failed\n");
        return 2;
    }
    printf("gatewire %s against %s and httpbin at %s\n", gw_version() ? gw_version() : "(null)", base_url,
           httpbin_url ? httpbin_url : "(not started)");

    if (argc == 1) {
        size_t t;
        for (t = 0; t < TEST_COUNT; t++)
            run_test(&tests[t]);
    }
    for (i = 1; i < argc; i++)
        run_test(find_test(argv[i]));

    alarm(0);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
