/* Plugins: prepare, will_send, did_receive, process, version 1 structs. */
#include "support.h"
#include "tests.h"

typedef struct plugin_state {
    int prepared;
    int received;
    int destroyed;
    int saw_get;
    int saw_base_url;
} plugin_state;

static int32_t signer_prepare(gw_request *request, void *user_data)
{
    plugin_state *state = user_data;
    const char *url = gw_request_url(request);
    state->prepared++;
    state->saw_get = gw_request_method(request) != NULL && strcmp(gw_request_method(request), "GET") == 0;
    state->saw_base_url = url != NULL && strncmp(url, base_url, strlen(base_url)) == 0;
    if (gw_request_set_header(request, "X-Signed", "yes") != GW_OK)
        return 1;
    return gw_request_header(request, "x-signed") != NULL ? 0 : 1;
}

static void signer_did_receive(const gw_attempt *attempt, void *user_data)
{
    plugin_state *state = user_data;
    if (gw_attempt_number(attempt) >= 1)
        state->received++;
}

static void signer_destroy(void *user_data)
{
    ((plugin_state *)user_data)->destroyed++;
}

static int32_t refusing_prepare(gw_request *request, void *user_data)
{
    (void)request;
    ((plugin_state *)user_data)->prepared++;
    return 1;
}

void test_plugins(void)
{
    static plugin_state signer, refuser;
    gw_plugin plugin = {GW_PLUGIN_VERSION, "signer", signer_prepare, signer_did_receive, signer_destroy, &signer, NULL, NULL};
    gw_client_options options = GW_CLIENT_OPTIONS_INIT;
    gw_client *client = NULL;
    gw_result *result;
    int32_t rc;
    char *body;

    options.base_url = base_url;
    options.plugins = &plugin;
    options.plugin_count = 1;
    CHECK_INT(gw_client_create(&options, &client), GW_OK);
    if (client == NULL)
        return;
    plugin.user_data = NULL; /* the struct was copied at creation */
    result = call(client, "GET", "/headers", &rc);
    CHECK_INT(rc, GW_OK);
    body = body_text(result);
    CHECK_MEMBER(body, "x-signed", "\"yes\"");
    free(body);
    gw_result_free(result);
    CHECK_INT(signer.prepared, 1);
    CHECK_INT(signer.received, 1);
    CHECK(signer.saw_get);
    CHECK(signer.saw_base_url);
    CHECK_INT(signer.destroyed, 0);
    gw_client_free(client);
    CHECK_INT(signer.destroyed, 1);

    /* A prepare that fails stops the call before anything is sent. */
    plugin.prepare = refusing_prepare;
    plugin.did_receive = NULL;
    plugin.destroy = NULL;
    plugin.user_data = &refuser;
    result = call_refused_before_sending(&options, "plugin");
    if (result == NULL)
        return;
    CHECK_CONTAINS(gw_result_error_message(result), "signer");
    printf("   refusing plugin: \"%s\"\n", gw_result_error_message(result));
    gw_result_free(result);
    CHECK_INT(refuser.prepared, 1);
}

static char order_log[512];

static pthread_mutex_t order_mutex = PTHREAD_MUTEX_INITIALIZER;

static void order_add(const char *entry)
{
    pthread_mutex_lock(&order_mutex);
    strncat(order_log, entry, sizeof order_log - strlen(order_log) - 1);
    pthread_mutex_unlock(&order_mutex);
}

static int32_t order_prepare(gw_request *request, void *user_data)
{
    (void)request;
    order_add(*(const char *)user_data == 'A' ? "Ap " : "Bp ");
    return 0;
}

static void order_will_send(const gw_request *request, void *user_data)
{
    (void)request;
    order_add(*(const char *)user_data == 'A' ? "Aw " : "Bw ");
}

static void order_did_receive(const gw_attempt *attempt, void *user_data)
{
    (void)attempt;
    order_add(*(const char *)user_data == 'A' ? "Ad " : "Bd ");
}

static void order_process(gw_process *process, void *user_data)
{
    (void)process;
    order_add(*(const char *)user_data == 'A' ? "Ax " : "Bx ");
}

/* Slack-style: a 200 with {"ok": false} is a failure. */
static void ok_field_process(gw_process *process, void *user_data)
{
    const gw_result *result = gw_process_result(process);
    size_t length = 0;
    const uint8_t *body = gw_result_body(result, &length);
    (void)user_data;
    if (gw_result_ok(result) && body != NULL && length > 0) {
        char *text = body_text(result);
        if (text != NULL && has_member(text, "ok", "false"))
            gw_process_fail(process, 0, "the API answered ok: false");
        free(text);
    }
}

void test_plugin_hooks_v2(void)
{
    static const char a = 'A', b = 'B';
    gw_plugin plugins[2] = {
        {GW_PLUGIN_VERSION, "A", order_prepare, order_did_receive, NULL, (void *)&a, order_will_send, order_process},
        {GW_PLUGIN_VERSION, "B", order_prepare, order_did_receive, NULL, (void *)&b, order_will_send, order_process},
    };
    gw_plugin ok_field = {GW_PLUGIN_VERSION, "ok-field", NULL, NULL, NULL, NULL, NULL, ok_field_process};
    gw_client_options options = GW_CLIENT_OPTIONS_INIT;
    gw_client *client = NULL;
    gw_result *result;
    char path[128];
    int32_t rc;
    char *config = config_with_base("{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 2, \"initialDelay\": 0.01}}");
    step("plugin hooks v2: order, process");

    options.config_json = config;
    options.plugins = plugins;
    options.plugin_count = 2;
    CHECK_INT(gw_client_create(&options, &client), GW_OK);
    snprintf(path, sizeof path, "/sequence/%s/503,200", unique_key("order"));
    result = call(client, "GET", path, &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_STR(order_log, "Ap Bp Aw Bw Bd Ad Ap Bp Aw Bw Bd Ad Bx Ax ");
    gw_result_free(result);
    gw_client_free(client);

    options.plugins = &ok_field;
    options.plugin_count = 1;
    CHECK_INT(gw_client_create(&options, &client), GW_OK);
    result = call(client, "GET", "/slack/invalid_auth", &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_PLUGIN);
    CHECK_INT(gw_result_status(result), 200);
    CHECK_STR(gw_result_error_message(result), "the API answered ok: false");
    gw_result_free(result);
    result = call(client, "GET", "/slack/ok", &rc);
    CHECK_INT(rc, GW_OK);
    gw_result_free(result);
    gw_client_free(client);
    free(config);
}

/* A version 1 plugin array (the six fields up to user_data) still works. */
typedef struct gw_plugin_v1 {
    uint32_t version;
    const char *name;
    int32_t (*prepare)(gw_request *request, void *user_data);
    void (*did_receive)(const gw_attempt *attempt, void *user_data);
    void (*destroy)(void *user_data);
    void *user_data;
} gw_plugin_v1;

static int32_t v1_prepare(gw_request *request, void *user_data)
{
    return gw_request_set_header(request, "X-Plugin", (const char *)user_data);
}

void test_plugin_version_1_array(void)
{
    gw_plugin_v1 plugins[2] = {
        {GW_PLUGIN_VERSION_1, "one", v1_prepare, NULL, NULL, (void *)"one"},
        {GW_PLUGIN_VERSION_1, "two", NULL, NULL, NULL, NULL},
    };
    gw_client_options options = GW_CLIENT_OPTIONS_INIT;
    gw_client *client = NULL;
    gw_result *result;
    int32_t rc;
    char *text;
    step("plugin version 1 array");
    options.base_url = base_url;
    options.plugins = (const gw_plugin *)(const void *)plugins;
    options.plugin_count = 2;
    CHECK_INT(gw_client_create(&options, &client), GW_OK);
    result = call(client, "GET", "/headers", &rc);
    text = body_text(result);
    CHECK_CONTAINS(text, "\"x-plugin\": \"one\"");
    free(text);
    gw_result_free(result);
    gw_client_free(client);
}
