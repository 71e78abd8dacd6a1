/* Resilience: policy_json, version 1 options, circuit_open, the retry budget. */
#include "support.h"
#include "tests.h"

/* A version 1 caller: its struct ends at retry_test_user_data (no policy_json). */
typedef struct call_options_v1 {
    uint32_t version;
    const char *method, *path, *route, *params_json, *headers_json, *body_json, *object_type;
    int32_t max_retries;
    double attempt_timeout, deadline;
    gw_retry_test_fn retry_test;
    void *retry_test_user_data;
} call_options_v1;

void test_resilience_options(void)
{
    char *config = config_with_base("{\"baseURL\": \"%s\", " FAST_RETRY "}");
    gw_client *client = new_client_from_config(config);
    gw_call_options options;
    call_options_v1 v1;
    gw_result *result = NULL;
    char path[160];
    const char *key;
    free(config);
    if (client == NULL)
        return;

    /* gw_call_options_init fills a v1 struct without writing past it; v1 calls still work. */
    memset(&v1, 0xAB, sizeof v1);
    CHECK_INT(gw_call_options_init((gw_call_options *)&v1, GW_CALL_OPTIONS_VERSION_1), GW_OK);
    CHECK_INT(v1.version, 1);
    CHECK_INT(v1.max_retries, -1);
    CHECK(v1.retry_test_user_data == NULL);
    key = unique_key("v1");
    snprintf(path, sizeof path, "/fault/%s/503,200", key);
    v1.method = "GET";
    v1.path = path;
    CHECK_INT(gw_call(client, (const gw_call_options *)&v1, &result), GW_OK);
    CHECK_INT(gw_result_attempt_count(result), 2);
    gw_result_free(result);

    /* policy_json: an Idempotency-Key per call makes a POST retryable after a reset. */
    CHECK_INT(gw_call_options_init(&options, GW_CALL_OPTIONS_VERSION), GW_OK);
    CHECK(options.policy_json == NULL);
    key = unique_key("postkey");
    snprintf(path, sizeof path, "/fault/%s/reset-after,503,200", key);
    options.method = "POST";
    options.path = path;
    options.body_json = "{}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED); /* by default: not retried */
    CHECK_INT(gw_result_error_kind(result), GW_KIND_NETWORK);
    CHECK_INT(gw_result_attempt_count(result), 1);
    gw_result_free(result);
    key = unique_key("postkey2");
    snprintf(path, sizeof path, "/fault/%s/reset-after,503,200", key);
    options.policy_json = "{\"retry\": {\"idempotencyKey\": true}}";
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    CHECK_INT(gw_result_attempt_count(result), 3);
    gw_result_free(result);
    CHECK_INT(fault_count(client, key), 3);

    /* A bad policy is an argument error naming the field. */
    options.policy_json = "{\"retry\": {\"jitter\": \"sometimes\"}}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "policy_json.retry.jitter");
    CHECK(result == NULL);
    /* maxResponseBytes is an integer of bytes in 1...2^62. */
    options.policy_json = "{\"maxResponseBytes\": 0}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "policy_json.maxResponseBytes");
    CHECK(result == NULL);
    options.policy_json = "{\"maxResponseBytes\": 1.5}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "policy_json.maxResponseBytes");
    gw_client_free(client);
}

void test_circuit_open_and_budget(void)
{
    static observer_state seen = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0};
    char *config = config_with_base(
        "{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 3, \"initialDelay\": 0.01, \"jitter\": \"none\"}, "
        "\"retryBudget\": {\"maxTokens\": 4, \"tokenRatio\": 1}, "
        "\"circuitBreaker\": {\"failureRatio\": 1, \"minimumThroughput\": 3, \"breakDuration\": 1.0}}");
    gw_client *client = new_client_from_config(config);
    gw_client *counter;
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char path[160];
    const char *key;
    int kind = 0, status = -1;
    free(config);
    if (client == NULL)
        return;
    CHECK_INT(gw_client_add_failure_observer(client, count_failure, &seen, NULL, NULL), GW_OK);
    key = unique_key("down");
    snprintf(path, sizeof path, "/fault/%s/503", key);
    options.method = "GET";
    options.path = path;

    /* Budget: 4 tokens, retries need more than 2: 4 -> 3 (retry) -> 2 (stop). */
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_attempt_count(result), 2);
    CHECK_CONTAINS(gw_result_attempts_json(result), "retry budget");
    gw_result_free(result);
    CHECK_INT(observed(&seen, &status, &kind), 1);
    CHECK_INT(kind, GW_KIND_HTTP_STATUS);

    /* Third failure in the window (ratio 1): the breaker opens; the call fails with 1 attempt. */
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_attempt_count(result), 1);
    gw_result_free(result);

    /* Open: fails at once, nothing sent, the observer sees circuit_open once. */
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_CIRCUIT_OPEN);
    CHECK_STR(gw_result_error_kind_name(result), "circuit_open");
    CHECK_INT(gw_result_attempt_count(result), 0);
    CHECK_INT(gw_result_status(result), 0);
    gw_result_free(result);
    CHECK_INT(observed(&seen, &status, &kind), 3);
    CHECK_INT(kind, GW_KIND_CIRCUIT_OPEN);
    counter = new_client(); /* the breaker is per host: count through a client without one */
    CHECK_INT(fault_count(counter, key), 3);
    gw_client_free(counter);

    /* A call that turns the breaker off goes through (and, out of budget, is not retried). */
    options.policy_json = "{\"circuitBreaker\": false}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_HTTP_STATUS);
    CHECK_INT(gw_result_attempt_count(result), 1);
    gw_result_free(result);
    options.policy_json = NULL;

    /* After the break one trial decides: a success closes the breaker. */
    sleep_ms(1100);
    snprintf(path, sizeof path, "/fault/%s-ok/200", key);
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    gw_result_free(result);
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    gw_result_free(result);
    CHECK_INT(observed(&seen, NULL, NULL), 4);
    gw_client_free(client);
}
