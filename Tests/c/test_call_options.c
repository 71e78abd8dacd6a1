/*
 * gw_call_options version 7 against the scripted test server (run_with_server.py gives its
 * URL in GW_TEST_BASE_URL): the nested structs override the route's and client's policies
 * (retry counted by the server, redirects, timeouts, the response size limit, downloads),
 * each body kind reaches the wire, a body of one kind refuses the fields of another, and
 * out-of-range values are refused with the messages policy_json gives for the same values
 * (the text after the field's name equal). The trace parent reaches the wire under a span
 * of the call's, which a span exporter receives; a per-call rate limit refuses; policy_json's
 * text goes under the typed structs. Version 6, 5 and version 4 callers (gw_call_options_v4
 * with policy_json) still work beside them. Strict C99, no helper library.
 */
#define _POSIX_C_SOURCE 200809L

#include "gatewire.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;
static const char *base_url;
static char config[512];

static void check(int ok, int line, const char *what)
{
    if (!ok) {
        failures++;
        fprintf(stderr, "FAIL line %d: %s\n", line, what);
    }
}
#define CHECK(cond) check((cond) != 0, __LINE__, #cond)
#define CHECK_INT(actual, expected)                                                             \
    do {                                                                                        \
        long long a_ = (long long)(actual), e_ = (long long)(expected);                         \
        if (a_ != e_) {                                                                         \
            failures++;                                                                         \
            fprintf(stderr, "FAIL line %d: %s == %s (got %lld, expected %lld)\n", __LINE__,     \
                    #actual, #expected, a_, e_);                                                \
        }                                                                                       \
    } while (0)
#define CHECK_STR(actual, expected)                                                             \
    do {                                                                                        \
        const char *a_ = (actual);                                                              \
        if (a_ == NULL || strcmp(a_, (expected)) != 0) {                                        \
            failures++;                                                                         \
            fprintf(stderr, "FAIL line %d: %s == \"%s\" (got \"%s\")\n", __LINE__, #actual,     \
                    (expected), a_ ? a_ : "NULL");                                              \
        }                                                                                       \
    } while (0)
#define CHECK_CONTAINS(haystack, needle)                                                        \
    do {                                                                                        \
        const char *h_ = (haystack);                                                            \
        if (h_ == NULL || strstr(h_, (needle)) == NULL) {                                       \
            failures++;                                                                         \
            fprintf(stderr, "FAIL line %d: %s contains \"%s\" (got \"%.600s\")\n", __LINE__,    \
                    #haystack, (needle), h_ ? h_ : "NULL");                                     \
        }                                                                                       \
    } while (0)

/* How often `needle` occurs in `text`. */
static int occurrences(const char *text, const char *needle)
{
    int count = 0;
    const char *at = text;
    while (at != NULL && (at = strstr(at, needle)) != NULL) {
        count++;
        at += strlen(needle);
    }
    return count;
}

/* A key no earlier run of the server has counted. */
static const char *unique_key(const char *prefix)
{
    static char key[96];
    static int serial;
    snprintf(key, sizeof key, "%s-%ld-%d", prefix, (long)getpid(), ++serial);
    return key;
}

/* The result's body as text (the library's is pointer + length, not NUL-terminated). */
static const char *body_text(const gw_result *result)
{
    static char text[16384];
    size_t length = 0;
    const uint8_t *bytes = gw_result_body(result, &length);
    if (length > sizeof text - 1)
        length = sizeof text - 1;
    if (bytes != NULL)
        memcpy(text, bytes, length);
    text[length] = '\0';
    return text;
}

/* A blocking call of `options` (either layout); the status, and the result in *out. */
static int32_t call(gw_client *client, const gw_call_options *options, gw_result **out)
{
    *out = NULL;
    return gw_call(client, options, out);
}

/* The requests the server saw for a /sequence key. */
static int server_count(gw_client *client, const char *key)
{
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char path[160];
    const char *at;
    int count = -1;
    snprintf(path, sizeof path, "/sequence/%s/count", key);
    options.path = path;
    if (call(client, &options, &result) == GW_OK) {
        at = strstr(body_text(result), "\"count\"");
        if (at == NULL || sscanf(at, "\"count\": %d", &count) != 1)
            count = -1;
    }
    gw_result_free(result);
    return count;
}

/* The text after "field: " of a message: what two front-ends must say alike. */
static const char *after_field(const char *message)
{
    const char *colon = message ? strstr(message, ": ") : NULL;
    return colon ? colon + 2 : "";
}

/* The message gw_call gives for `options` (copied), which must be refused with `status`. */
static void refused(gw_client *client, const gw_call_options *options, int32_t status, char *message, size_t size)
{
    gw_result *result = NULL;
    CHECK_INT(call(client, options, &result), status);
    CHECK(result == NULL);
    gw_result_free(result);
    snprintf(message, size, "%s", gw_last_error_message());
}

/* `options` refused with `expected`, and policy_json `json` (version 4) with the same text
 * after the field's name. */
static void same_message(gw_client *client, const gw_call_options *options, const char *expected, const char *json)
{
    gw_call_options_v4 flat = GW_CALL_OPTIONS_V4_INIT;
    char typed[512], text[512];
    refused(client, options, GW_ERROR_INVALID_ARGUMENT, typed, sizeof typed);
    CHECK_STR(typed, expected);
    flat.path = "/echo";
    flat.policy_json = json;
    refused(client, (const gw_call_options *)&flat, GW_ERROR_INVALID_ARGUMENT, text, sizeof text);
    CHECK_CONTAINS(text, "policy_json.");
    CHECK_STR(after_field(typed), after_field(text));
}

/* retry: the count, delays and jitter over the client's policy, counted by the server; the
 * same call through policy_json (version 4) gives the same attempts. */
static void test_retry(gw_client *client)
{
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_call_options_v4 flat = GW_CALL_OPTIONS_V4_INIT;
    gw_result *result = NULL;
    char path[160];
    const char *key = unique_key("retry");
    int32_t codes[] = {502};

    /* The client retries nothing (maxRetries 0); two retries 0.05 s apart reach the 200. */
    snprintf(path, sizeof path, "/sequence/%s/503,503,200", key);
    options.path = path;
    options.retry.max_retries = 2;
    options.retry.initial_delay = 0.05;
    options.retry.multiplier = 1;
    options.retry.jitter = GW_JITTER_NONE;
    CHECK_INT(call(client, &options, &result), GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    CHECK_INT(gw_result_attempt_count(result), 3);
    CHECK_INT(occurrences(gw_result_attempts_json(result), "\"delay\":0.05"), 2);
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 3);

    /* The same through policy_json: the same attempts, the same delays. */
    key = unique_key("retry-json");
    snprintf(path, sizeof path, "/sequence/%s/503,503,200", key);
    flat.path = path;
    flat.policy_json = "{\"retry\": {\"maxRetries\": 2, \"initialDelay\": 0.05, \"multiplier\": 1, \"jitter\": \"none\"}}";
    CHECK_INT(call(client, (const gw_call_options *)&flat, &result), GW_OK);
    CHECK_INT(gw_result_attempt_count(result), 3);
    CHECK_INT(occurrences(gw_result_attempts_json(result), "\"delay\":0.05"), 2);
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 3);

    /* status_codes replaces the set: 503 is no longer retried, whatever the count. */
    key = unique_key("retry-codes");
    snprintf(path, sizeof path, "/sequence/%s/503,200", key);
    options.retry.status_codes = codes;
    options.retry.status_code_count = 1;
    CHECK_INT(call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_status(result), 503);
    CHECK_INT(gw_result_attempt_count(result), 1);
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 1);

    /* retry_budget and circuit_breaker: off, or on with every default, both accepted. */
    key = unique_key("retry-budget");
    snprintf(path, sizeof path, "/sequence/%s/200", key);
    options.retry.status_codes = NULL;
    options.retry.status_code_count = 0;
    options.retry_budget.mode = GW_POLICY_ON;
    options.circuit_breaker.mode = GW_POLICY_OFF;
    CHECK_INT(call(client, &options, &result), GW_OK);
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 1);
}

/* redirects: follow none, a lower max, and the policy kept. */
static void test_redirects(gw_client *client)
{
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    options.path = "/redirect/2";
    options.redirects.follow = GW_FOLLOW_NONE;
    CHECK_INT(call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_REDIRECT);
    CHECK_INT(gw_result_status(result), 302);
    CHECK_CONTAINS(gw_result_error_message(result), "following redirects is off");
    gw_result_free(result);

    options.redirects.follow = GW_FOLLOW_KEEP;
    options.redirects.max = 1;
    CHECK_INT(call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_REDIRECT);
    CHECK_CONTAINS(gw_result_error_message(result), "more than 1 redirects");
    gw_result_free(result);

    options.redirects.max = GW_KEEP;
    CHECK_INT(call(client, &options, &result), GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    gw_result_free(result);
}

/* timeouts: an attempt limit and a deadline below the server's delay. */
static void test_timeouts(gw_client *client)
{
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    options.path = "/delay/2000";
    options.timeouts.attempt = 0.2;
    CHECK_INT(call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_TIMEOUT);
    CHECK_INT(gw_result_attempt_count(result), 1);
    gw_result_free(result);

    options.timeouts.attempt = 0;
    options.timeouts.deadline = 0.2;
    CHECK_INT(call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_DEADLINE);
    gw_result_free(result);
}

/* max_response_bytes and download: the size limit, and a body written to a file. */
static void test_limits_and_download(gw_client *client)
{
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char file[96];
    struct stat info;
    options.path = "/bytes/1000";
    options.max_response_bytes = 100;
    CHECK_INT(call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_RESPONSE_TOO_LARGE);
    gw_result_free(result);

    snprintf(file, sizeof file, "/tmp/gw-call-options-%ld.bin", (long)getpid());
    options.max_response_bytes = 0;
    options.download.path = file;
    CHECK_INT(call(client, &options, &result), GW_OK);
    CHECK(stat(file, &info) == 0 && info.st_size == 1000);
    gw_result_free(result);
    unlink(file);
}

static int32_t take_chunk(const uint8_t *data, size_t length, void *user_data)
{
    (void)data;
    (void)length;
    (void)user_data;
    return GW_CHUNK_CONTINUE;
}

/* Each body kind on the wire (the echo shows it), and a body of one kind refusing another's
 * field: the one-body rule lives in gw_body.kind. */
static void test_bodies(gw_client *client)
{
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    static const uint8_t png[] = {0x89, 'P', 'N', 'G'};
    gw_part parts[2];
    char message[512];
    memset(parts, 0, sizeof parts);
    parts[0].kind = GW_PART_FIELD;
    parts[0].name = "title";
    parts[0].value = "Q3";
    parts[1].kind = GW_PART_BYTES;
    parts[1].name = "data";
    parts[1].bytes = "abc";
    parts[1].length = 3;
    parts[1].filename = "a.txt";
    options.method = "POST";
    options.path = "/echo";

    options.body.kind = GW_BODY_JSON;
    options.body.json = "{\"name\": \"Ada\"}";
    CHECK_INT(call(client, &options, &result), GW_OK);
    CHECK_CONTAINS(body_text(result), "\"body\": {\"name\": \"Ada\"}");
    CHECK_CONTAINS(body_text(result), "application/json");
    gw_result_free(result);

    /* Another kind's field is refused, naming it; nothing is sent. */
    options.body.form_json = "{\"a\": 1}";
    refused(client, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
    CHECK_STR(message, "body.form_json: not read for GW_BODY_JSON (a call has one body: set body.kind to the body it sends)");
    options.body.json = NULL;
    options.body.kind = GW_BODY_FORM;
    CHECK_INT(call(client, &options, &result), GW_OK);
    CHECK_CONTAINS(body_text(result), "\"body\": \"a=1\"");
    CHECK_CONTAINS(body_text(result), "application/x-www-form-urlencoded");
    gw_result_free(result);

    options.body.form_json = NULL;
    options.body.kind = GW_BODY_BYTES;
    options.body.bytes = png;
    options.body.length = sizeof png;
    options.body.content_type = "image/png";
    CHECK_INT(call(client, &options, &result), GW_OK);
    CHECK_CONTAINS(body_text(result), "image/png");
    CHECK_CONTAINS(body_text(result), "PNG");
    gw_result_free(result);

    /* An empty bytes body: NULL and 0 under GW_BODY_BYTES. */
    options.body.bytes = NULL;
    options.body.length = 0;
    CHECK_INT(call(client, &options, &result), GW_OK);
    CHECK_CONTAINS(body_text(result), "\"body\": null");
    CHECK_CONTAINS(body_text(result), "\"content-length\": \"0\"");
    gw_result_free(result);

    options.body.content_type = NULL;
    options.body.kind = GW_BODY_MULTIPART;
    options.body.form_json = "{\"lead\": \"first\"}";
    options.body.parts = parts;
    options.body.part_count = 2;
    CHECK_INT(call(client, &options, &result), GW_OK);
    CHECK_CONTAINS(body_text(result), "multipart/form-data; boundary=");
    CHECK_CONTAINS(body_text(result), "name=\\\"lead\\\"");
    CHECK_CONTAINS(body_text(result), "name=\\\"title\\\"");
    CHECK_CONTAINS(body_text(result), "filename=\\\"a.txt\\\"");
    gw_result_free(result);

    options.body.json = "{\"x\": 1}";
    refused(client, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
    CHECK_STR(message, "body.json and body.form_json: GW_BODY_MULTIPART sends the fields of at most one of them");
    options.body.json = NULL;
    options.body.kind = 9;
    refused(client, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
    CHECK_CONTAINS(message, "body.kind: unknown kind 9");
    options.body.kind = GW_BODY_JSON;
    options.body.form_json = NULL;
    options.body.parts = NULL;
    options.body.part_count = 0;
    refused(client, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
    CHECK_STR(message, "body.json: required for GW_BODY_JSON");

    /* download: a path and a consumer at once. */
    options.body.kind = GW_BODY_NONE;
    options.download.path = "/tmp/unused";
    options.download.on_chunk = take_chunk;
    refused(client, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
    CHECK_STR(message, "download.path and download.on_chunk: set at most one body sink");
}

/* Out-of-range values: the typed field's message is policy_json's after the field's name. */
static void test_ranges(gw_client *client)
{
    gw_call_options options;
    int32_t codes[] = {500, 600};
    const char *methods[] = {"GET", "FETCH"};
    char message[512];

    gw_call_options_init(&options, GW_CALL_OPTIONS_VERSION);
    options.path = "/echo";
    options.retry.max_retries = 150;
    same_message(client, &options, "retry.max_retries: 150 is out of range 0...100",
                 "{\"retry\": {\"maxRetries\": 150}}");
    options.retry.max_retries = -5;
    same_message(client, &options, "retry.max_retries: -5 is out of range 0...100", "{\"retry\": {\"maxRetries\": -5}}");
    options.retry.max_retries = GW_KEEP;
    options.retry.initial_delay = 90000;
    same_message(client, &options, "retry.initial_delay: 90000 is out of range 0...86400",
                 "{\"retry\": {\"initialDelay\": 90000}}");
    options.retry.initial_delay = GW_KEEP;
    options.retry.multiplier = 0.5;
    same_message(client, &options, "retry.multiplier: 0.5 is out of range 1...1000", "{\"retry\": {\"multiplier\": 0.5}}");
    options.retry.multiplier = GW_KEEP;
    options.retry.status_codes = codes;
    options.retry.status_code_count = 2;
    same_message(client, &options, "retry.status_codes[1]: 600 is out of range 100...599",
                 "{\"retry\": {\"statusCodes\": [500, 600]}}");
    options.retry.status_codes = NULL;
    options.retry.status_code_count = 0;
    options.retry.methods = methods;
    options.retry.method_count = 2;
    refused(client, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
    CHECK_CONTAINS(message, "retry.methods[1]: unknown method \"FETCH\"");
    options.retry.methods = NULL;
    options.retry.method_count = 0;
    options.retry.max_delay = NAN;
    refused(client, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
    CHECK_STR(message, "retry.max_delay: nan is not a finite number");
    options.retry.max_delay = GW_KEEP;
    options.retry.idempotency_key = 2;
    refused(client, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
    CHECK_STR(message, "retry.idempotency_key: 2 is not GW_KEEP (-1), 0 or 1");
    options.retry.idempotency_key = GW_KEEP;

    options.redirects.max = 51;
    same_message(client, &options, "redirects.max: 51 is out of range 0...50", "{\"redirects\": {\"max\": 51}}");
    options.redirects.max = GW_KEEP;
    options.redirects.follow = 7;
    refused(client, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
    CHECK_CONTAINS(message, "redirects.follow: unknown value 7");
    options.redirects.follow = GW_FOLLOW_KEEP;

    options.retry_budget.mode = GW_POLICY_ON;
    options.retry_budget.max_tokens = 0;
    same_message(client, &options, "retry_budget.max_tokens: 0 is out of range 1...1000",
                 "{\"retryBudget\": {\"maxTokens\": 0}}");
    options.retry_budget.mode = GW_POLICY_KEEP;
    options.circuit_breaker.mode = GW_POLICY_ON;
    options.circuit_breaker.failure_ratio = 2;
    same_message(client, &options, "circuit_breaker.failure_ratio: 2 is out of range 0...1",
                 "{\"circuitBreaker\": {\"failureRatio\": 2}}");
    options.circuit_breaker.mode = GW_POLICY_KEEP;
    options.max_response_bytes = -5;
    same_message(client, &options, "max_response_bytes: -5 is out of range 1...4611686018427387904",
                 "{\"maxResponseBytes\": -5}");
    options.max_response_bytes = 0;

    /* Timeouts have no policy_json key: their message is version 4's flat field's. */
    {
        gw_call_options_v4 flat = GW_CALL_OPTIONS_V4_INIT;
        char text[512];
        options.timeouts.deadline = 100000;
        refused(client, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
        CHECK_STR(message, "timeouts.deadline: 100000.0 is out of range (0 = the client's, or 0.001...86400 seconds)");
        flat.path = "/echo";
        flat.deadline = 100000;
        refused(client, (const gw_call_options *)&flat, GW_ERROR_INVALID_ARGUMENT, text, sizeof text);
        CHECK_STR(after_field(message), after_field(text));
        options.timeouts.deadline = 0;
    }

    /* A nested struct not filled by its initialiser is refused, not read as zeros. */
    options.retry.version = 0;
    refused(client, &options, GW_ERROR_VERSION, message, sizeof message);
    CHECK_STR(message, "retry.version: 0 is not 1 (fill it with GW_RETRY_OPTIONS_INIT or gw_retry_options_init())");
}

/* The traces the server recorded for a /sequence key: its JSON text (copied). */
static const char *server_traces(gw_client *client, const char *key)
{
    static char text[4096];
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char path[160];
    snprintf(path, sizeof path, "/sequence/%s/traces", key);
    options.path = path;
    text[0] = '\0';
    if (call(client, &options, &result) == GW_OK)
        snprintf(text, sizeof text, "%s", body_text(result));
    gw_result_free(result);
    return text;
}

/* What a span exporter was given: the last call's spans (JSON), and how many calls. */
static char exported[8192];
static int export_count;

static void take_spans(const char *spans_json, size_t length, void *user_data)
{
    (void)user_data;
    export_count++;
    snprintf(exported, sizeof exported, "%.*s", (int)length, spans_json);
}

/* traceparent and tracestate (version 6): with telemetry on, the attempt sends the caller's
 * trace id under a span id of its own, and the caller's tracestate; an invalid value is
 * refused naming the field, by the core's parser. */
static void test_trace_parent(void)
{
    static const char *parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    gw_client *traced = NULL;
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char text[512], path[160], message[512];
    const char *key = unique_key("trace"), *traces, *sent;
    char span_id[17] = "", spans[sizeof exported];
    uint64_t exporter = 0;
    /* "telemetry" turns telemetry on (no export: no endpoint). */
    snprintf(text, sizeof text, "{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 0}, \"telemetry\": {}}", base_url);
    CHECK_INT(gw_client_new_from_config(text, &traced), GW_OK);
    if (traced == NULL)
        return;
    CHECK_INT(gw_client_add_span_exporter(traced, take_spans, NULL, NULL, &exporter), GW_OK);
    CHECK(exporter != 0);
    snprintf(path, sizeof path, "/sequence/%s/200", key);
    options.path = path;
    options.traceparent = parent;
    options.tracestate = "congo=t61rcWkgMzE";
    CHECK_INT(call(traced, &options, &result), GW_OK);
    gw_result_free(result);
    /* The call's spans are exported before gw_call returns. */
    CHECK_INT(export_count, 1);
    snprintf(spans, sizeof spans, "%s", exported);
    traces = server_traces(traced, key);
    /* {"traceparent": ["00-<trace id>-<span id>-01"], "tracestate": ["congo=t61rcWkgMzE"]} */
    sent = strstr(traces, "\"00-");
    CHECK(sent != NULL);
    if (sent != NULL) {
        CHECK(strncmp(sent + 1, "00-4bf92f3577b34da6a3ce929d0e0e4736-", 36) == 0);
        CHECK(strncmp(sent + 37, "00f067aa0ba902b7", 16) != 0); /* a span id of its own */
        CHECK(strncmp(sent + 53, "-01\"", 4) == 0);              /* sampled, as the parent */
        memcpy(span_id, sent + 37, 16);
    }
    /* The exporter had the call's span (the parent's child) and the attempt's, whose id the
     * server saw, in OTLP JSON. */
    CHECK_INT(occurrences(spans, "\"traceId\""), 2);
    CHECK_INT(occurrences(spans, "4bf92f3577b34da6a3ce929d0e0e4736"), 2);
    CHECK_INT(occurrences(spans, "00f067aa0ba902b7"), 1);
    CHECK(span_id[0] != '\0' && strstr(spans, span_id) != NULL);
    CHECK_INT(gw_client_remove_span_exporter(traced, exporter), GW_OK);
    CHECK_INT(gw_client_remove_span_exporter(traced, exporter), GW_ERROR_INVALID_ARGUMENT);
    CHECK_INT(gw_client_add_span_exporter(traced, NULL, NULL, NULL, NULL), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(traces, "\"tracestate\": [\"congo=t61rcWkgMzE\"]");

    options.traceparent = "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01";
    refused(traced, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
    CHECK_CONTAINS(message, "traceparent: \"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01\" is not a W3C traceparent");
    options.traceparent = "00-00000000000000000000000000000000-00f067aa0ba902b7-01";
    refused(traced, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
    CHECK_CONTAINS(message, "traceparent: ");
    options.traceparent = NULL;
    refused(traced, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
    CHECK_STR(message, "tracestate: set without traceparent (it travels with its parent)");
    options.traceparent = parent;
    options.tracestate = "a=1\r\nx-injected: 1";
    refused(traced, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
    CHECK_STR(message, "tracestate: byte 0xd is not printable ASCII");
    gw_client_free(traced);
}

/* rate_limit (version 6): one request a minute, no waiting: the second call is refused
 * before anything is sent, with the time until a slot frees; its fields are read by the
 * config's reader (policy_json's message for the same value). */
static void test_rate_limit(gw_client *client)
{
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char path[160];
    const char *key = unique_key("ratelimit");
    snprintf(path, sizeof path, "/sequence/%s/200", key);
    options.path = path;
    options.rate_limit.mode = GW_POLICY_ON;
    options.rate_limit.requests = 1;
    options.rate_limit.per = 60;
    options.rate_limit.wait = 0;
    options.rate_limit.scope = GW_RATE_LIMIT_SCOPE_ROUTE;
    CHECK_INT(call(client, &options, &result), GW_OK);
    gw_result_free(result);
    CHECK_INT(call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_RATE_LIMITED);
    CHECK(gw_result_retry_after(result) > 0);
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 1);

    options.rate_limit.requests = 0;
    same_message(client, &options, "rate_limit.requests: 0 is out of range 1...1000000",
                 "{\"rateLimit\": {\"requests\": 0}}");
    options.rate_limit.requests = 1;
    options.rate_limit.scope = 9;
    {
        char message[512];
        refused(client, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
        CHECK_CONTAINS(message, "rate_limit.scope: unknown value 9");
    }
}

/* A version 5 caller's struct ends before rate_limit, a version 6 one before policy_json:
 * what lies after them is never read (here: bytes that would be an invalid pointer). */
static void test_versions_5_and_6(gw_client *client)
{
    gw_call_options options;
    gw_result *result = NULL;
    memset(&options, 0xff, sizeof options);
    CHECK_INT(gw_call_options_init(&options, GW_CALL_OPTIONS_VERSION_5), GW_OK);
    CHECK_INT(options.version, 5);
    CHECK_INT(options.download.version, GW_DOWNLOAD_OPTIONS_VERSION);
    CHECK_INT(options.rate_limit.version, 0xffffffffu); /* not written */
    options.path = "/echo";
    CHECK_INT(call(client, &options, &result), GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    gw_result_free(result);

    memset(&options, 0xff, sizeof options);
    CHECK_INT(gw_call_options_init(&options, GW_CALL_OPTIONS_VERSION_6), GW_OK);
    CHECK_INT(options.version, 6);
    CHECK_INT(options.rate_limit.version, GW_RATE_LIMIT_OPTIONS_VERSION);
    CHECK(options.tracestate == NULL);
    CHECK(options.policy_json != NULL); /* not written */
    options.path = "/echo";
    CHECK_INT(call(client, &options, &result), GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    gw_result_free(result);
}

/* policy_json (version 7): the config's keys as text, read first; the typed structs go over
 * it field by field, and its messages name it. */
static void test_policy_json(gw_client *client)
{
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char path[160], message[512];
    const char *key = unique_key("v7-policy");
    snprintf(path, sizeof path, "/sequence/%s/503,500,200", key);
    options.path = path;
    /* The text's retry (no retries, fast, no jitter), its count replaced by the struct's. */
    options.policy_json = "{\"retry\": {\"maxRetries\": 0, \"initialDelay\": 0, \"jitter\": \"none\"}}";
    options.retry.max_retries = 2;
    options.traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    CHECK_INT(call(client, &options, &result), GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    CHECK_INT(gw_result_attempt_count(result), 3);
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 3);
    /* The text alone: its count decides. */
    key = unique_key("v7-policy-alone");
    snprintf(path, sizeof path, "/sequence/%s/503,200", key);
    options.retry.max_retries = GW_KEEP;
    options.policy_json = "{\"retry\": {\"maxRetries\": 0}}";
    CHECK_INT(call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_status(result), 503);
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 1);
    options.policy_json = "{\"retry\": {\"maxRetries\": 150}}";
    refused(client, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
    CHECK_CONTAINS(message, "policy_json.retry.maxRetries: 150 is out of range 0...100");
    options.policy_json = "{\"retry\": ";
    refused(client, &options, GW_ERROR_INVALID_ARGUMENT, message, sizeof message);
    CHECK_CONTAINS(message, "policy_json");
}

/* The initialisers agree with the macros, and a version 4 caller still works. */
static void test_initialisers_and_version_4(gw_client *client)
{
    gw_call_options options;
    gw_retry_options retry;
    gw_redirect_options redirects;
    gw_call_options_v4 flat;
    gw_result *result = NULL;
    char path[160];
    const char *key = unique_key("v4");
    CHECK_INT(gw_call_options_init(&options, GW_CALL_OPTIONS_VERSION), GW_OK);
    CHECK_INT(options.version, 7);
    CHECK_INT(options.retry.version, GW_RETRY_OPTIONS_VERSION);
    CHECK_INT(options.rate_limit.version, GW_RATE_LIMIT_OPTIONS_VERSION);
    CHECK_INT(options.rate_limit.mode, GW_POLICY_KEEP);
    CHECK(options.traceparent == NULL && options.tracestate == NULL && options.policy_json == NULL);
    CHECK_INT(options.retry.max_retries, GW_KEEP);
    CHECK(options.retry.initial_delay == GW_KEEP);
    CHECK_INT(options.body.kind, GW_BODY_NONE);
    CHECK_INT(options.timeouts.version, GW_TIMEOUT_OPTIONS_VERSION);
    CHECK_INT(options.download.version, GW_DOWNLOAD_OPTIONS_VERSION);
    CHECK_INT(options.circuit_breaker.version, GW_CIRCUIT_BREAKER_OPTIONS_VERSION);
    CHECK_INT(gw_retry_options_init(&retry, GW_RETRY_OPTIONS_VERSION), GW_OK);
    CHECK_INT(retry.jitter, GW_JITTER_KEEP);
    CHECK_INT(retry.idempotency_key, GW_KEEP);
    CHECK_INT(gw_redirect_options_init(&redirects, 2), GW_ERROR_VERSION);
    CHECK_INT(gw_redirect_options_init(&redirects, GW_REDIRECT_OPTIONS_VERSION), GW_OK);
    CHECK_INT(redirects.follow, GW_FOLLOW_KEEP);
    CHECK_INT(gw_body_init(NULL, GW_BODY_VERSION), GW_ERROR_INVALID_ARGUMENT);
    CHECK_STR(gw_last_error_message(), "gw_body_init: body is NULL");

    CHECK_INT(gw_call_options_init((gw_call_options *)&flat, GW_CALL_OPTIONS_VERSION_4), GW_OK);
    CHECK_INT(flat.version, 4);
    CHECK_INT(flat.max_retries, -1);
    snprintf(path, sizeof path, "/sequence/%s/503,200", key);
    flat.path = path;
    flat.policy_json = "{\"retry\": {\"initialDelay\": 0, \"jitter\": \"none\"}}";
    flat.max_retries = 1;
    CHECK_INT(call(client, (const gw_call_options *)&flat, &result), GW_OK);
    CHECK_INT(gw_result_attempt_count(result), 2);
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 2);
}

int main(void)
{
    gw_client *client = NULL;
    base_url = getenv("GW_TEST_BASE_URL");
    if (base_url == NULL) {
        fprintf(stderr, "GW_TEST_BASE_URL is not set (run under Tests/support/run_with_server.py)\n");
        return 2;
    }
    /* The client retries nothing and follows redirects: every retry below is the call's. */
    snprintf(config, sizeof config, "{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 0}}", base_url);
    if (gw_client_new_from_config(config, &client) != GW_OK) {
        fprintf(stderr, "client: %s\n", gw_last_error_message());
        return 1;
    }
    test_retry(client);
    test_redirects(client);
    test_timeouts(client);
    test_limits_and_download(client);
    test_bodies(client);
    test_ranges(client);
    test_initialisers_and_version_4(client);
    test_trace_parent();
    test_rate_limit(client);
    test_versions_5_and_6(client);
    test_policy_json(client);
    gw_client_free(client);
    if (failures > 0) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("call options: all checks passed\n");
    return 0;
}
