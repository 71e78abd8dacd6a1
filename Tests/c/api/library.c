/* Library, arguments, NULL handles: gw_version, argument checks, option versions, NULL handles. */
#include "support.h"
#include "tests.h"

void test_version(void)
{
    const char *version = gw_version();
    unsigned major, minor, patch;
    char extra;
    CHECK(version != NULL);
    if (version == NULL)
        return;
    CHECK_INT(sscanf(version, "%u.%u.%u%c", &major, &minor, &patch, &extra), 3);
#ifdef GW_EXPECTED_VERSION
    CHECK_STR(version, GW_EXPECTED_VERSION); /* the CMake project version */
#endif
    CHECK(gw_version() == version);          /* static storage */
    CHECK(gw_last_error_message() != NULL);
}

static void noop_observer(const gw_result *failure, void *user_data)
{
    (void)failure;
    (void)user_data;
}

void test_null_arguments(void)
{
    gw_client *client;
    gw_client_options client_options = GW_CLIENT_OPTIONS_INIT;
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    gw_call_handle *handle = NULL;
    uint64_t id = 0;

    CHECK_INVALID(gw_client_new(NULL, &client));
    printf("   gw_client_new(NULL): \"%s\"\n", gw_last_error_message());
    CHECK_INVALID(gw_client_new(base_url, NULL));
    CHECK_INVALID(gw_client_new_from_config(NULL, &client));
    CHECK_INVALID(gw_client_create(NULL, &client));
    CHECK_INVALID(gw_client_create(&client_options, &client)); /* no config source */
    CHECK_STR(gw_last_error_message(), "gw_client_create: set one of config_json, config_path, base_url");
    client_options.config_json = "{\"baseURL\": \"http://127.0.0.1:1\"}";
    client_options.config_path = "gateway.json";
    CHECK_INVALID(gw_client_create(&client_options, &client)); /* two config sources */
    CHECK_STR(gw_last_error_message(), "gw_client_create: set config_json or config_path, not both");
    CHECK(client == NULL);
    CHECK_INVALID(gw_client_options_init(NULL, GW_CLIENT_OPTIONS_VERSION));
    CHECK_INVALID(gw_call_options_init(NULL, GW_CALL_OPTIONS_VERSION));
    CHECK_INVALID(gw_config_check(NULL, NULL));

    client = new_client();
    if (client == NULL)
        return;
    options.method = "GET";
    options.path = "/echo";
    CHECK_INVALID(gw_call(NULL, &options, &result));
    CHECK_INVALID(gw_call(client, NULL, &result));
    CHECK_INVALID(gw_call(client, &options, NULL));
    CHECK(result == NULL);
    CHECK_INVALID(gw_call_async(NULL, &options, noop_completion, NULL, &handle));
    CHECK_INVALID(gw_call_async(client, NULL, noop_completion, NULL, &handle));
    CHECK_INVALID(gw_call_cancel(NULL));
    CHECK_INVALID(gw_client_add_failure_observer(NULL, noop_observer, NULL, NULL, &id));
    CHECK_INVALID(gw_client_add_failure_observer(client, NULL, NULL, NULL, &id));
    CHECK_INVALID(gw_client_remove_failure_observer(NULL, 1));
    CHECK_INVALID(gw_client_remove_failure_observer(client, 987654321u)); /* not registered */
    CHECK_INVALID(gw_request_set_header(NULL, "X-A", "b"));
    CHECK_INVALID(gw_request_set_url(NULL, "http://127.0.0.1/"));

    /* Malformed JSON in call options is an argument error, reported before anything is sent. */
    options.headers_json = "{\"X-A\": ";
    CHECK_INVALID(gw_call(client, &options, &result));
    printf("   gw_call(headers_json \"{\\\"X-A\\\": \"): \"%s\"\n", gw_last_error_message());
    CHECK(result == NULL);
    options.headers_json = NULL;
    options.params_json = "[1, 2]"; /* valid JSON, but not an object */
    CHECK_INVALID(gw_call(client, &options, &result));
    CHECK(result == NULL);
    gw_client_free(client);
}

void test_versions(void)
{
    gw_client_options client_options;
    gw_call_options call_options;
    gw_client *client = NULL;
    gw_plugin plugin = {GW_PLUGIN_VERSION, "future", NULL, NULL, NULL, NULL, NULL, NULL};

    CHECK_INT(gw_client_options_init(&client_options, GW_CLIENT_OPTIONS_VERSION), GW_OK);
    CHECK_INT(client_options.version, GW_CLIENT_OPTIONS_VERSION);
    CHECK(client_options.base_url == NULL && client_options.plugins == NULL);
    CHECK_INT(gw_client_options_init(&client_options, 999), GW_ERROR_VERSION);
    CHECK_INT(gw_call_options_init(&call_options, GW_CALL_OPTIONS_VERSION), GW_OK);
    CHECK_INT(call_options.max_retries, -1);
    CHECK(call_options.method == NULL && call_options.retry_test == NULL);
    CHECK_INT(gw_call_options_init(&call_options, 999), GW_ERROR_VERSION);

    gw_client_options_init(&client_options, GW_CLIENT_OPTIONS_VERSION);
    client_options.base_url = base_url;
    client_options.version = 999;
    CHECK_INT(gw_client_create(&client_options, &client), GW_ERROR_VERSION);
    client_options.version = GW_CLIENT_OPTIONS_VERSION;
    plugin.version = 999;
    client_options.plugins = &plugin;
    client_options.plugin_count = 1;
    CHECK_INT(gw_client_create(&client_options, &client), GW_ERROR_VERSION);
    printf("   plugin version 999: \"%s\"\n", gw_last_error_message());
}

void test_null_handles(void)
{
    size_t length = 12345;
    const char *text;
    CHECK_INT(gw_result_ok(NULL), 0);
    CHECK_INT(gw_result_status(NULL), 0);
    CHECK_INT(gw_result_error_kind(NULL), 0);
    CHECK_INT(gw_result_attempt_count(NULL), 0);
    CHECK(gw_result_method(NULL) == NULL);
    CHECK(gw_result_path(NULL) == NULL);
    CHECK(gw_result_body(NULL, &length) == NULL);
    CHECK_INT(length, 0);
    CHECK(gw_result_header(NULL, "Content-Type") == NULL);
    CHECK(gw_result_mapped_json(NULL) == NULL);
    CHECK(gw_result_error_objects_json(NULL) == NULL);
    /* Not pinned by the header for NULL: must not crash; NULL or "" is fine. */
    text = gw_result_attempts_json(NULL);
    CHECK(text == NULL || text[0] == '\0' || strcmp(text, "[]") == 0);
    text = gw_result_headers_json(NULL);
    CHECK(text == NULL || strcmp(text, "[]") == 0);
    text = gw_result_error_message(NULL);
    CHECK(text == NULL || text[0] == '\0');
    (void)gw_result_error_kind_name(NULL);

    CHECK_INT(gw_attempt_number(NULL), 0);
    CHECK_INT(gw_attempt_status(NULL), 0);
    CHECK_INT(gw_attempt_error_kind(NULL), 0);
    CHECK(gw_attempt_elapsed(NULL) == 0.0);
    CHECK(gw_attempt_header(NULL, "X") == NULL);
    CHECK(gw_request_method(NULL) == NULL);
    CHECK(gw_request_url(NULL) == NULL);
    CHECK(gw_request_header(NULL, "X") == NULL);

    /* NULL frees are ignored (the header): they do not fail, so the thread's last error is
     * the message of the failure just before them, and the library still makes clients. */
    {
        gw_client *client = NULL;
        char before[256];
        CHECK_INT(gw_client_new(NULL, &client), GW_ERROR_INVALID_ARGUMENT);
        snprintf(before, sizeof before, "%s", gw_last_error_message());
        CHECK(before[0] != '\0');
        gw_result_free(NULL);
        gw_string_free(NULL);
        gw_call_handle_free(NULL);
        gw_client_free(NULL);
        CHECK_STR(gw_last_error_message(), before);
        CHECK_INT(gw_client_new("http://127.0.0.1:1", &client), GW_OK);
        CHECK(client != NULL);
        gw_client_free(client);
    }
}
