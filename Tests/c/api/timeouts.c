/* Timeouts: attempt_timeout and deadline. */
#include "support.h"
#include "tests.h"

void test_timeouts(void)
{
    gw_client *client = new_client();
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    double t0, elapsed;
    if (client == NULL)
        return;
    options.method = "GET";
    options.path = "/delay/3000";
    options.max_retries = 0;
    options.attempt_timeout = 0.3;
    t0 = now_seconds();
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    elapsed = now_seconds() - t0;
    CHECK_INT(gw_result_error_kind(result), GW_KIND_TIMEOUT);
    CHECK_INT(gw_result_status(result), 0);
    CHECK(elapsed < 2.0);
    printf("   attempt_timeout 0.3: %s after %.3f s\n", gw_result_error_kind_name(result), elapsed);
    gw_result_free(result);

    options.max_retries = -1;
    options.attempt_timeout = 0;
    options.deadline = 0.3;
    result = NULL;
    t0 = now_seconds();
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    elapsed = now_seconds() - t0;
    CHECK_INT(gw_result_error_kind(result), GW_KIND_DEADLINE);
    CHECK(elapsed < 2.0);
    printf("   deadline 0.3: %s after %.3f s\n", gw_result_error_kind_name(result), elapsed);
    gw_result_free(result);
    gw_client_free(client);
}
