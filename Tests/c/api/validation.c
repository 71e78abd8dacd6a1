/* Input validation: header injection, option ranges, messages, gw_request_fail. */
#include "support.h"
#include "tests.h"

typedef struct injecting_state {
    int32_t crlf_rc;       /* gw_request_set_header with CR LF in the value */
    int32_t name_rc;       /* gw_request_set_header with a space in the name */
    char crlf_message[256];
    char name_message[256];
    int32_t will_send_fail_rc; /* gw_request_fail inside will_send */
} injecting_state;

static int32_t injecting_prepare(gw_request *request, void *user_data)
{
    injecting_state *state = user_data;
    state->crlf_rc = gw_request_set_header(request, "X-Evil", "v\r\nInjected: yes");
    snprintf(state->crlf_message, sizeof state->crlf_message, "%s", gw_last_error_message());
    state->name_rc = gw_request_set_header(request, "Bad Name", "x");
    snprintf(state->name_message, sizeof state->name_message, "%s", gw_last_error_message());
    return 0; /* the call goes on without the refused headers */
}

static void failing_will_send(const gw_request *request, void *user_data)
{
    injecting_state *state = user_data;
    state->will_send_fail_rc = gw_request_fail((gw_request *)request, "too late");
}

static int32_t reasoned_prepare(gw_request *request, void *user_data)
{
    (void)user_data;
    char reason[32];
    snprintf(reason, sizeof reason, "signer broke");
    CHECK_INT(gw_request_fail(request, "an earlier reason"), GW_OK);
    CHECK_INT(gw_request_fail(request, reason), GW_OK); /* the last reason wins; copied */
    memset(reason, 'x', sizeof reason - 1);
    return 1;
}

static void on_refresh_with_bad_token(gw_refresh *refresh, const char *current_token, void *user_data)
{
    (void)current_token;
    (void)user_data;
    CHECK_INT(gw_refresh_complete(refresh, "t\r\nInjected: 1"), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "the refreshed token: the value contains CR");
}

void test_validation(void)
{
    gw_client *client = NULL;
    gw_result *result = NULL;
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    char *config;
    char *body;
    char *warnings = NULL;
    char path[128];
    const char *key;
    int32_t rc;

    /* Config headers with CR LF, or a name that is not a token: config errors naming headers.X. */
    config = config_with_base("{\"baseURL\": \"%s\", \"headers\": {\"X\": \"a\\r\\nInjected: 1\"}}");
    CHECK_INT(gw_client_new_from_config(config, &client), GW_ERROR_CONFIG);
    CHECK(client == NULL);
    CHECK_CONTAINS(gw_last_error_message(), "headers.X: the value contains CR at byte 1");
    printf("   config header: \"%s\"\n", gw_last_error_message());
    CHECK_INT(gw_config_check(config, &warnings), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "headers.X:");
    free(config);
    config = config_with_base("{\"baseURL\": \"%s\", \"headers\": {\"Bad Name\": \"x\"}}");
    CHECK_INT(gw_client_new_from_config(config, &client), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "headers.Bad Name: the header name contains a space");
    free(config);

    /* Messages name the function the caller called. */
    CHECK_INT(gw_client_new(base_url, NULL), GW_ERROR_INVALID_ARGUMENT);
    CHECK_STR(gw_last_error_message(), "gw_client_new: out_client is NULL");
    CHECK_INT(gw_client_new_from_config("{}", NULL), GW_ERROR_INVALID_ARGUMENT);
    CHECK_STR(gw_last_error_message(), "gw_client_new_from_config: out_client is NULL");

    client = new_client();
    if (client == NULL)
        return;
    key = unique_key("validation");
    snprintf(path, sizeof path, "/sequence/%s/200", key);

    /* headers_json: refused before anything is built or sent. */
    options.method = "GET";
    options.path = path;
    options.headers_json = "{\"X\": \"a\\r\\nInjected: 1\"}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK(result == NULL);
    CHECK_STR(gw_last_error_message(),
              "header \"X\": the value contains CR at byte 1 (RFC 9110 section 5.5: no control character "
              "but HTAB is allowed in a field value)");
    options.headers_json = "{\"Bad Name\": \"x\"}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "header \"Bad Name\": the header name contains a space");
    options.headers_json = NULL;

    /* Out-of-range numbers name the field; so does an unknown method (no internal function). */
    options.max_retries = -5;
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "max_retries: -5 is out of range");
    options.max_retries = 101;
    CHECK_INT(gw_call_async(client, &options, noop_completion, NULL, NULL), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "max_retries: 101 is out of range");
    options.max_retries = -1;
    options.attempt_timeout = -1;
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "attempt_timeout: -1");
    options.attempt_timeout = 0;
    options.deadline = NAN;
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "deadline: nan is out of range");
    options.deadline = 1e9;
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    options.deadline = 0;
    options.method = "FETCH";
    CHECK_INT(gw_call_async(client, &options, noop_completion, NULL, NULL), GW_ERROR_INVALID_ARGUMENT);
    CHECK(strncmp(gw_last_error_message(), "method: unknown HTTP method \"FETCH\"", 35) == 0);
    printf("   unknown method: \"%s\"\n", gw_last_error_message());
    {
        /* A version 1 struct is checked the same way. */
        gw_call_options v1;
        memset(&v1, 0xAB, sizeof v1); /* bytes past a v1 struct must not be read */
        CHECK_INT(gw_call_options_init(&v1, GW_CALL_OPTIONS_VERSION_1), GW_OK);
        v1.method = "GET";
        v1.path = path;
        v1.max_retries = -5;
        CHECK_INT(gw_call(client, &v1, &result), GW_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(gw_last_error_message(), "max_retries: -5");
    }
    CHECK_INT(server_count(client, key), 0);

    /* method NULL with a path is GET, as documented. */
    options.method = NULL;
    options.path = "/echo";
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    body = body_text(result);
    CHECK_MEMBER(body, "method", "\"GET\"");
    free(body);
    gw_result_free(result);

    /* An unknown route on a client without routes says so. */
    options.path = NULL;
    options.route = "nope";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_STR(gw_result_error_message(result), "unknown route \"nope\" (the client has no routes)");
    gw_result_free(result);
    gw_client_free(client);

    /* A plugin: gw_request_set_header refuses CR LF and bad names; the server sees neither. */
    {
        static injecting_state state;
        gw_plugin plugin = {GW_PLUGIN_VERSION, "injector", injecting_prepare, NULL, NULL, &state, failing_will_send, NULL};
        gw_client_options client_options = GW_CLIENT_OPTIONS_INIT;
        client_options.base_url = base_url;
        client_options.plugins = &plugin;
        client_options.plugin_count = 1;
        client = NULL;
        CHECK_INT(gw_client_create(&client_options, &client), GW_OK);
        if (client == NULL)
            return;
        result = call(client, "GET", "/echo", &rc);
        CHECK_INT(rc, GW_OK);
        CHECK_INT(state.crlf_rc, GW_ERROR_INVALID_ARGUMENT);
        CHECK_STR(state.crlf_message, "header \"X-Evil\": the value contains CR at byte 1 (RFC 9110 section 5.5: no control "
                                      "character but HTAB is allowed in a field value)");
        CHECK_INT(state.name_rc, GW_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(state.name_message, "header \"Bad Name\": the header name contains a space");
        CHECK_INT(state.will_send_fail_rc, GW_ERROR_INVALID_ARGUMENT);
        body = body_text(result);
        CHECK(strstr(body, "injected") == NULL && strstr(body, "x-evil") == NULL);
        free(body);
        gw_result_free(result);
        gw_client_free(client);
    }

    /* gw_request_fail: the call fails with the hook's reason, nothing is sent. */
    {
        gw_plugin plugin = {GW_PLUGIN_VERSION, "signer", reasoned_prepare, NULL, NULL, NULL, NULL, NULL};
        gw_client_options client_options = GW_CLIENT_OPTIONS_INIT;
        client_options.base_url = base_url;
        client_options.plugins = &plugin;
        client_options.plugin_count = 1;
        result = call_refused_before_sending(&client_options, "request-fail");
        if (result == NULL)
            return;
        CHECK_STR(gw_result_error_message(result), "plugin signer failed: signer broke");
        gw_result_free(result);
        CHECK_INT(gw_request_fail(NULL, "x"), GW_ERROR_INVALID_ARGUMENT);
        CHECK_STR(gw_last_error_message(), "gw_request_fail: request is NULL");
    }

    /* Credentials: a header value with CR LF is refused at creation and at refresh. */
    {
        gw_credential_options credential_options = GW_CREDENTIAL_OPTIONS_INIT;
        gw_credential *credential = NULL;
        gw_client_options client_options = GW_CLIENT_OPTIONS_INIT;
        credential_options.token = "t\nInjected: 1";
        credential_options.refresh = on_refresh_with_bad_token;
        CHECK_INT(gw_credential_new(&credential_options, &credential), GW_ERROR_INVALID_ARGUMENT);
        CHECK_CONTAINS(gw_last_error_message(), "header \"Authorization\": the value contains LF");
        credential_options.token = NULL; /* unsigned until the first refresh, whose token is refused */
        credential_options.header = "Bad Name";
        CHECK_INT(gw_credential_new(&credential_options, &credential), GW_ERROR_INVALID_ARGUMENT);
        credential_options.header = NULL;
        CHECK_INT(gw_credential_new(&credential_options, &credential), GW_OK);
        client_options.base_url = base_url;
        client_options.credential = credential;
        client = NULL;
        CHECK_INT(gw_client_create(&client_options, &client), GW_OK);
        if (client != NULL) {
            key = unique_key("bad-refresh");
            snprintf(path, sizeof path, "/auth/%s", key);
            result = call(client, "GET", path, &rc);
            CHECK_INT(rc, GW_ERROR_CALL_FAILED);
            CHECK_INT(gw_result_error_kind(result), GW_KIND_AUTH); /* the refresh failed */
            gw_result_free(result);
            gw_client_free(client);
        }
        gw_credential_free(credential);
    }
}
