/* Typed, in-place reads of mapped objects: gw_result_mapped_value. */
#include "support.h"
#include "tests.h"

/* A string value equals `text` (with its length). */
static int is_string(const gw_value *value, const char *text)
{
    return value->type == GW_VALUE_STRING && value->length == strlen(text) && strcmp(value->string, text) == 0;
}

void test_mapped_values(void)
{
    char *config = config_with_base(
        "{\"baseURL\": \"%s\","
        " \"mappings\": {"
        "   \"Issue\": {\"attributes\": {\"number\": {\"to\": \"number\", \"type\": \"integer\"}, \"title\": \"title\","
        "     \"locked\": \"isLocked\", \"milestone\": \"milestone\", \"labels\": \"labels\","
        "     \"created_at\": {\"to\": \"createdAt\", \"type\": \"date\"}},"
        "     \"relationships\": {\"user\": {\"to\": \"author\", \"mapping\": \"User\"}}},"
        "   \"User\": {\"attributes\": {\"login\": \"login\"}},"
        "   \"Echo\": {\"attributes\": {\"method\": \"method\", \"query.score\": {\"to\": \"score\", \"type\": \"number\"},"
        "     \"query.n\": {\"to\": \"n\", \"type\": \"integer\"}}}},"
        " \"responseDescriptors\": ["
        "   {\"mapping\": \"Issue\", \"method\": \"GET\", \"pathPattern\": \"/fixture/:name\"},"
        "   {\"mapping\": \"Echo\", \"method\": \"GET\", \"pathPattern\": \"/echo\", \"keyPath\": \"\"}]}");
    gw_client *client = new_client_from_config(config);
    free(config);
    if (client == NULL)
        return;
    int32_t rc;
    gw_value value;

    /* Tests/fixtures/real/github-issues-list-page1.json: a real page of three GitHub issues
     * (numbers 13, 12, 11), mapped at the root. */
    gw_result *result = call(client, "GET", "/fixture/github-issues-list-page1.json", &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_mapped_count(result, ""), 3);
    CHECK_INT(gw_result_mapped_value(result, "", -1, NULL, &value), GW_OK);
    CHECK_INT(value.type, GW_VALUE_ARRAY);
    CHECK_INT((int)value.count, 3);
    for (int64_t i = 0; i < 3; i++) {
        CHECK_INT(gw_result_mapped_value(result, "", i, "number", &value), GW_OK);
        CHECK_INT(value.type, GW_VALUE_INTEGER);
        CHECK_INT((int)value.integer, 13 - (int)i);
        CHECK(value.real == (double)(13 - i));
    }
    CHECK_INT(gw_result_mapped_value(result, NULL, 0, "title", &value), GW_OK);
    CHECK(is_string(&value, "Test issue 13"));
    CHECK_INT(gw_result_mapped_value(result, "", 0, "author.login", &value), GW_OK);
    CHECK(is_string(&value, "octokit-fixture-user-a"));
    CHECK_INT(gw_result_mapped_value(result, "", 0, "isLocked", &value), GW_OK);
    CHECK_INT(value.type, GW_VALUE_BOOL);
    CHECK_INT(value.boolean, 0);
    CHECK_INT(gw_result_mapped_value(result, "", 0, "milestone", &value), GW_OK);
    CHECK_INT(value.type, GW_VALUE_NULL);
    CHECK_INT(gw_result_mapped_value(result, "", 0, "labels", &value), GW_OK);
    CHECK_INT(value.type, GW_VALUE_ARRAY);
    CHECK_INT((int)value.count, 0);
    CHECK_INT(gw_result_mapped_value(result, "", 0, "createdAt", &value), GW_OK);
    CHECK(value.type == GW_VALUE_STRING && strncmp(value.string, "2017-10-10T16:00:00", 19) == 0);
    CHECK_INT(gw_result_mapped_value(result, "", 1, NULL, &value), GW_OK);
    CHECK_INT(value.type, GW_VALUE_OBJECT);
    CHECK(value.count >= 7);
    /* Nothing there: out of range, an unknown field, a key path no descriptor has, a segment
     * through a scalar, a non-digit index. */
    CHECK_INT(gw_result_mapped_value(result, "", 3, "number", &value), GW_OK);
    CHECK_INT(value.type, GW_VALUE_MISSING);
    CHECK_INT(gw_result_mapped_value(result, "", 0, "nope", &value), GW_OK);
    CHECK_INT(value.type, GW_VALUE_MISSING);
    CHECK_INT(gw_result_mapped_value(result, "items", 0, NULL, &value), GW_OK);
    CHECK_INT(value.type, GW_VALUE_MISSING);
    CHECK_INT(gw_result_mapped_value(result, "", 0, "title.x", &value), GW_OK);
    CHECK_INT(value.type, GW_VALUE_MISSING);
    CHECK_INT(gw_result_mapped_value(result, "", -1, "x", &value), GW_OK);
    CHECK_INT(value.type, GW_VALUE_MISSING);
    /* Bad arguments: an error code and a message, never a crash. */
    CHECK_INT(gw_result_mapped_value(result, "", -2, NULL, &value), GW_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(gw_last_error_message(), "below -1") != NULL);
    CHECK_INT(gw_result_mapped_value(result, "", 0, NULL, NULL), GW_ERROR_INVALID_ARGUMENT);
    CHECK_INT(gw_result_mapped_value(NULL, "", 0, NULL, &value), GW_ERROR_INVALID_ARGUMENT);
    gw_result_free(result);

    /* One object mapped (not an array): index 0 is that object; an array index on the
     * object's own field path; a real and an integer coerced from query strings. */
    result = call(client, "GET", "/echo?score=2.5&n=7", &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_mapped_value(result, "", 0, "score", &value), GW_OK);
    CHECK_INT(value.type, GW_VALUE_REAL);
    CHECK(value.real == 2.5);
    CHECK_INT(gw_result_mapped_value(result, "", -1, "n", &value), GW_OK);
    CHECK_INT(value.type, GW_VALUE_INTEGER);
    CHECK_INT((int)value.integer, 7);
    CHECK_INT(gw_result_mapped_value(result, "", 0, "method", &value), GW_OK);
    CHECK(is_string(&value, "GET"));
    CHECK_INT(gw_result_mapped_value(result, "", 1, NULL, &value), GW_OK);
    CHECK_INT(value.type, GW_VALUE_MISSING);
    gw_result_free(result);

    /* A failed call has nothing mapped. */
    result = call(client, "GET", "/status/404", &rc);
    CHECK_INT(gw_result_mapped_value(result, "", 0, NULL, &value), GW_OK);
    CHECK_INT(value.type, GW_VALUE_MISSING);
    gw_result_free(result);
    gw_client_free(client);
}
