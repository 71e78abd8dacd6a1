/* Blocking calls: gw_call, status, headers and body. */
#include "support.h"
#include "tests.h"

void test_blocking_get(void)
{
    gw_client *client = new_client();
    gw_result *result;
    int32_t rc;
    char *body;
    const char *attempts;
    if (client == NULL)
        return;

    result = call(client, "GET", "/echo?x=1", &rc);
    CHECK_INT(rc, GW_OK);
    CHECK(result != NULL);
    CHECK_INT(gw_result_ok(result), 1);
    CHECK_INT(gw_result_status(result), 200);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_NONE);
    CHECK_STR(gw_result_error_kind_name(result), "none");
    CHECK_STR(gw_result_error_message(result), "");
    CHECK_STR(gw_result_method(result), "GET");
    CHECK_CONTAINS(gw_result_path(result), "/echo");
    CHECK_CONTAINS(gw_result_header(result, "CONTENT-type"), "application/json");
    CHECK(gw_result_header(result, "X-No-Such-Header") == NULL);
    CHECK(gw_result_headers_json(result) != NULL && strncmp(gw_result_headers_json(result), "[[", 2) == 0);
    CHECK_CONTAINS(gw_result_headers_json(result), "\"application/json\"");
    CHECK_INT(gw_result_attempt_count(result), 1);
    attempts = gw_result_attempts_json(result);
    CHECK(attempts != NULL && attempts[0] == '[');
    CHECK_CONTAINS(attempts, "\"attempt\"");
    body = body_text(result);
    CHECK_CONTAINS(body, "\"x\"");
    CHECK_MEMBER(body, "query", "{\"x\"");
    CHECK_MEMBER(body, "method", "\"GET\"");
    free(body);
    gw_result_free(result);

    /* The same query through params_json. */
    {
        gw_call_options options = GW_CALL_OPTIONS_INIT;
        options.method = "get"; /* case-insensitive */
        options.path = "/echo";
        options.params_json = "{\"x\": 1, \"y\": \"a b\"}";
        result = NULL;
        CHECK_INT(gw_call(client, &options, &result), GW_OK);
        body = body_text(result);
        CHECK_MEMBER(body, "x", "\"1\"");
        CHECK_MEMBER(body, "y", "\"a b\"");
        CHECK_STR(gw_result_method(result), "GET");
        free(body);
        gw_result_free(result);
    }
    gw_client_free(client);
}

void test_headers_and_body(void)
{
    gw_client *client = new_client();
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char *body;
    if (client == NULL)
        return;
    options.method = "POST";
    options.path = "/echo/things";
    options.headers_json = "{\"X-Test\": \"abc\", \"X-Other\": \"d e\"}";
    options.body_json = "{\"hello\": \"world\", \"n\": 3, \"list\": [1, 2]}";
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    CHECK_STR(gw_result_method(result), "POST");
    body = body_text(result);
    CHECK_MEMBER(body, "method", "\"POST\"");
    CHECK_MEMBER(body, "path", "\"/echo/things\"");
    CHECK_MEMBER(body, "x-test", "\"abc\"");
    CHECK_MEMBER(body, "x-other", "\"d e\"");
    CHECK_MEMBER(body, "hello", "\"world\"");
    CHECK_MEMBER(body, "n", "3");
    free(body);
    gw_result_free(result);
    gw_client_free(client);
}
