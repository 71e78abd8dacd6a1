/* Retry: the policy, max_retries over a route's policy, the caller's retry test. */
#include "support.h"
#include "tests.h"

void test_retry(void)
{
    char *config = config_with_base("{\"baseURL\": \"%s\", " FAST_RETRY "}");
    gw_client *client = new_client_from_config(config);
    gw_result *result;
    char path[128];
    const char *key;
    int32_t rc;
    char *body;
    free(config);
    if (client == NULL)
        return;

    /* GET is idempotent: 503 is retried, the second attempt answers 200. */
    key = unique_key("get");
    snprintf(path, sizeof path, "/sequence/%s/503,200", key);
    result = call(client, "GET", path, &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_ok(result), 1);
    CHECK_INT(gw_result_status(result), 200);
    CHECK_INT(gw_result_attempt_count(result), 2);
    CHECK_CONTAINS(gw_result_attempts_json(result), "503");
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 2);

    /* POST is not retried on a status: one attempt, the 503 is the outcome. */
    key = unique_key("post");
    snprintf(path, sizeof path, "/sequence/%s/503,200", key);
    result = call(client, "POST", path, &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    CHECK(result != NULL);
    CHECK_INT(gw_result_ok(result), 0);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_HTTP_STATUS);
    CHECK_STR(gw_result_error_kind_name(result), "http_status");
    CHECK_INT(gw_result_status(result), 503);
    CHECK_INT(gw_result_attempt_count(result), 1);
    CHECK(gw_result_error_message(result) != NULL && gw_result_error_message(result)[0] != '\0');
    printf("   POST 503 message: \"%s\"\n", gw_result_error_message(result));
    body = body_text(result); /* the failed response's body is kept */
    CHECK_MEMBER(body, "status", "503");
    free(body);
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 1);
    gw_client_free(client);
}

/* max_retries changes only the count of the route's policy: this route retries only 502,
 * after exactly 0.2 s, so 502, 502, 503 ends at the 503 after 3 attempts, where the client's
 * policy (503 retried too) would go on to the 200. */
void test_max_retries_keeps_the_route_policy(void)
{
    char *config = config_with_base(
        "{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 0, \"initialDelay\": 0.5, \"statusCodes\": [502, 503]},"
        " \"routes\": {\"flaky\": {\"method\": \"GET\", \"pathPattern\": \"/sequence/:key/502,502,503,200\","
        " \"retry\": {\"maxRetries\": 0, \"initialDelay\": 0.2, \"multiplier\": 1, \"maxDelay\": 0.2,"
        " \"jitter\": \"none\", \"statusCodes\": [502]}}}}");
    gw_client *client = new_client_from_config(config);
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char params[128];
    const char *key = unique_key("max-retries");
    const char *attempts;
    free(config);
    if (client == NULL)
        return;
    snprintf(params, sizeof params, "{\"key\": \"%s\"}", key);
    options.route = "flaky";
    options.params_json = params;
    options.max_retries = 3;
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_status(result), 503);
    CHECK_INT(gw_result_attempt_count(result), 3);
    attempts = gw_result_attempts_json(result);
    CHECK_INT(count_members(attempts, "status", "502"), 2);
    CHECK_INT(count_members(attempts, "status", "503"), 1);
    CHECK_INT(count_members(attempts, "delay", "0.2"), 2);
    CHECK_INT(count_members(attempts, "delay", "null"), 1);
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 3);
    gw_client_free(client);
}

typedef struct retry_test_state {
    int calls;
    int32_t verdict;
    double delay;
    int first_number;
    int first_status;
    int first_kind;
} retry_test_state;

static int32_t retry_test(const gw_attempt *attempt, double *delay, void *user_data)
{
    retry_test_state *state = user_data;
    if (state->calls++ == 0) {
        state->first_number = gw_attempt_number(attempt);
        state->first_status = gw_attempt_status(attempt);
        state->first_kind = gw_attempt_error_kind(attempt);
    }
    if (state->verdict == GW_RETRY_RETRY && delay != NULL)
        *delay = state->delay;
    return state->verdict;
}

void test_retry_test_function(void)
{
    char *config = config_with_base("{\"baseURL\": \"%s\", " FAST_RETRY "}");
    gw_client *client = new_client_from_config(config);
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    retry_test_state stop = {0, GW_RETRY_STOP, -1, 0, 0, 0};
    retry_test_state retry = {0, GW_RETRY_RETRY, 0.01, 0, 0, 0};
    gw_result *result = NULL;
    char path[128];
    const char *key;
    free(config);
    if (client == NULL)
        return;

    /* STOP overrides a policy that would retry this GET. */
    key = unique_key("stop");
    snprintf(path, sizeof path, "/sequence/%s/503,503,200", key);
    options.method = "GET";
    options.path = path;
    options.retry_test = retry_test;
    options.retry_test_user_data = &stop;
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(stop.calls, 1);
    CHECK_INT(stop.first_number, 1);
    CHECK_INT(stop.first_status, 503);
    CHECK_INT(stop.first_kind, GW_KIND_NONE); /* a response arrived */
    CHECK_INT(gw_result_attempt_count(result), 1);
    CHECK_INT(gw_result_status(result), 503);
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 1);

    /* RETRY overrides a policy that would not retry this POST; asked once (one failed attempt). */
    key = unique_key("retry");
    snprintf(path, sizeof path, "/sequence/%s/503,200", key);
    options.method = "POST";
    options.retry_test_user_data = &retry;
    result = NULL;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    CHECK_INT(retry.calls, 1);
    CHECK_INT(gw_result_attempt_count(result), 2);
    CHECK_INT(gw_result_status(result), 200);
    gw_result_free(result);

    /* max_retries 0 in the call options: a 503 GET is not retried. */
    key = unique_key("noretry");
    snprintf(path, sizeof path, "/sequence/%s/503,200", key);
    options.method = "GET";
    options.retry_test = NULL;
    options.max_retries = 0;
    result = NULL;
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_attempt_count(result), 1);
    gw_result_free(result);
    gw_client_free(client);
}
