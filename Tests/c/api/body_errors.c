/* Errors reported in a 2xx body: the bodyErrors built-in (Slack's ok: false, GraphQL's errors)
 * and a process hook's gw_process_fail_with_errors; the error objects reach the caller and the
 * failure observers, once per call. */
#include "support.h"
#include "tests.h"

static gw_result *post_json(gw_client *client, const char *path, const char *body_json, int32_t *rc)
{
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    options.method = "POST";
    options.path = path;
    options.body_json = body_json;
    *rc = gw_call(client, &options, &result);
    return result;
}

static int32_t client_error(const char *plugin, const char *mappings)
{
    char config[1024];
    gw_client *client = NULL;
    int32_t rc;
    snprintf(config, sizeof config, "{\"baseURL\": \"%s\", \"mappings\": %s, \"plugins\": [%s]}", base_url, mappings, plugin);
    rc = gw_client_new_from_config(config, &client);
    gw_client_free(client);
    return rc;
}

void test_body_errors_plugin(void)
{
    static observer_state seen = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0};
    gw_client *client;
    gw_result *result;
    int32_t rc;
    int status = 0, kind = 0;
    char *slack = config_with_base(
        "{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 3, \"initialDelay\": 0.01},"
        " \"mappings\": {\"SlackError\": {\"attributes\": {\"error\": \"code\"}},"
        "              \"GraphQLError\": {\"attributes\": {\"message\": \"text\"}}},"
        " \"plugins\": [{\"name\": \"bodyErrors\", \"when\": {\"keyPath\": \"ok\", \"equals\": false},"
        "               \"errors\": {\"mapping\": \"SlackError\"}},"
        "              {\"name\": \"bodyErrors\", \"when\": {\"keyPath\": \"body.errors\", \"notEquals\": []},"
        "               \"errors\": {\"keyPath\": \"body.errors\", \"mapping\": \"GraphQLError\"}}]}");
    step("bodyErrors: ok false, ok true, GraphQL errors, bad settings");

    client = new_client_from_config(slack);
    if (client == NULL)
        return;
    CHECK_INT(gw_client_add_failure_observer(client, count_failure, &seen, NULL, NULL), GW_OK);
    result = call(client, "GET", "/slack/channel_not_found", &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_PLUGIN);
    CHECK_INT(gw_result_status(result), 200);
    CHECK_STR(gw_result_error_message(result), "bodyErrors: the body of status 200 reports an error (ok equals false)");
    CHECK_STR(gw_result_error_objects_json(result), "[{\"code\":\"channel_not_found\"}]");
    CHECK_INT((int)gw_result_attempt_count(result), 1); /* final: not retried */
    gw_result_free(result);
    CHECK_INT(observed(&seen, &status, &kind), 1);
    CHECK_INT(status, 200);
    CHECK_INT(kind, GW_KIND_PLUGIN);

    result = call(client, "GET", "/slack/ok", &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    gw_result_free(result);
    CHECK_INT(observed(&seen, NULL, NULL), 1);

    result = post_json(client, "/echo", "{\"data\": null, \"errors\": [{\"message\": \"no such field\"}, {\"message\": \"denied\"}]}", &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_PLUGIN);
    CHECK_INT(gw_result_status(result), 200);
    CHECK_STR(gw_result_error_objects_json(result), "[{\"text\":\"no such field\"},{\"text\":\"denied\"}]");
    gw_result_free(result);
    CHECK_INT(observed(&seen, NULL, NULL), 2);

    result = post_json(client, "/echo", "{\"data\": {\"id\": 1}, \"errors\": []}", &rc);
    CHECK_INT(rc, GW_OK);
    gw_result_free(result);
    CHECK_INT(observed(&seen, NULL, NULL), 2);
    gw_client_free(client);
    free(slack);

    CHECK_INT(client_error("{\"name\": \"bodyErrors\", \"when\": {\"keyPath\": \"ok\", \"equals\": false}, \"colour\": 1}", "{}"),
              GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "plugins[0].colour: unknown field");
    CHECK_INT(client_error("{\"name\": \"bodyErrors\", \"when\": {\"keyPath\": \"ok\"}}", "{}"), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "plugins[0].when: a condition needs exactly one of \"equals\" and \"notEquals\"");
    CHECK_INT(client_error("{\"name\": \"bodyErrors\", \"when\": {\"keyPath\": \"ok\", \"equals\": false},"
                           " \"errors\": {\"mapping\": \"Nope\"}}", "{}"), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "plugins[0].errors.mapping: unknown mapping \"Nope\" (known: none)");
}

/* A process hook that fails a 200 with its own error objects; the second call's errors_json is
 * not an array, which leaves the result a success. */
static void errors_process(gw_process *process, void *user_data)
{
    int *calls = user_data;
    const gw_result *result = gw_process_result(process);
    if (!gw_result_ok(result))
        return;
    if (++*calls == 1) {
        CHECK_INT(gw_process_fail_with_errors(process, 0, "two errors", "[{\"code\": 1}, \"two\"]"), GW_OK);
    } else {
        CHECK_INT(gw_process_fail_with_errors(process, 0, "bad", "{\"code\": 1}"), GW_ERROR_INVALID_ARGUMENT);
        CHECK_STR(gw_last_error_message(), "gw_process_fail_with_errors: errors_json must be a JSON array");
        CHECK_INT(gw_process_fail_with_errors(process, 0, "bad", "[1,"), GW_ERROR_INVALID_ARGUMENT);
    }
}

void test_process_fail_with_errors(void)
{
    static int calls = 0;
    static observer_state seen = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0};
    gw_plugin plugin = {GW_PLUGIN_VERSION, "errors", NULL, NULL, NULL, &calls, NULL, errors_process};
    gw_client_options options = GW_CLIENT_OPTIONS_INIT;
    gw_client *client = NULL;
    gw_result *result;
    int32_t rc;
    step("gw_process_fail_with_errors");

    options.base_url = base_url;
    options.plugins = &plugin;
    options.plugin_count = 1;
    CHECK_INT(gw_client_create(&options, &client), GW_OK);
    if (client == NULL)
        return;
    CHECK_INT(gw_client_add_failure_observer(client, count_failure, &seen, NULL, NULL), GW_OK);
    result = call(client, "GET", "/echo", &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_PLUGIN);
    CHECK_INT(gw_result_status(result), 200);
    CHECK_STR(gw_result_error_message(result), "two errors");
    CHECK_STR(gw_result_error_objects_json(result), "[{\"code\":1},\"two\"]");
    gw_result_free(result);
    CHECK_INT(observed(&seen, NULL, NULL), 1);

    result = call(client, "GET", "/echo", &rc);
    CHECK_INT(rc, GW_OK);
    gw_result_free(result);
    CHECK_INT(observed(&seen, NULL, NULL), 1);
    CHECK_INT(calls, 2);
    CHECK_INVALID(gw_process_fail_with_errors(NULL, 0, "x", "[]"));
    gw_client_free(client);
}
