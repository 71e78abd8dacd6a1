/* Events, redacted logs, metrics and a shared-object plugin. */
#include "support.h"
#include "tests.h"

static char event_log[512];

static void record_event(const gw_event *event, void *user_data)
{
    (void)user_data;
    append_entry(event_log, sizeof event_log, gw_event_kind(event), " ");
    if (strcmp(gw_event_kind(event), "attempt_finished") == 0)
        CHECK_CONTAINS(gw_event_json(event), "\"first_byte\"");
}

void test_events_logs_metrics_and_shared_objects(void)
{
    gw_client *client;
    gw_result *result;
    uint64_t id = 0;
    int32_t rc;
    char path[128], command[1024], *metrics = NULL, *text, *config;
    const char *secret = "c-s3cr3t-token";
    FILE *file;
    step("events, redacted logs, metrics, a shared-object plugin");

    config = config_with_base("{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 1, \"initialDelay\": 0.01}}");
    client = new_client_from_config(config);
    free(config);
    CHECK_INT(gw_client_add_event_monitor(client, record_event, NULL, NULL, &id), GW_OK);
    snprintf(path, sizeof path, "/sequence/%s/503,200", unique_key("events"));
    gw_result_free(call(client, "GET", path, &rc));
    CHECK_STR(event_log, "call_started attempt_started attempt_finished retry_scheduled attempt_started "
                         "attempt_finished call_finished ");
    CHECK_INT(gw_client_remove_event_monitor(client, id), GW_OK);
    CHECK_INT(gw_client_remove_event_monitor(client, id), GW_ERROR_INVALID_ARGUMENT);
    gw_client_free(client);

    CHECK_INT(gw_set_log_sink(capture_log, NULL), GW_OK);
    file = fopen("gw_test_plugin.c", "w");
    CHECK(file != NULL);
    if (file == NULL)
        return;
    /* A plugin written against the gw_plugin_api table and not linked against libGatewire
       (--no-undefined: no gw_* symbol is left for the loader to find). */
    fputs("#define GW_PLUGIN_USE_API\n"
          "#include \"gatewire.h\"\n"
          "GW_PLUGIN_API_DEFINE\n"
          "static int32_t prepare(gw_request *r, void *u) { (void)u; return gw_request_set_header(r, \"X-From-Shared-Object\", \"yes\"); }\n"
          "int32_t gw_plugin_entry(gw_plugin *p, const gw_plugin_api *api) {\n"
          "    GW_PLUGIN_API_INIT(api);\n"
          "    p->version = GW_PLUGIN_VERSION; p->name = \"shared\"; p->prepare = prepare; return 0;\n"
          "}\n",
          file);
    fclose(file);
    snprintf(command, sizeof command, "cc -shared -fPIC -Wl,--no-undefined -I%s -o ./libgw_test_plugin.so gw_test_plugin.c",
             GW_INCLUDE_DIR);
    CHECK_INT(system(command), 0);
    {
        char cwd[512], *json = malloc(2048);
        CHECK(getcwd(cwd, sizeof cwd) != NULL);
        snprintf(json, 2048,
                 "{\"baseURL\": \"%s\", \"plugins\": [{\"name\": \"bearer\", \"token\": \"%s\"}, "
                 "{\"name\": \"apiKey\", \"query\": \"api_key\", \"value\": \"%s\"}, {\"name\": \"requestId\"}, "
                 "{\"name\": \"log\", \"headers\": true}, {\"name\": \"metrics\"}, {\"path\": \"%s/libgw_test_plugin.so\"}]}",
                 base_url, secret, secret, cwd);
        client = new_client_from_config(json);
        free(json);
    }
    result = call(client, "GET", "/echo", &rc);
    CHECK_INT(rc, GW_OK);
    text = body_text(result);
    CHECK_CONTAINS(text, "\"x-from-shared-object\": \"yes\"");
    CHECK_CONTAINS(text, "x-request-id");
    CHECK_CONTAINS(text, secret); /* the server got it ... */
    free(text);
    gw_result_free(result);
    gw_result_free(call(client, "GET", "/status/401", &rc));
    CHECK_INT(gw_client_metrics_json(client, &metrics), GW_OK);
    CHECK_MEMBER(metrics, "calls", "2");
    gw_string_free(metrics);
    gw_client_free(client);
    gw_set_log_sink(NULL, NULL);
    CHECK_CONTAINS(log_lines, "<redacted>");
    CHECK(strstr(log_lines, secret) == NULL); /* ... but no log line did */
    remove("gw_test_plugin.c");
    remove("libgw_test_plugin.so");
}
