/* Bodies beyond JSON (raw bytes with a content type, form_json) and params_json arrays in
 * each arrayParameters style, as httpbin's /anything saw them; version 2 options still work. */
#include "support.h"
#include "tests.h"

/* A version 2 caller: its struct ends at policy_json (no body, form_json). */
typedef struct call_options_v2 {
    uint32_t version;
    const char *method, *path, *route, *params_json, *headers_json, *body_json, *object_type;
    int32_t max_retries;
    double attempt_timeout, deadline;
    gw_retry_test_fn retry_test;
    void *retry_test_user_data;
    const char *policy_json;
} call_options_v2;

/* A client for httpbin whose config writes lists in `style` (NULL: the default). */
static gw_client *httpbin_client(const char *style)
{
    char config[256];
    if (style == NULL)
        snprintf(config, sizeof config, "{\"baseURL\": \"%s\"}", httpbin_url);
    else
        snprintf(config, sizeof config, "{\"baseURL\": \"%s\", \"arrayParameters\": \"%s\"}", httpbin_url, style);
    return new_client_from_config(config);
}

/* GET /anything with `params_json` in `style`: checks the path sent and the echo's text. */
static void check_query(const char *style, const char *params_json, const char *expected_path,
                        const char *echoed)
{
    gw_client *client = httpbin_client(style);
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char *body;
    if (client == NULL)
        return;
    options.path = "/anything";
    options.params_json = params_json;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    CHECK_STR(gw_result_path(result), expected_path);
    body = body_text(result);
    CHECK_CONTAINS(body, echoed);
    free(body);
    gw_result_free(result);
    gw_client_free(client);
}

void test_httpbin_bodies_and_list_params(void)
{
    static const uint8_t bytes[] = {'r', 'a', 'w', '\n', 0xC3, 0xA9};
    gw_client *client;
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    call_options_v2 *v2;
    gw_result *result = NULL;
    char *body;

    check_query(NULL, "{\"ids\": [1, \"a b\"], \"open\": true, \"n\": 2.5}", "/anything?n=2.5&open=true&ids=1&ids=a%20b",
                "\"ids\": [\n      \"1\",\n      \"a b\"\n    ]");
    check_query("brackets", "{\"ids\": [1, 2]}", "/anything?ids%5B%5D=1&ids%5B%5D=2", "\"ids[]\": [");
    check_query("comma", "{\"ids\": [1, \"2,3\"], \"none\": []}", "/anything?ids=1,2%2C3", "\"ids\": \"1,2,3\"");

    client = httpbin_client(NULL);
    if (client == NULL)
        return;

    /* Raw bytes with their content type. */
    options.method = "POST";
    options.path = "/anything";
    options.body = bytes;
    options.body_length = sizeof bytes;
    options.content_type = "text/plain; charset=utf-8";
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    body = body_text(result);
    CHECK_MEMBER(body, "Content-Type", "\"text/plain; charset=utf-8\"");
    CHECK_MEMBER(body, "Content-Length", "\"6\"");
    CHECK_MEMBER(body, "data", "\"raw\\n\\u00e9\"");
    free(body);
    gw_result_free(result);

    /* No content type: application/octet-stream; an empty body is sent as one. */
    options.content_type = NULL;
    options.body_length = 0;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    body = body_text(result);
    CHECK_MEMBER(body, "Content-Type", "\"application/octet-stream\"");
    CHECK_MEMBER(body, "Content-Length", "\"0\"");
    free(body);
    gw_result_free(result);

    /* A form: WHATWG encoding, a list repeats its field. */
    options.body = NULL;
    options.form_json = "{\"name\": \"Ann Lee\", \"note\": \"a+b&c=d\", \"ids\": [1, 2], \"ok\": false}";
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    body = body_text(result);
    CHECK_MEMBER(body, "Content-Type", "\"application/x-www-form-urlencoded\"");
    CHECK_MEMBER(body, "name", "\"Ann Lee\"");
    CHECK_MEMBER(body, "note", "\"a+b&c=d\"");
    CHECK_MEMBER(body, "ok", "\"false\"");
    CHECK_CONTAINS(body, "\"ids\": [\n      \"1\",\n      \"2\"\n    ]");
    free(body);
    gw_result_free(result);

    /* Refused before sending, naming the fields. */
    options.body_json = "{}";
    CHECK_INVALID(gw_call(client, &options, &result));
    CHECK_STR(gw_last_error_message(), "body_json and form_json: set at most one body");
    options.body_json = NULL;
    options.form_json = "{\"a\": {\"b\": 1}}";
    CHECK_INVALID(gw_call(client, &options, &result));
    CHECK_STR(gw_last_error_message(), "form_json.a: expected a string, number or boolean");
    options.form_json = NULL;
    options.body_length = 3;
    CHECK_INVALID(gw_call(client, &options, &result));
    CHECK_CONTAINS(gw_last_error_message(), "body: NULL with body_length 3");
    options.body_length = 0;
    options.method = "GET";
    options.params_json = "{\"ids\": [1, null]}";
    CHECK_INVALID(gw_call(client, &options, &result));
    CHECK_STR(gw_last_error_message(), "params_json.ids[1]: expected a string, number or boolean");

    /* A version 2 caller's struct ends at policy_json: nothing past it is read. */
    v2 = malloc(sizeof *v2);
    if (v2 == NULL)
        abort();
    memset(v2, 0xAB, sizeof *v2);
    CHECK_INT(gw_call_options_init((gw_call_options *)v2, GW_CALL_OPTIONS_VERSION_2), GW_OK);
    CHECK_INT(v2->version, 2);
    CHECK_INT(v2->max_retries, -1);
    v2->method = "POST";
    v2->path = "/anything";
    v2->body_json = "{\"v\": 2}";
    CHECK_INT(gw_call(client, (const gw_call_options *)v2, &result), GW_OK);
    body = body_text(result);
    CHECK_MEMBER(body, "Content-Type", "\"application/json\"");
    CHECK_CONTAINS(body, "\"v\": 2");
    free(body);
    gw_result_free(result);
    free(v2);
    gw_client_free(client);
}
