/* Authentication against a real httpbin: refresh and replay, a wrong password, one refresh for concurrent calls. */
#include "support.h"
#include "tests.h"

/* A refresh that answers `token` from another thread after `delay_ms`, counting its calls. */
typedef struct httpbin_refresh {
    const char *token;
    long delay_ms;
    int calls;
    int had_token; /* a refresh was asked with a current token (there should be none) */
    pthread_mutex_t mutex;
} httpbin_refresh;

typedef struct httpbin_refresh_job {
    gw_refresh *refresh;
    httpbin_refresh *state;
} httpbin_refresh_job;

static void *httpbin_refresh_thread(void *argument)
{
    httpbin_refresh_job *job = argument;
    if (job->state->delay_ms > 0)
        sleep_ms(job->state->delay_ms);
    gw_refresh_complete(job->refresh, job->state->token);
    free(job);
    return NULL;
}

static void httpbin_start_refresh(gw_refresh *refresh, const char *current_token, void *user_data)
{
    httpbin_refresh *state = user_data;
    httpbin_refresh_job *job = malloc(sizeof *job);
    pthread_t thread;
    if (job == NULL)
        abort();
    pthread_mutex_lock(&state->mutex);
    state->calls++;
    if (current_token != NULL)
        state->had_token = 1;
    pthread_mutex_unlock(&state->mutex);
    job->refresh = refresh;
    job->state = state;
    pthread_create(&thread, NULL, httpbin_refresh_thread, job);
    pthread_detach(thread);
}

/* A client for httpbin with a credential that has no token and refreshes through `state`. */
static gw_client *httpbin_client_with_credential(httpbin_refresh *state, gw_credential **out_credential)
{
    gw_credential_options credential_options = GW_CREDENTIAL_OPTIONS_INIT;
    gw_client_options options = GW_CLIENT_OPTIONS_INIT;
    gw_credential *credential = NULL;
    gw_client *client = NULL;
    credential_options.token = NULL; /* unsigned until the first refresh */
    credential_options.refresh = httpbin_start_refresh;
    credential_options.user_data = state;
    CHECK_INT(gw_credential_new(&credential_options, &credential), GW_OK);
    options.base_url = httpbin_url;
    options.credential = credential;
    CHECK_INT(gw_client_create(&options, &client), GW_OK);
    *out_credential = credential; /* the caller frees its reference after the calls */
    return client;
}

/* The "status" members of an attempt history, in order, as "401,200". */
static void attempt_statuses(const char *json, char *out, size_t size)
{
    const char *at = json;
    out[0] = '\0';
    while (at != NULL && (at = strstr(at, "\"status\"")) != NULL) {
        const char *p = at + strlen("\"status\"");
        char number[16];
        while (*p == ' ')
            p++;
        at = p;
        if (*p != ':')
            continue;
        snprintf(number, sizeof number, "%s%ld", out[0] ? "," : "", strtol(p + 1, NULL, 10));
        strncat(out, number, size - strlen(out) - 1);
    }
}

void test_httpbin_refresh_replays_inside_the_call(void)
{
    httpbin_refresh state;
    gw_credential *credential = NULL;
    gw_client *client;
    gw_result *result;
    int32_t rc;
    int failures[2] = {0, 0};
    char statuses[64], *text;
    step("httpbin: a credential without a token gets a 401, refreshes once, replays in the call");
    memset(&state, 0, sizeof state);
    pthread_mutex_init(&state.mutex, NULL);
    state.token = "c-fresh-token";
    client = httpbin_client_with_credential(&state, &credential);
    CHECK_INT(gw_client_add_failure_observer(client, count_status, failures, NULL, NULL), GW_OK);
    result = call(client, "GET", "/bearer", &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    CHECK_INT(gw_result_attempt_count(result), 2);
    attempt_statuses(gw_result_attempts_json(result), statuses, sizeof statuses);
    CHECK_STR(statuses, "401,200");
    text = body_text(result);
    CHECK_MEMBER(text, "authenticated", "true");
    CHECK_MEMBER(text, "token", "\"c-fresh-token\"");
    free(text);
    gw_result_free(result);
    result = call(client, "GET", "/bearer", &rc); /* signed from now on: no 401, no refresh */
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_attempt_count(result), 1);
    gw_result_free(result);
    CHECK_INT(gw_credential_refresh_count(credential), 1);
    CHECK_INT(state.calls, 1);
    CHECK_INT(state.had_token, 0);
    CHECK_INT(failures[0] + failures[1], 0);
    gw_client_free(client);
    gw_credential_free(credential);
    pthread_mutex_destroy(&state.mutex);
}

void test_httpbin_wrong_password_observers(void)
{
    int unauthorized[2] = {0, 0}, offline[2] = {0, 0};
    char config[512], *text;
    gw_client *client;
    gw_result *result;
    int32_t rc;
    step("httpbin: a wrong password fires the 401 observer once, the no-connection one never");
    snprintf(config, sizeof config,
             "{\"baseURL\": \"%s\", \"plugins\": [{\"name\": \"basic\", \"username\": \"ann\", \"password\": \"wrong\"}]}",
             httpbin_url);
    client = new_client_from_config(config);
    CHECK_INT(gw_client_add_failure_observer_filtered(client, "{\"statusCodes\": [401]}", count_status, unauthorized,
                                                      NULL, NULL), GW_OK);
    CHECK_INT(gw_client_add_failure_observer_filtered(client, "{\"noResponse\": true}", count_status, offline, NULL,
                                                      NULL), GW_OK);
    result = call(client, "GET", "/basic-auth/ann/secret", &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_status(result), 401);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_HTTP_STATUS);
    gw_result_free(result);
    gw_client_free(client);
    CHECK_INT(unauthorized[1], 1);
    CHECK_INT(unauthorized[0], 0);
    CHECK_INT(offline[0] + offline[1], 0);

    snprintf(config, sizeof config,
             "{\"baseURL\": \"%s\", \"plugins\": [{\"name\": \"basic\", \"username\": \"ann\", \"password\": \"secret\"}]}",
             httpbin_url);
    client = new_client_from_config(config);
    result = call(client, "GET", "/basic-auth/ann/secret", &rc);
    CHECK_INT(rc, GW_OK);
    text = body_text(result);
    CHECK_MEMBER(text, "authenticated", "true");
    free(text);
    gw_result_free(result);
    gw_client_free(client);
}

void test_httpbin_concurrent_calls_share_one_refresh(void)
{
    httpbin_refresh state;
    auth_outcomes outcomes;
    gw_credential *credential = NULL;
    gw_client *client;
    gw_call_options call_options = GW_CALL_OPTIONS_INIT;
    int i;
    step("httpbin: 5 concurrent calls without a token cause exactly one refresh");
    memset(&state, 0, sizeof state);
    pthread_mutex_init(&state.mutex, NULL);
    state.token = "c-shared-token";
    state.delay_ms = 300; /* answers late, so every call's 401 arrives while it runs */
    memset(&outcomes, 0, sizeof outcomes);
    latch_init(&outcomes.done);
    pthread_mutex_init(&outcomes.mutex, NULL);
    client = httpbin_client_with_credential(&state, &credential);
    call_options.method = "GET";
    call_options.path = "/bearer";
    for (i = 0; i < 5; i++)
        CHECK_INT(gw_call_async(client, &call_options, auth_completion, &outcomes, NULL), GW_OK);
    CHECK_INT(latch_wait(&outcomes.done, 5, 30), 5);
    CHECK_INT(outcomes.ok, 5);
    CHECK_INT(state.calls, 1);
    CHECK_INT(gw_credential_refresh_count(credential), 1);
    gw_client_free(client);
    gw_credential_free(credential);
    latch_destroy(&outcomes.done);
    pthread_mutex_destroy(&outcomes.mutex);
    pthread_mutex_destroy(&state.mutex);
}
