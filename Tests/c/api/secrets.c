/* Secrets never leave: results, observers, events and logs are redacted. */
#include "support.h"
#include "tests.h"

static const char *const planted_secrets[] = {"BASEPASS_C1", "BEARER_C2", "APIKEY_C3", "APIQ_C4", "QTOKEN_C5",
                                              "QKEY_C6", "QSIG_C7", "CALLKEY_C8", "SIGH_C9", "gwuser"};

static char leak_text[65536];

static pthread_mutex_t leak_mutex = PTHREAD_MUTEX_INITIALIZER;

static void collect_text(const char *text)
{
    pthread_mutex_lock(&leak_mutex);
    append_entry(leak_text, sizeof leak_text, text ? text : "", "\n");
    pthread_mutex_unlock(&leak_mutex);
}

/* Every string accessor of a result (its body aside: the server's bytes). */
static void collect_result(const gw_result *result)
{
    collect_text(gw_result_error_kind_name(result));
    collect_text(gw_result_error_message(result));
    collect_text(gw_result_method(result));
    collect_text(gw_result_path(result));
    collect_text(gw_result_headers_json(result));
    collect_text(gw_result_mapped_json(result));
    collect_text(gw_result_error_objects_json(result));
    collect_text(gw_result_attempts_json(result));
    collect_text(gw_result_mapped_at(result, ""));
    collect_text(gw_result_mapped_first(result, ""));
    collect_text(gw_result_metadata_json(result));
}

static void collect_event(const gw_event *event, void *user_data)
{
    (void)user_data;
    collect_text(gw_event_json(event));
}

static void collect_failure(const gw_result *failure, void *user_data)
{
    (void)user_data;
    collect_result(failure);
}

void test_secrets_never_leave(void)
{
    gw_client *client;
    gw_result *result;
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    char config[2048], path[128];
    const char *params = "{\"access_token\": \"QTOKEN_C5\", \"api_key\": \"QKEY_C6\", \"sig\": \"QSIG_C7\", \"page\": 2}";
    const char *headers = "{\"X-Api-Key\": \"CALLKEY_C8\", \"X-Signature\": \"SIGH_C9\"}";
    char *text;
    size_t i;
    step("secrets never leave: results, observers, events, logs");

    snprintf(config, sizeof config,
             "{\"baseURL\": \"http://gwuser:BASEPASS_C1@%s\", \"auth\": {\"type\": \"bearer\", \"token\": \"BEARER_C2\"},"
             " \"redactHeaders\": [\"X-Signature\"], \"redactQuery\": [\"sig\"],"
             " \"plugins\": [{\"name\": \"apiKey\", \"header\": \"X-Custom-Key\", \"value\": \"APIKEY_C3\"},"
             " {\"name\": \"apiKey\", \"query\": \"q_auth\", \"value\": \"APIQ_C4\"}, {\"name\": \"log\", \"headers\": true}],"
             " \"mappings\": {\"Fault\": {\"attributes\": {\"@metadata.url\": \"url\", \"@metadata.query.sig\": \"sig\"}}},"
             " \"responseDescriptors\": [{\"mapping\": \"Fault\", \"pathPattern\": \"/fault/:key/:step\"}]}",
             base_url + strlen("http://"));
    leak_text[0] = '\0';
    log_lines[0] = '\0';
    CHECK_INT(gw_set_log_sink(capture_log, NULL), GW_OK);
    client = new_client_from_config(config);
    CHECK_INT(gw_client_add_event_monitor(client, collect_event, NULL, NULL, NULL), GW_OK);
    CHECK_INT(gw_client_add_failure_observer(client, collect_failure, NULL, NULL, NULL), GW_OK);
    options.method = "GET";
    options.params_json = params;
    options.headers_json = headers;

    options.path = "/echo"; /* the server sees every secret ... */
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    text = body_text(result);
    for (i = 0; i < sizeof planted_secrets / sizeof planted_secrets[0]; i++)
        if (strcmp(planted_secrets[i], "BASEPASS_C1") != 0 && strcmp(planted_secrets[i], "gwuser") != 0)
            CHECK_CONTAINS(text, planted_secrets[i]);
    free(text);
    collect_result(result);
    gw_result_free(result);

    snprintf(path, sizeof path, "/fault/%s/200", unique_key("planted"));
    options.path = path;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    collect_result(result);
    CHECK_CONTAINS(gw_result_path(result), "access_token=<redacted>");
    CHECK_CONTAINS(gw_result_path(result), "page=2");
    CHECK_CONTAINS(gw_result_mapped_json(result), "\"sig\":\"<redacted>\"");
    gw_result_free(result);

    options.path = "/status/404";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    collect_result(result);
    gw_result_free(result);
    gw_client_free(client);
    gw_set_log_sink(NULL, NULL);
    collect_text(log_lines);

    CHECK_CONTAINS(leak_text, "X-Api-Key: <redacted>");
    CHECK_CONTAINS(leak_text, "\"url\":\"http://127.0.0.1:");
    for (i = 0; i < sizeof planted_secrets / sizeof planted_secrets[0]; i++)
        check(strstr(leak_text, planted_secrets[i]) == NULL, __FILE__, __LINE__, "%s leaked:\n%s", planted_secrets[i],
              leak_text);
}
