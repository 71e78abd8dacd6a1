/*
 * The shared mapping cases (Tests/cases/mapping_cases.json) through the C ABI: the same
 * table the Swift suite (MappingCaseTests.swift) and pytest (test_mapping_cases.py) run, read
 * here with Jansson, against the test server at $GW_TEST_BASE_URL (run_with_server.py).
 *
 *     test_mapping_cases CASE_FILE
 *
 * Each case builds a client from its config (plus baseURL), makes its call with gw_call (or
 * walks its pages with gw_paginator_*), and compares with exact JSON equality (json_equal):
 * gw_result_mapped_json, gw_result_mapped_at/first/count, gw_result_metadata_json,
 * gw_result_error_kind_name, gw_result_error_objects_json, the body. Prints one line per
 * failed case and "<passed> passed, <failed> failed"; exits non-zero on any failure. A key
 * the runner does not read (case_keys.h) fails the run before any call, naming case and key.
 * alarm() bounds the whole run.
 */
#define _POSIX_C_SOURCE 200809L

/* Written against the 0.x flat gw_call_options (version 4, policy_json): kept so. */
#define GW_USE_CALL_OPTIONS_V4
#include "gatewire.h"
#include "case_keys.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int case_failures;
static const char *case_name = "";

static void fail(const char *format, const char *a, const char *b)
{
    case_failures++;
    fprintf(stderr, "case \"%s\": ", case_name);
    fprintf(stderr, format, a ? a : "NULL", b ? b : "NULL");
    fputc('\n', stderr);
}

/* Exact JSON equality of library text (NULL = nothing) and an expected value (null = nothing). */
static int json_text_equals(const char *text, json_t *expected)
{
    json_t *value;
    int equal;
    if (text == NULL) return expected == NULL || json_is_null(expected);
    value = json_loads(text, JSON_DECODE_ANY, NULL);
    if (value == NULL) return 0;
    equal = expected != NULL && json_equal(value, expected);
    json_decref(value);
    return equal;
}

static char *dump(json_t *value)
{
    return value ? json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
}

static void check_json(const char *what, const char *text, json_t *expected)
{
    if (!json_text_equals(text, expected)) {
        char *want = dump(expected);
        char label[256];
        snprintf(label, sizeof label, "%s %%s != %%s", what);
        fail(label, text, want ? want : "null");
        free(want);
    }
}

static void check_success(gw_result *result, json_t *expect)
{
    json_t *value;
    const char *key;
    json_t *status = json_object_get(expect, "status");
    if (status && gw_result_status(result) != json_integer_value(status)) fail("status differs%s%s", "", "");
    if ((value = json_object_get(expect, "mapped")) != NULL) check_json("mapped", gw_result_mapped_json(result), value);
    json_object_foreach(json_object_get(expect, "at"), key, value) {
        json_t *count = json_object_get(value, "count");
        json_t *first = json_object_get(value, "first");
        if (count && gw_result_mapped_count(result, key) != json_integer_value(count)) fail("count at \"%s\" differs%s", key, "");
        if (first) check_json("first", gw_result_mapped_first(result, key), first);
        if (first && !json_is_null(first)) {
            /* gw_result_mapped_at gives the whole value; its first element is the first object. */
            json_t *at = json_loads(gw_result_mapped_at(result, key) ? gw_result_mapped_at(result, key) : "null",
                                    JSON_DECODE_ANY, NULL);
            json_t *head = json_is_array(at) ? json_array_get(at, 0) : at;
            if (!head || !json_equal(head, first)) fail("mapped_at \"%s\" does not start with first%s", key, "");
            json_decref(at);
        }
    }
    if (json_object_get(expect, "metadataSubset")) {
        const char *text = gw_result_metadata_json(result);
        json_t *metadata = text ? json_loads(text, 0, NULL) : NULL;
        json_object_foreach(json_object_get(expect, "metadataSubset"), key, value) {
            json_t *got = json_object_get(metadata, key);
            if (!got || !json_equal(got, value)) fail("metadata.%s differs (%s)", key, text);
        }
        json_decref(metadata);
    }
}

static void check_failure(gw_result *result, json_t *expect)
{
    json_t *value;
    const char *message = gw_result_error_message(result);
    json_t *status = json_object_get(expect, "status");
    if (status && gw_result_status(result) != json_integer_value(status)) fail("status differs (message %s)%s", message, "");
    if ((value = json_object_get(expect, "kind")) && strcmp(gw_result_error_kind_name(result), json_string_value(value)) != 0)
        fail("kind %s != %s", gw_result_error_kind_name(result), json_string_value(value));
    if ((value = json_object_get(expect, "message")) && (!message || !strstr(message, json_string_value(value))))
        fail("message \"%s\" lacks \"%s\"", message, json_string_value(value));
    if ((value = json_object_get(expect, "keyPath"))) {
        size_t n = strlen(json_string_value(value));
        if (!message || strncmp(message, json_string_value(value), n) != 0 || strncmp(message + n, ": ", 2) != 0)
            fail("message \"%s\" does not name key path %s", message, json_string_value(value));
    }
    if ((value = json_object_get(expect, "errorObjects")) != NULL)
        check_json("errorObjects", gw_result_error_objects_json(result), value);
    if ((value = json_object_get(expect, "bodyPrefix"))) {
        size_t length = 0;
        const uint8_t *body = gw_result_body(result, &length);
        size_t n = strlen(json_string_value(value));
        if (!body || length < n || memcmp(body, json_string_value(value), n) != 0) fail("body lacks the prefix %s%s", json_string_value(value), "");
    }
}

static void run_case(json_t *test, const char *base_url)
{
    json_t *config = json_deep_copy(json_object_get(test, "config"));
    json_t *request = json_object_get(test, "request");
    json_t *expect = json_object_get(test, "expect");
    gw_client *client = NULL;
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    char *config_text, *params = NULL, *body = NULL;
    json_object_set_new(config, "baseURL", json_string(base_url));
    config_text = json_dumps(config, JSON_COMPACT);
    if (gw_client_new_from_config(config_text, &client) != GW_OK) {
        fail("config rejected: %s%s", gw_last_error_message(), "");
        goto done;
    }
    options.route = json_string_value(json_object_get(request, "route"));
    options.method = json_string_value(json_object_get(request, "method"));
    options.path = json_string_value(json_object_get(request, "path"));
    options.object_type = json_string_value(json_object_get(request, "objectType"));
    if (json_object_get(request, "params")) options.params_json = params = dump(json_object_get(request, "params"));
    if (json_object_get(request, "body")) options.body_json = body = dump(json_object_get(request, "body"));

    if (json_is_true(json_object_get(request, "allPages"))) {
        gw_paginator *paginator = NULL;
        json_t *pages = json_object_get(expect, "pages");
        json_t *page_error = json_object_get(expect, "pageError");
        size_t count = 0;
        int32_t rc;
        gw_result *result = NULL;
        if (gw_paginator_new(client, &options, &paginator) != GW_OK) {
            fail("gw_paginator_new: %s%s", gw_last_error_message(), "");
            goto done;
        }
        while ((rc = gw_paginator_next(paginator, &result)) == GW_OK) {
            if (count < json_array_size(pages)) check_json("page", gw_result_mapped_json(result), json_array_get(pages, count));
            count++;
            gw_result_free(result);
        }
        if (count != json_array_size(pages)) fail("page count differs%s%s", "", "");
        if (page_error) {
            if (rc != GW_ERROR_CALL_FAILED) fail("expected a failed page%s%s", "", "");
            else check_failure(result, page_error);
            /* After a failed page the walk has ended. */
            gw_result_free(result);
            result = NULL;
            if (gw_paginator_next(paginator, &result) != GW_DONE || result != NULL) fail("the walk did not end%s%s", "", "");
        } else if (rc != GW_DONE) {
            fail("walk ended with status != GW_DONE: %s%s", gw_last_error_message(), "");
            gw_result_free(result);
        }
        if (gw_paginator_page_count(paginator) != (int32_t)(count + (page_error ? 1 : 0))) fail("page_count differs%s%s", "", "");
        gw_paginator_free(paginator);
    } else {
        gw_result *result = NULL;
        int32_t rc = gw_call(client, &options, &result);
        int want_ok = !json_is_false(json_object_get(expect, "ok"));
        if (result == NULL) {
            fail("no result: %s%s", gw_last_error_message(), "");
        } else if (want_ok) {
            if (rc != GW_OK) fail("failed: %s%s", gw_result_error_message(result), "");
            else check_success(result, expect);
        } else {
            if (rc != GW_ERROR_CALL_FAILED || gw_result_ok(result)) fail("succeeded, expected a failure: %s%s", gw_result_mapped_json(result), "");
            else check_failure(result, expect);
        }
        gw_result_free(result);
    }
done:
    gw_client_free(client);
    free(config_text);
    free(params);
    free(body);
    json_decref(config);
}

/* The keys this runner reads, per object. */
static const char *const case_keys[] = {"name", "decision", "config", "request", "expect", NULL};
static const char *const request_keys[] = {"route", "method", "path", "params", "body", "objectType", "allPages", NULL};
static const char *const expect_keys[] = {"ok", "status", "mapped", "kind", "message", "keyPath", "errorObjects",
                                          "bodyPrefix", "at", "metadataSubset", "pages", "pageError", NULL};
static const char *const at_keys[] = {"count", "first", NULL};
static const char *const page_error_keys[] = {"kind", "status", NULL};

/* Reports the keys of `test` this runner does not read (the case, its request, its expect,
 * each expect.at entry, expect.pageError); returns how many. */
static int unknown_keys(json_t *test)
{
    const char *name = json_string_value(json_object_get(test, "name"));
    json_t *expect = json_object_get(test, "expect");
    json_t *value;
    const char *key;
    int unknown;
    name = name ? name : "?";
    unknown = report_unknown_keys(test, case_keys, name, "");
    unknown += report_unknown_keys(json_object_get(test, "request"), request_keys, name, "request.");
    unknown += report_unknown_keys(expect, expect_keys, name, "expect.");
    json_object_foreach(json_object_get(expect, "at"), key, value) {
        char prefix[256];
        snprintf(prefix, sizeof prefix, "expect.at.%s.", key);
        unknown += report_unknown_keys(value, at_keys, name, prefix);
    }
    unknown += report_unknown_keys(json_object_get(expect, "pageError"), page_error_keys, name, "expect.pageError.");
    return unknown;
}

int main(int argc, char **argv)
{
    json_error_t error;
    json_t *document, *cases, *test;
    const char *base_url = getenv("GW_TEST_BASE_URL");
    size_t index;
    int passed = 0, failed = 0;
    if (argc != 2 || base_url == NULL) {
        fprintf(stderr, "usage: GW_TEST_BASE_URL=... %s CASE_FILE\n", argv[0]);
        return 2;
    }
    alarm(240); /* every call is bounded by the client's timeouts; this bounds the run */
    document = json_load_file(argv[1], 0, &error);
    if (document == NULL) {
        fprintf(stderr, "%s:%d:%d: %s\n", argv[1], error.line, error.column, error.text);
        return 2;
    }
    cases = json_object_get(document, "cases");
    {
        int unknown = 0;
        json_array_foreach(cases, index, test) unknown += unknown_keys(test);
        if (unknown > 0) {
            fprintf(stderr, "%s: %d unknown keys; no case was run\n", argv[1], unknown);
            json_decref(document);
            return 1;
        }
    }
    json_array_foreach(cases, index, test) {
        case_name = json_string_value(json_object_get(test, "name"));
        case_failures = 0;
        run_case(test, base_url);
        if (case_failures == 0) passed++; else failed++;
    }
    printf("%d passed, %d failed (of %zu cases)\n", passed, failed, json_array_size(cases));
    json_decref(document);
    return failed == 0 && passed >= 50 ? 0 : 1;
}
