/*
 * The shared resilience cases (Tests/cases/resilience_cases.json) through the C ABI.
 * The Swift (Tests/GatewireTests/ResilienceCaseTests.swift) and Python
 * (Tests/python/test_resilience_cases.py) runners read the same file, so the three languages
 * are held to the same attempt counts, kinds, statuses, delays and failure-observer calls.
 * The file's "schema" member documents the fields; the file is read with Jansson.
 *
 *     run_with_server.py test_resilience_cases [cases.json]
 *
 * The test server's URL comes from $GW_TEST_BASE_URL (set by Tests/support/run_with_server.py).
 * Per case a fresh client from {"baseURL": <server or a refused port>, ...config} with one
 * failure observer counting its calls. Every failed check prints case, call and what differed;
 * each case prints "ok" or "FAILED"; the last line is "<N> passed, <M> failed" (cases) and
 * the exit status is non-zero on any failure. A key the runner does not read (case_keys.h)
 * fails the run before any call, naming case and key. A watchdog ends a run that hangs.
 */
#define _POSIX_C_SOURCE 200809L

/* Written against the 0.x flat gw_call_options (version 4, policy_json): kept so. */
#define GW_USE_CALL_OPTIONS_V4
#include "gatewire.h"
#include "case_keys.h"

#include <jansson.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef GW_CASES_FILE
#define GW_CASES_FILE "Tests/cases/resilience_cases.json"
#endif

#define EPSILON 1e-6   /* for delays read back from the attempt history */
#define GAP_SLACK 0.002 /* seconds: rounding of start/duration offsets in the history */
#define SETTLE_MS 300   /* waited after a cancelled call's completion */

static const char *base_url;
static const char *base_path = ""; /* the case's "base_path" */
static const char *case_name = "start-up";
static int call_index;
static int case_failures;
static int checks_passed, checks_failed;

static void fail_check(const char *format, ...) __attribute__((format(printf, 1, 2)));

static void fail_check(const char *format, ...)
{
    va_list args;
    checks_failed++;
    case_failures++;
    printf("   FAIL %s call %d: ", case_name, call_index);
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    printf("\n");
}

#define EXPECT(cond, ...)                                                                        \
    do {                                                                                         \
        if (cond)                                                                                \
            checks_passed++;                                                                     \
        else                                                                                     \
            fail_check(__VA_ARGS__);                                                             \
    } while (0)

/* ---- Small helpers ---------------------------------------------------------------------- */

static void sleep_seconds(double seconds)
{
    struct timespec ts;
    if (seconds <= 0)
        return;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A loopback port nothing listens on: bound to get a free number, then closed. */
static int closed_port(void)
{
    struct sockaddr_in address;
    socklen_t length = sizeof address;
    int port = 0;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return 0;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&address, sizeof address) == 0 &&
        getsockname(fd, (struct sockaddr *)&address, &length) == 0)
        port = ntohs(address.sin_port);
    close(fd);
    return port;
}

/* `text` with every "{key}" replaced by `key`; the caller frees it. */
static char *substitute(const char *text, const char *key)
{
    size_t count = 0, size;
    const char *at = text;
    char *out, *write;
    while ((at = strstr(at, "{key}")) != NULL) {
        count++;
        at += 5;
    }
    size = strlen(text) + count * strlen(key) + 1;
    out = malloc(size);
    if (out == NULL)
        abort();
    write = out;
    at = text;
    for (;;) {
        const char *next = strstr(at, "{key}");
        size_t n = next ? (size_t)(next - at) : strlen(at);
        memcpy(write, at, n);
        write += n;
        if (next == NULL)
            break;
        memcpy(write, key, strlen(key));
        write += strlen(key);
        at = next + 5;
    }
    *write = '\0';
    return out;
}

/* A member that must be a number (integer or real), or `fallback`. */
static double number_or(const json_t *object, const char *key, double fallback)
{
    const json_t *value = json_object_get(object, key);
    return json_is_number(value) ? json_number_value(value) : fallback;
}

/* ---- The failure observer: counts its calls, remembers the kinds ------------------------ */

typedef struct observer_state {
    pthread_mutex_t mutex;
    int calls;
    int kinds[64];
} observer_state;

static void count_failure(const gw_result *failure, void *user_data)
{
    observer_state *state = user_data;
    pthread_mutex_lock(&state->mutex);
    if (state->calls < 64)
        state->kinds[state->calls] = gw_result_error_kind(failure);
    state->calls++;
    pthread_mutex_unlock(&state->mutex);
}

static int observer_calls(observer_state *state)
{
    int calls;
    pthread_mutex_lock(&state->mutex);
    calls = state->calls;
    pthread_mutex_unlock(&state->mutex);
    return calls;
}

/* ---- Retry tests (call.retry_test) ---------------------------------------------------------- */

/* "retry_after_or_1", the README's test: a 429 retries after its Retry-After seconds (1 when
 * absent); other attempts use the policy. */
static int32_t retry_after_or_1(const gw_attempt *attempt, double *delay, void *user_data)
{
    const char *header = gw_attempt_header(attempt, "Retry-After");
    (void)user_data;
    if (gw_attempt_status(attempt) != 429)
        return GW_RETRY_USE_POLICY;
    *delay = header ? strtod(header, NULL) : 1;
    return GW_RETRY_RETRY;
}

/* ---- Asynchronous calls (cancel_after) ----------------------------------------------------- */

typedef struct completion_state {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int completions;
    gw_result *first;
} completion_state;

static void on_completion(gw_result *result, void *user_data)
{
    completion_state *state = user_data;
    pthread_mutex_lock(&state->mutex);
    state->completions++;
    if (state->first == NULL)
        state->first = result;
    else
        gw_result_free(result);
    pthread_cond_broadcast(&state->cond);
    pthread_mutex_unlock(&state->mutex);
}

/* Waits up to `seconds` for the first completion; returns the number of completions. */
static int wait_completion(completion_state *state, double seconds)
{
    struct timespec deadline;
    int count;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)seconds;
    pthread_mutex_lock(&state->mutex);
    while (state->completions == 0) {
        if (pthread_cond_timedwait(&state->cond, &state->mutex, &deadline) == ETIMEDOUT)
            break;
    }
    count = state->completions;
    pthread_mutex_unlock(&state->mutex);
    return count;
}

/* ---- Server counts --------------------------------------------------------------------------- */

/* Requests the server saw for the key of a /fault/<key>/... or /sequence/<key>/... path, via
 * a plain client (a breaker under test is per host and client); -1 on any error. */
static long server_count(gw_client *plain, const char *path)
{
    char kind[32], key[200], count_path[300];
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    json_t *body;
    size_t length = 0;
    const uint8_t *bytes;
    long count = -1;
    if (sscanf(path, "/%31[^/]/%199[^/?]", kind, key) != 2 ||
        (strcmp(kind, "fault") != 0 && strcmp(kind, "sequence") != 0))
        return -1;
    snprintf(count_path, sizeof count_path, "/%s/%s/count", kind, key);
    options.method = "GET";
    options.path = count_path;
    if (gw_call(plain, &options, &result) == GW_OK) {
        bytes = gw_result_body(result, &length);
        body = bytes ? json_loadb((const char *)bytes, length, 0, NULL) : NULL;
        if (json_is_integer(json_object_get(body, "count")))
            count = (long)json_integer_value(json_object_get(body, "count"));
        json_decref(body);
    }
    gw_result_free(result);
    return count;
}

/* ---- Checks on the attempt history ---------------------------------------------------------- */

static void check_attempts(const json_t *attempts, const json_t *expect)
{
    const json_t *list, *item;
    size_t i, n = json_array_size(attempts);

    if ((list = json_object_get(expect, "attempt_statuses")) != NULL) {
        EXPECT(json_array_size(list) == n, "%zu attempt statuses expected, %zu attempts", json_array_size(list), n);
        json_array_foreach(list, i, item) {
            long got = (long)json_integer_value(json_object_get(json_array_get(attempts, i), "status"));
            EXPECT(i < n && got == (long)json_integer_value(item), "attempt %zu status %ld, expected %ld", i + 1, got,
                   (long)json_integer_value(item));
        }
    }
    if ((list = json_object_get(expect, "attempt_errors")) != NULL) {
        EXPECT(json_array_size(list) == n, "%zu attempt errors expected, %zu attempts", json_array_size(list), n);
        json_array_foreach(list, i, item) {
            const char *got = json_string_value(json_object_get(json_array_get(attempts, i), "error"));
            const char *want = json_string_value(item);
            EXPECT(i < n && ((got == NULL && want == NULL) || (got && want && strcmp(got, want) == 0)),
                   "attempt %zu error %s, expected %s", i + 1, got ? got : "null", want ? want : "null");
        }
    }
    if ((list = json_object_get(expect, "delays")) != NULL) {
        EXPECT(json_array_size(list) == n, "%zu delay bounds, %zu attempts", json_array_size(list), n);
        json_array_foreach(list, i, item) {
            const json_t *delay = json_object_get(json_array_get(attempts, i), "delay");
            if (i >= n)
                break;
            if (json_is_null(item)) {
                EXPECT(delay == NULL || json_is_null(delay), "attempt %zu has delay %g, expected none", i + 1,
                       json_number_value(delay));
            } else {
                double low = number_or(item, "min_delay", -1), high = number_or(item, "max_delay", -1);
                EXPECT(json_is_number(delay) && json_number_value(delay) >= low - EPSILON &&
                           json_number_value(delay) <= high + EPSILON,
                       "attempt %zu delay %s%g not in [%g, %g]", i + 1, json_is_number(delay) ? "" : "(none) ",
                       json_number_value(delay), low, high);
            }
        }
        for (i = 1; i < n; i++) {
            const json_t *previous = json_array_get(attempts, i - 1), *next = json_array_get(attempts, i);
            double earliest = number_or(previous, "start", 0) + number_or(previous, "duration", 0) +
                              number_or(previous, "delay", 0);
            double start = number_or(next, "start", 0);
            EXPECT(start >= earliest - GAP_SLACK, "attempt %zu started at %.4f, before %.4f", i + 1, start, earliest);
        }
    }
    if ((list = json_object_get(expect, "redirects")) != NULL) {
        EXPECT(json_array_size(list) == n, "%zu redirect lists, %zu attempts", json_array_size(list), n);
        json_array_foreach(list, i, item) {
            const json_t *hops = json_object_get(json_array_get(attempts, i), "redirects");
            const json_t *want;
            size_t j;
            if (i >= n)
                break;
            EXPECT(json_array_size(hops) == json_array_size(item), "attempt %zu followed %zu redirects, expected %zu",
                   i + 1, json_array_size(hops), json_array_size(item));
            json_array_foreach(item, j, want) {
                long got = (long)json_integer_value(json_object_get(json_array_get(hops, j), "status"));
                EXPECT(got == (long)json_integer_value(want), "attempt %zu redirect %zu status %ld, expected %ld", i + 1,
                       j + 1, got, (long)json_integer_value(want));
            }
        }
    }
    if ((list = json_object_get(expect, "decisions")) != NULL) {
        EXPECT(json_array_size(list) <= n, "%zu decisions, %zu attempts", json_array_size(list), n);
        json_array_foreach(list, i, item) {
            const char *decision = json_string_value(json_object_get(json_array_get(attempts, i), "decision"));
            if (json_is_null(item) || i >= n)
                continue;
            EXPECT(decision && strstr(decision, json_string_value(item)),
                   "attempt %zu decision \"%s\" lacks \"%s\"", i + 1, decision ? decision : "(null)",
                   json_string_value(item));
        }
    }
}

/* ---- Checks on an /echo answer: what the last server received ------------------------------- */

static void check_echo(const gw_result *result, const json_t *expect)
{
    size_t length = 0, i;
    const uint8_t *bytes = gw_result_body(result, &length);
    json_t *echo = bytes ? json_loadb((const char *)bytes, length, 0, NULL) : NULL;
    const json_t *headers = json_object_get(echo, "headers"), *query = json_object_get(echo, "query"), *item;
    const char *key;
    const char *fields[] = {"method", "path", "body"};
    EXPECT(json_is_object(echo), "the response is not an /echo answer");
    for (i = 0; i < 3; i++) {
        const json_t *want = json_object_get(expect, fields[i]);
        EXPECT(want == NULL || json_equal(json_object_get(echo, fields[i]), want), "echo %s differs", fields[i]);
    }
    json_array_foreach(json_object_get(expect, "headers_present"), i, item)
        EXPECT(json_object_get(headers, json_string_value(item)) != NULL, "header %s did not arrive",
               json_string_value(item));
    json_array_foreach(json_object_get(expect, "headers_absent"), i, item)
        EXPECT(json_object_get(headers, json_string_value(item)) == NULL, "header %s arrived", json_string_value(item));
    json_object_foreach((json_t *)json_object_get(expect, "query"), key, item)
        EXPECT(json_equal(json_object_get(query, key), item), "query %s differs", key);
    json_array_foreach(json_object_get(expect, "query_absent"), i, item)
        EXPECT(json_object_get(query, json_string_value(item)) == NULL, "query parameter %s arrived",
               json_string_value(item));
    json_decref(echo);
}

/* The path the server saw (the /echo body's "path") is `want`, and it is the base path plus
 * the path the result reports (up to its query). */
static void check_echo_path(const gw_result *result, const char *want)
{
    size_t length = 0;
    const uint8_t *bytes = gw_result_body(result, &length);
    json_t *body = bytes ? json_loadb((const char *)bytes, length, 0, NULL) : NULL;
    const char *seen = json_string_value(json_object_get(body, "path"));
    const char *reported = gw_result_path(result);
    size_t prefix = strlen(base_path);
    EXPECT(want && seen && strcmp(seen, want) == 0, "the server saw path %s, expected %s", seen ? seen : "(none)",
           want ? want : "(not a string)");
    EXPECT(want && reported && strncmp(want, base_path, prefix) == 0 &&
               strncmp(want + prefix, reported, strcspn(reported, "?")) == 0 &&
               strlen(want + prefix) == strcspn(reported, "?"),
           "reported path %s, expected %s under the base path %s", reported ? reported : "(none)",
           want ? want : "(not a string)", base_path);
    json_decref(body);
}

/* ---- One call --------------------------------------------------------------------------------- */

static char *dumps_substituted(const json_t *value, const char *key)
{
    char *text, *out;
    if (value == NULL)
        return NULL;
    text = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT);
    if (text == NULL)
        abort();
    out = substitute(text, key);
    free(text);
    return out;
}

static void run_call(gw_client *client, gw_client *plain, observer_state *observer, const json_t *call,
                     const char *key)
{
    const json_t *expect = json_object_get(call, "expect");
    const char *method = json_string_value(json_object_get(call, "method"));
    const char *route = json_string_value(json_object_get(call, "route"));
    char *path = substitute(json_object_get(call, "path") ? json_string_value(json_object_get(call, "path")) : "", key);
    char *params = dumps_substituted(json_object_get(call, "params"), key);
    char *headers = dumps_substituted(json_object_get(call, "headers"), key);
    char *body = dumps_substituted(json_object_get(call, "body"), key);
    char *policy = dumps_substituted(json_object_get(call, "policy"), key);
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    json_t *attempts;
    int before, seen, completions = 1, want_ok;
    double start, elapsed = 0;
    const char *want_kind = json_string_value(json_object_get(expect, "kind"));

    options.method = method ? method : "GET";
    options.path = path;
    options.route = route;
    options.params_json = params;
    options.headers_json = headers;
    options.body_json = body;
    options.policy_json = policy;
    if (json_object_get(call, "retry_test") != NULL) {
        const char *test = json_string_value(json_object_get(call, "retry_test"));
        if (test == NULL || strcmp(test, "retry_after_or_1") != 0)
            fail_check("unknown retry_test %s", test ? test : "(not a string)");
        else
            options.retry_test = retry_after_or_1;
    }
    sleep_seconds(number_or(call, "sleep_before", 0));
    alarm(60);
    before = observer_calls(observer);
    start = now_seconds();
    if (json_object_get(call, "cancel_after") != NULL) {
        static completion_state state = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, NULL};
        gw_call_handle *handle = NULL;
        state.completions = 0;
        state.first = NULL;
        if (gw_call_async(client, &options, on_completion, &state, &handle) != GW_OK) {
            fail_check("gw_call_async: %s", gw_last_error_message());
        } else {
            sleep_seconds(number_or(call, "cancel_after", 0));
            EXPECT(gw_call_cancel(handle) == GW_OK, "gw_call_cancel");
            wait_completion(&state, 10);
            elapsed = now_seconds() - start;
            sleep_seconds(SETTLE_MS / 1000.0); /* would a second completion or a stray attempt follow? */
            pthread_mutex_lock(&state.mutex);
            completions = state.completions;
            result = state.first;
            state.first = NULL;
            pthread_mutex_unlock(&state.mutex);
            gw_call_handle_free(handle);
        }
    } else if (json_object_get(expect, "refused") != NULL) {
        /* Refused before the call is built: an argument error, no result, nothing sent. */
        const char *needle = json_string_value(json_object_get(expect, "refused"));
        int32_t rc = gw_call(client, &options, &result);
        EXPECT(rc == GW_ERROR_INVALID_ARGUMENT && result == NULL, "gw_call returned %d, expected a refusal",
               (int)rc);
        EXPECT(needle && strstr(gw_last_error_message(), needle) != NULL, "message \"%s\" lacks \"%s\"",
               gw_last_error_message(), needle ? needle : "(null)");
        if (json_object_get(expect, "server_count"))
            EXPECT(server_count(plain, path) == (long)json_integer_value(json_object_get(expect, "server_count")),
                   "server count %ld for %s", server_count(plain, path), path);
        gw_result_free(result);
        free(path);
        free(headers);
        free(body);
        free(policy);
        return;
    } else {
        int32_t rc = gw_call(client, &options, &result);
        elapsed = now_seconds() - start;
        EXPECT(rc == GW_OK || rc == GW_ERROR_CALL_FAILED, "gw_call returned %d: %s", (int)rc, gw_last_error_message());
    }
    seen = observer_calls(observer) - before;

    EXPECT(completions == 1, "%d completions", completions);
    if (result == NULL) {
        fail_check("no result");
    } else {
        want_ok = json_is_true(json_object_get(expect, "ok"));
        if (want_ok)
            EXPECT(gw_result_ok(result), "expected success, got %s: %s", gw_result_error_kind_name(result),
                   gw_result_error_message(result));
        else
            EXPECT(!gw_result_ok(result) && want_kind && strcmp(gw_result_error_kind_name(result), want_kind) == 0,
                   "kind %s, expected %s: %s", gw_result_error_kind_name(result), want_kind ? want_kind : "(none)",
                   gw_result_error_message(result));
        EXPECT(gw_result_status(result) == (int32_t)json_integer_value(json_object_get(expect, "status")),
               "status %d, expected %d", (int)gw_result_status(result),
               (int)json_integer_value(json_object_get(expect, "status")));
        attempts = json_loads(gw_result_attempts_json(result), 0, NULL);
        EXPECT(json_is_array(attempts), "attempts JSON is not an array: %s", gw_result_attempts_json(result));
        EXPECT(gw_result_attempt_count(result) == (int32_t)json_integer_value(json_object_get(expect, "attempts")) &&
                   json_array_size(attempts) == (size_t)gw_result_attempt_count(result),
               "%d attempts (%zu in the history), expected %d: %s", (int)gw_result_attempt_count(result),
               json_array_size(attempts), (int)json_integer_value(json_object_get(expect, "attempts")),
               gw_result_attempts_json(result));
        EXPECT(seen == (int)json_integer_value(json_object_get(expect, "observer_calls")),
               "the failure observer ran %d times, expected %d", seen,
               (int)json_integer_value(json_object_get(expect, "observer_calls")));
        if (seen == 1 && before < 64)
            EXPECT(observer->kinds[before] == gw_result_error_kind(result), "the observer saw kind %d, the call %d",
                   observer->kinds[before], (int)gw_result_error_kind(result));
        if (json_object_get(expect, "message_contains") != NULL) {
            const char *needle = json_string_value(json_object_get(expect, "message_contains"));
            EXPECT(needle && strstr(gw_result_error_message(result), needle), "message \"%s\" lacks \"%s\"",
                   gw_result_error_message(result), needle ? needle : "(not a string)");
        }
        if (json_object_get(expect, "body_length") != NULL) {
            size_t length = 0;
            gw_result_body(result, &length);
            EXPECT(length == (size_t)json_integer_value(json_object_get(expect, "body_length")),
                   "body length %zu, expected %lld", length,
                   (long long)json_integer_value(json_object_get(expect, "body_length")));
        }
        if (json_object_get(expect, "bytes_received") != NULL) {
            const json_t *bound = json_object_get(expect, "bytes_received");
            const json_t *last = json_array_get(attempts, json_array_size(attempts) - 1);
            double received = last ? number_or(last, "bytes_received", -1) : -1;
            EXPECT(received >= number_or(bound, "min", 0) && received <= number_or(bound, "max", -1),
                   "the last attempt received %.0f bytes, not in [%g, %g]", received, number_or(bound, "min", 0),
                   number_or(bound, "max", -1));
        }
        if (json_object_get(expect, "echo_path") != NULL)
            check_echo_path(result, json_string_value(json_object_get(expect, "echo_path")));
        check_attempts(attempts, expect);
        if (json_object_get(expect, "echo"))
            check_echo(result, json_object_get(expect, "echo"));
        json_decref(attempts);
        gw_result_free(result);
    }
    if (json_object_get(expect, "min_elapsed"))
        EXPECT(elapsed >= number_or(expect, "min_elapsed", 0), "took %.3f s, expected at least %g", elapsed,
               number_or(expect, "min_elapsed", 0));
    if (json_object_get(expect, "max_elapsed"))
        EXPECT(elapsed <= number_or(expect, "max_elapsed", 0), "took %.3f s, expected at most %g", elapsed,
               number_or(expect, "max_elapsed", 0));
    if (json_object_get(expect, "server_count")) {
        long want = (long)json_integer_value(json_object_get(expect, "server_count"));
        const char *counted_text = json_string_value(json_object_get(expect, "count_path"));
        char *counted = substitute(counted_text ? counted_text : path, key);
        long got = server_count(plain, counted);
        EXPECT(got == want, "server count %ld for %s, expected %ld", got, counted, want);
        free(counted);
    }
    free(path);
    free(params);
    free(headers);
    free(body);
    free(policy);
}

/* ---- One case --------------------------------------------------------------------------------- */

static int run_case(const json_t *test_case, gw_client *plain)
{
    static int serial;
    observer_state observer;
    json_t *config;
    const json_t *calls, *call;
    char key[200], base[400], *config_text;
    gw_client *client = NULL;
    size_t i;

    case_name = json_string_value(json_object_get(test_case, "name"));
    if (case_name == NULL)
        case_name = "(unnamed)";
    case_failures = 0;
    call_index = 0;
    base_path = json_string_value(json_object_get(test_case, "base_path"));
    if (base_path == NULL)
        base_path = "";
    snprintf(key, sizeof key, "%s-c-%ld-%d-%ld", case_name, (long)getpid(), ++serial, (long)time(NULL));
    memset(&observer, 0, sizeof observer);
    pthread_mutex_init(&observer.mutex, NULL);

    config = json_deep_copy(json_object_get(test_case, "config"));
    if (config == NULL)
        config = json_object();
    if (json_is_true(json_object_get(test_case, "closed"))) {
        snprintf(base, sizeof base, "http://127.0.0.1:%d%s", closed_port(), base_path);
    } else {
        snprintf(base, sizeof base, "%s%s", base_url, base_path);
    }
    json_object_set_new(config, "baseURL", json_string(base));
    config_text = json_dumps(config, JSON_COMPACT);
    json_decref(config);
    if (gw_client_new_from_config(config_text, &client) != GW_OK) {
        fail_check("gw_client_new_from_config: %s\n  config: %s", gw_last_error_message(), config_text);
    } else if (gw_client_add_failure_observer(client, count_failure, &observer, NULL, NULL) != GW_OK) {
        fail_check("gw_client_add_failure_observer: %s", gw_last_error_message());
    } else {
        calls = json_object_get(test_case, "calls");
        EXPECT(json_array_size(calls) > 0, "a case needs calls");
        json_array_foreach(calls, i, call) {
            call_index = (int)i + 1;
            run_call(client, plain, &observer, call, key);
        }
    }
    gw_client_free(client);
    free(config_text);
    pthread_mutex_destroy(&observer.mutex);
    printf("%s %s\n", case_failures == 0 ? "ok    " : "FAILED", case_name);
    return case_failures == 0;
}

static void on_alarm(int sig)
{
    static const char prefix[] = "watchdog: no progress for 60 s in case ";
    (void)sig;
    if (write(2, prefix, sizeof prefix - 1) < 0 || write(2, case_name, strlen(case_name)) < 0 ||
        write(2, "\n", 1) < 0) {
    }
    _exit(3);
}

/* The keys this runner reads, per object. */
static const char *const case_keys[] = {"name", "about", "closed", "config", "calls", "base_path", NULL};
static const char *const call_keys[] = {"method", "path", "headers", "body", "policy", "sleep_before", "route",
                                        "params", "retry_test", "cancel_after", "expect", NULL};
static const char *const expect_keys[] = {
    "ok", "kind", "status", "attempts", "observer_calls", "server_count", "delays", "attempt_statuses",
    "attempt_errors", "decisions", "min_elapsed", "max_elapsed", "redirects", "count_path", "echo", "echo_path",
    "body_length", "bytes_received", "message_contains", "refused", NULL};
static const char *const echo_keys[] = {"method", "path", "body", "headers_present", "headers_absent", "query",
                                        "query_absent", NULL};
static const char *const delay_keys[] = {"min_delay", "max_delay", NULL};
static const char *const bytes_keys[] = {"min", "max", NULL};

/* Reports the keys of `test_case` this runner does not read (the case, then per call the
 * call, its expect, expect.echo, each expect.delays bound, expect.bytes_received). */
static int unknown_keys(json_t *test_case)
{
    const char *name = json_string_value(json_object_get(test_case, "name"));
    json_t *call, *bound;
    size_t index, bound_index;
    int unknown;
    name = name ? name : "(unnamed)";
    unknown = report_unknown_keys(test_case, case_keys, name, "");
    json_array_foreach(json_object_get(test_case, "calls"), index, call) {
        json_t *expect = json_object_get(call, "expect");
        char prefix[128];
        snprintf(prefix, sizeof prefix, "calls[%zu].", index);
        unknown += report_unknown_keys(call, call_keys, name, prefix);
        snprintf(prefix, sizeof prefix, "calls[%zu].expect.", index);
        unknown += report_unknown_keys(expect, expect_keys, name, prefix);
        snprintf(prefix, sizeof prefix, "calls[%zu].expect.echo.", index);
        unknown += report_unknown_keys(json_object_get(expect, "echo"), echo_keys, name, prefix);
        json_array_foreach(json_object_get(expect, "delays"), bound_index, bound) {
            snprintf(prefix, sizeof prefix, "calls[%zu].expect.delays[%zu].", index, bound_index);
            unknown += report_unknown_keys(bound, delay_keys, name, prefix);
        }
        snprintf(prefix, sizeof prefix, "calls[%zu].expect.bytes_received.", index);
        unknown += report_unknown_keys(json_object_get(expect, "bytes_received"), bytes_keys, name, prefix);
    }
    return unknown;
}

int main(int argc, char **argv)
{
    const char *file = argc > 1 ? argv[1] : GW_CASES_FILE;
    struct sigaction action;
    json_error_t error;
    json_t *root, *cases, *test_case;
    gw_client *plain = NULL;
    size_t i;
    int passed = 0, failed = 0;

    memset(&action, 0, sizeof action);
    action.sa_handler = on_alarm;
    sigaction(SIGALRM, &action, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);

    base_url = getenv("GW_TEST_BASE_URL");
    if (base_url == NULL || base_url[0] == '\0') {
        fprintf(stderr, "test_resilience_cases: GW_TEST_BASE_URL is not set; run me through "
                        "Tests/support/run_with_server.py (a missing server is a failure)\n");
        printf("0 passed, 1 failed\n");
        return 2;
    }
    root = json_load_file(file, JSON_REJECT_DUPLICATES, &error);
    cases = json_object_get(root, "cases");
    if (!json_is_array(cases) || json_array_size(cases) == 0) {
        fprintf(stderr, "test_resilience_cases: %s: %s (line %d, column %d)\n", file,
                root ? "no \"cases\" array" : error.text, error.line, error.column);
        printf("0 passed, 1 failed\n");
        return 2;
    }
    {
        int unknown = 0;
        json_array_foreach(cases, i, test_case) unknown += unknown_keys(test_case);
        if (unknown > 0) {
            fprintf(stderr, "%s: %d unknown keys; no case was run\n", file, unknown);
            printf("0 passed, 1 failed\n");
            json_decref(root);
            return 1;
        }
    }
    printf("gatewire %s against %s: %zu cases from %s\n", gw_version(), base_url, json_array_size(cases), file);
    if (gw_client_new(base_url, &plain) != GW_OK) {
        fprintf(stderr, "gw_client_new(%s): %s\n", base_url, gw_last_error_message());
        printf("0 passed, 1 failed\n");
        return 2;
    }
    json_array_foreach(cases, i, test_case) {
        if (run_case(test_case, plain))
            passed++;
        else
            failed++;
    }
    alarm(0);
    gw_client_free(plain);
    json_decref(root);
    printf("checks: %d passed, %d failed\n", checks_passed, checks_failed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
