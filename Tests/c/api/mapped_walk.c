/* The walk of the mapped objects: gw_result_mapped_walk. */
#include "support.h"
#include "tests.h"

/* What a walk saw. */
typedef struct {
    int calls, opened, ended, depth, max_depth;
    int numbers[8], number_count;
    char first_title[64];
    int root_is_object, root_count, second_has_empty_key, second_is_array, second_count;
    int stop_after; /* 0: never stop */
} walk_log;

static int32_t record(void *user_data, const char *key, size_t key_length, const gw_value *value)
{
    walk_log *log = user_data;
    log->calls++;
    if (log->calls == 1) {
        log->root_is_object = key == NULL && value->type == GW_VALUE_OBJECT;
        log->root_count = (int)value->count;
    } else if (log->calls == 2) {
        log->second_has_empty_key = key != NULL && key_length == 0;
        log->second_is_array = value->type == GW_VALUE_ARRAY;
        log->second_count = (int)value->count;
    }
    if (value->type == GW_VALUE_OBJECT || value->type == GW_VALUE_ARRAY) {
        log->opened++;
        if (++log->depth > log->max_depth)
            log->max_depth = log->depth;
    } else if (value->type == GW_VALUE_END) {
        log->ended++;
        log->depth--;
        CHECK(key == NULL && key_length == 0);
    } else if (key != NULL && key_length == 6 && memcmp(key, "number", 6) == 0 && log->depth == 3) {
        CHECK_INT(value->type, GW_VALUE_INTEGER);
        if (log->number_count < 8)
            log->numbers[log->number_count++] = (int)value->integer;
    } else if (key != NULL && key_length == 5 && memcmp(key, "title", 5) == 0 && log->first_title[0] == '\0') {
        CHECK_INT(value->type, GW_VALUE_STRING);
        snprintf(log->first_title, sizeof log->first_title, "%.*s", (int)value->length, value->string);
    }
    return log->stop_after != 0 && log->calls == log->stop_after;
}

static int32_t never_called(void *user_data, const char *key, size_t key_length, const gw_value *value)
{
    (void)key;
    (void)key_length;
    (void)value;
    (*(int *)user_data)++;
    return 0;
}

void test_mapped_walk(void)
{
    char *config = config_with_base(
        "{\"baseURL\": \"%s\","
        " \"mappings\": {"
        "   \"Issue\": {\"attributes\": {\"number\": {\"to\": \"number\", \"type\": \"integer\"}, \"title\": \"title\","
        "     \"labels\": \"labels\"},"
        "     \"relationships\": {\"user\": {\"to\": \"author\", \"mapping\": \"User\"}}},"
        "   \"User\": {\"attributes\": {\"login\": \"login\"}}},"
        " \"responseDescriptors\": [{\"mapping\": \"Issue\", \"method\": \"GET\", \"pathPattern\": \"/fixture/:name\"}]}");
    gw_client *client = new_client_from_config(config);
    free(config);
    if (client == NULL)
        return;
    int32_t rc;

    /* Tests/fixtures/real/github-issues-list-page1.json: three GitHub issues (13, 12, 11)
     * mapped at the root, so the tree is {"": [issue, issue, issue]}, each issue an object
     * with an author object and a labels array. */
    gw_result *result = call(client, "GET", "/fixture/github-issues-list-page1.json", &rc);
    CHECK_INT(rc, GW_OK);
    walk_log log;
    memset(&log, 0, sizeof log);
    CHECK_INT(gw_result_mapped_walk(result, record, &log), GW_OK);
    CHECK(log.root_is_object);
    CHECK_INT(log.root_count, 1);
    CHECK(log.second_has_empty_key && log.second_is_array);
    CHECK_INT(log.second_count, 3);
    CHECK_INT(log.number_count, 3);
    CHECK_INT(log.numbers[0], 13);
    CHECK_INT(log.numbers[1], 12);
    CHECK_INT(log.numbers[2], 11);
    /* The same string gw_result_mapped_value reads. */
    gw_value title;
    CHECK_INT(gw_result_mapped_value(result, "", 0, "title", &title), GW_OK);
    CHECK(title.type == GW_VALUE_STRING && strcmp(log.first_title, title.string) == 0);
    /* Every object and array ends; root, array, issue, author or labels: four levels. */
    CHECK_INT(log.ended, log.opened);
    CHECK_INT(log.depth, 0);
    CHECK_INT(log.max_depth, 4);
    /* root + "" array + 3 x (issue, number, title, labels, author, login) + the ends. */
    CHECK_INT(log.opened, 2 + 3 * 3);
    CHECK_INT(log.calls, 2 + 3 * 6 + log.ended);

    /* A visitor that answers non-zero stops the walk at once. */
    memset(&log, 0, sizeof log);
    log.stop_after = 3;
    CHECK_INT(gw_result_mapped_walk(result, record, &log), GW_DONE);
    CHECK_INT(log.calls, 3);

    /* Bad arguments: an error code and a message, never a crash. */
    CHECK_INT(gw_result_mapped_walk(result, NULL, NULL), GW_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(gw_last_error_message(), "gw_result_mapped_walk") != NULL);
    int calls = 0;
    CHECK_INT(gw_result_mapped_walk(NULL, never_called, &calls), GW_ERROR_INVALID_ARGUMENT);
    gw_result_free(result);

    /* A failed call has nothing mapped: the visitor is never called. */
    result = call(client, "GET", "/status/404", &rc);
    CHECK_INT(gw_result_mapped_walk(result, never_called, &calls), GW_OK);
    CHECK_INT(calls, 0);
    gw_result_free(result);
    gw_client_free(client);
}
