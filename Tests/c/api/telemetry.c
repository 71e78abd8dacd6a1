/* Telemetry from C: a call retried twice gives one call span and three attempt spans whose ids
   the server saw in the attempts' traceparent headers, three http.client.request.duration
   measurements, and the OTLP metrics request with a histogram count of 3. */
#include "support.h"
#include "tests.h"

/* What an exporter was given: its texts one after another, NUL-separated by appending. */
typedef struct {
    char text[16384];
    int calls;
    int destroyed;
} exported;

static void take(const char *json, size_t length, void *user_data)
{
    exported *into = user_data;
    size_t used = strlen(into->text);
    CHECK_INT(strlen(json), length);
    if (used + length + 1 < sizeof into->text)
        memcpy(into->text + used, json, length + 1);
    into->calls++;
}

static void destroy_exported(void *user_data) { ((exported *)user_data)->destroyed++; }

/* The 16 hex digits of the `"spanId"` member after `from`, into `out`; the text after it. */
static const char *next_span_id(const char *from, char out[17])
{
    const char *at = strstr(from, "\"spanId\":\"");
    out[0] = '\0';
    if (at == NULL)
        return from + strlen(from);
    at += strlen("\"spanId\":\"");
    memcpy(out, at, 16);
    out[16] = '\0';
    return at + 16;
}

/* The sum of the "count" members (decimal strings) of the metric `name` in an OTLP request. */
static long histogram_count(const char *request, const char *name)
{
    char quoted[128];
    const char *at, *end;
    long total = 0;
    snprintf(quoted, sizeof quoted, "{\"name\":\"%s\"", name);
    at = strstr(request, quoted);
    if (at == NULL)
        return -1;
    end = strstr(at + 1, "{\"name\":");
    if (end == NULL)
        end = at + strlen(at);
    for (at = strstr(at, "\"count\":\""); at != NULL && at < end; at = strstr(at + 1, "\"count\":\""))
        total += strtol(at + strlen("\"count\":\""), NULL, 10);
    return total;
}

void test_telemetry_of_a_retried_call(void)
{
    gw_client *client;
    gw_result *result;
    exported *spans = calloc(1, sizeof *spans), *measurements = calloc(1, sizeof *measurements);
    uint64_t span_id = 0, measurement_id = 0;
    int32_t rc;
    int i;
    char path[128], *config, *request = (char *)"unset", *seen, ids[4][17];
    const char *key = unique_key("telemetry"), *at;
    step("spans, measurements and the OTLP metrics of a call retried twice");
    if (spans == NULL || measurements == NULL)
        abort();

    config = config_with_base("{\"baseURL\": \"%s\", " FAST_RETRY "}");
    client = new_client_from_config(config);
    free(config);
    /* Telemetry off: no metrics to read. */
    CHECK_INT(gw_client_telemetry_metrics_json(client, &request), GW_ERROR_INVALID_ARGUMENT);
    CHECK(request == NULL);
    CHECK_CONTAINS(gw_last_error_message(), "telemetry is off");
    CHECK_INT(gw_client_add_measurement_exporter(client, NULL, NULL, NULL, NULL), GW_ERROR_INVALID_ARGUMENT);
    CHECK_INT(gw_client_add_measurement_exporter(NULL, take, NULL, NULL, NULL), GW_ERROR_INVALID_ARGUMENT);

    CHECK_INT(gw_client_add_span_exporter(client, take, spans, destroy_exported, &span_id), GW_OK);
    CHECK_INT(gw_client_add_measurement_exporter(client, take, measurements, destroy_exported, &measurement_id), GW_OK);
    CHECK(measurement_id != 0);
    snprintf(path, sizeof path, "/sequence/%s/503,500,200", key);
    result = call(client, "GET", path, &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    gw_result_free(result);

    /* One batch at the call's end: three durations, 503, 500, 200, and two retries. */
    CHECK_INT(measurements->calls, 1);
    CHECK_INT(count_members(measurements->text, "name", "\"http.client.request.duration\""), 3);
    at = strstr(measurements->text, "\"name\":\"http.client.request.duration\"");
    for (i = 0; i < 3 && at != NULL; i++) {
        static const char *const statuses[] = {"503", "500", "200"};
        const char *end = strstr(at, "}}");
        char member[64];
        snprintf(member, sizeof member, "\"http.response.status_code\":%s", statuses[i]);
        CHECK(end != NULL && strstr(at, member) != NULL && strstr(at, member) < end);
        at = strstr(at + 1, "\"name\":\"http.client.request.duration\"");
    }
    CHECK_INT(count_members(measurements->text, "error.type", "\"503\""), 1);
    CHECK_INT(count_members(measurements->text, "error.type", "\"500\""), 1);
    CHECK_INT(count_members(measurements->text, "name", "\"gatewire.client.retries\""), 2);
    CHECK_INT(count_members(measurements->text, "value", "-1"), 3);  /* each attempt left the wire */

    /* The cumulative metrics, as the OTLP exporter sends them. */
    CHECK_INT(gw_client_telemetry_metrics_json(client, &request), GW_OK);
    CHECK_CONTAINS(request, "{\"resourceMetrics\":[{\"resource\":");
    CHECK_INT(histogram_count(request, "http.client.request.duration"), 3);
    CHECK_INT(histogram_count(request, "gatewire.client.queue.wait"), 3);
    gw_string_free(request);

    /* The call's span, then one client span per attempt under it, the retries counted from
       the second attempt (http.request.resend_count 1, 2). */
    CHECK_INT(spans->calls, 1);
    CHECK_INT(count_members(spans->text, "spanId", "\""), 4);
    CHECK_INT(count_members(spans->text, "kind", "1"), 1);
    CHECK_INT(count_members(spans->text, "kind", "3"), 3);
    at = spans->text;
    for (i = 0; i < 4; i++)
        at = next_span_id(at, ids[i]);
    {
        char parent[32];
        snprintf(parent, sizeof parent, "\"%s\"", ids[0]);
        CHECK_INT(count_members(spans->text, "parentSpanId", parent), 3);
    }
    for (i = 1; i < 4; i++) {
        /* Span i's text: from its id to the next span's. */
        const char *begin = strstr(spans->text, ids[i]), *stop = i < 3 ? strstr(spans->text, ids[i + 1]) : NULL;
        size_t length = begin == NULL ? 0 : stop != NULL ? (size_t)(stop - begin) : strlen(begin);
        char *span = malloc(length + 1);
        if (span == NULL)
            abort();
        memcpy(span, begin == NULL ? "" : begin, length);
        span[length] = '\0';
        if (i == 1)
            CHECK(strstr(span, "http.request.resend_count") == NULL);
        else
            CHECK_CONTAINS(span, i == 2 ? "\"http.request.resend_count\",\"value\":{\"intValue\":\"1\"}"
                                        : "\"http.request.resend_count\",\"value\":{\"intValue\":\"2\"}");
        CHECK_CONTAINS(span, i == 1 ? "\"intValue\":\"503\"" : i == 2 ? "\"intValue\":\"500\"" : "\"intValue\":\"200\"");
        free(span);
    }
    CHECK_INT(count_members(spans->text, "key", "\"http.request.resend_count\""), 2);

    /* The server saw each attempt's own span id under the call's trace, in order. */
    snprintf(path, sizeof path, "/sequence/%s/traces", key);
    result = call(client, "GET", path, &rc);
    seen = body_text(result);
    gw_result_free(result);
    at = strstr(spans->text, "\"traceId\":\"");
    for (i = 1; i < 4 && at != NULL; i++) {
        char needle[64];
        snprintf(needle, sizeof needle, "\"00-%.32s-%s-01\"", at + strlen("\"traceId\":\""), ids[i]);
        CHECK_CONTAINS(seen, needle);
    }
    CHECK(at != NULL);
    CHECK(strstr(seen, ids[1]) < strstr(seen, ids[2]) && strstr(seen, ids[2]) < strstr(seen, ids[3]));
    free(seen);
    CHECK_INT(measurements->calls, 2);  /* the traces call's batch */

    CHECK_INT(gw_client_remove_measurement_exporter(client, measurement_id), GW_OK);
    CHECK_INT(measurements->destroyed, 1);
    CHECK_INT(gw_client_remove_measurement_exporter(client, measurement_id), GW_ERROR_INVALID_ARGUMENT);
    gw_client_free(client);
    CHECK_INT(spans->destroyed, 1);  /* destroyed with the client */
    CHECK_INT(measurements->destroyed, 1);
    free(spans);
    free(measurements);
}
