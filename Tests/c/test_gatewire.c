/*
 * The C ABI end to end: include/gatewire.h + libGatewire.so against the scripted test server
 * (Tests/support/testserver.py) at $GW_TEST_BASE_URL and httpbin (gunicorn) at $GW_HTTPBIN_URL
 * for the authentication endpoints. Run through Tests/support/run_with_server.py --httpbin,
 * which starts both servers and sets those variables.
 *
 * Each test_* function reads as an example of the API and has a name in `tests` (at the end):
 * `test_gatewire_c NAME...` runs those tests, `--list` lists the names, no argument runs them
 * all; CMake registers each name as the ctest c_api.NAME. CHECK* count passes and failures
 * and print file:line for a failure; the last line is "<passed> passed, <failed> failed" and
 * the exit status is non-zero on any failure. A watchdog fails the run (naming the test) if
 * any blocking call hangs.
 */
#define _POSIX_C_SOURCE 200809L

#include "gatewire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
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

/* ---- Assertions ----------------------------------------------------------------------- */

static int passed;
static int failed;
static const char *volatile current_test = "start-up";

#define CHECK(cond) check((cond) != 0, __FILE__, __LINE__, "%s", #cond)
#define CHECK_INT(actual, expected)                                                             \
    do {                                                                                        \
        long long a_ = (long long)(actual), e_ = (long long)(expected);                         \
        check(a_ == e_, __FILE__, __LINE__, "%s == %s (got %lld, expected %lld)", #actual,      \
              #expected, a_, e_);                                                               \
    } while (0)
#define CHECK_STR(actual, expected)                                                             \
    do {                                                                                        \
        const char *a_ = (actual);                                                              \
        check(a_ != NULL && strcmp(a_, (expected)) == 0, __FILE__, __LINE__,                    \
              "%s == \"%s\" (got %s%s%s)", #actual, (expected), a_ ? "\"" : "",                 \
              a_ ? a_ : "NULL", a_ ? "\"" : "");                                                \
    } while (0)
#define CHECK_CONTAINS(haystack, needle)                                                        \
    do {                                                                                        \
        const char *h_ = (haystack);                                                            \
        check(h_ != NULL && strstr(h_, (needle)) != NULL, __FILE__, __LINE__,                   \
              "%s contains \"%s\" (got %s%.400s%s)", #haystack, (needle), h_ ? "\"" : "",       \
              h_ ? h_ : "NULL", h_ ? "\"" : "");                                                \
    } while (0)
/* A JSON member "key": value, whatever the spacing around the colon. */
#define CHECK_MEMBER(json, key, value)                                                          \
    do {                                                                                        \
        const char *j_ = (json);                                                                \
        check(has_member(j_, (key), (value)), __FILE__, __LINE__,                               \
              "%s has member \"%s\": %s (got %s%.400s%s)", #json, (key), (value),               \
              j_ ? "'" : "", j_ ? j_ : "NULL", j_ ? "'" : "");                                  \
    } while (0)

static void check(int ok, const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static void check(int ok, const char *file, int line, const char *format, ...)
{
    va_list args;
    if (ok) {
        passed++;
        return;
    }
    failed++;
    fprintf(stderr, "%s:%d: [%s] CHECK failed: ", file, line, current_test);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
}

/* ---- Helpers ---------------------------------------------------------------------------- */

static const char *base_url;
static const char *httpbin_url;

/* How many members "key": value the JSON text has, whatever the spacing around the colon. */
static int count_members(const char *json, const char *key, const char *value)
{
    char quoted[256];
    const char *at;
    int count = 0;
    if (json == NULL)
        return 0;
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    for (at = strstr(json, quoted); at != NULL; at = strstr(at + 1, quoted)) {
        const char *p = at + strlen(quoted);
        while (*p == ' ')
            p++;
        if (*p != ':')
            continue;
        p++;
        while (*p == ' ')
            p++;
        if (strncmp(p, value, strlen(value)) == 0)
            count++;
    }
    return count;
}

static int has_member(const char *json, const char *key, const char *value)
{
    return count_members(json, key, value) > 0;
}

/* The result's body as a NUL-terminated copy (the library's is pointer + length). */
static char *body_text(const gw_result *result)
{
    size_t length = 0;
    const uint8_t *body = gw_result_body(result, &length);
    char *text = malloc(length + 1);
    if (text == NULL)
        abort();
    if (body != NULL && length > 0)
        memcpy(text, body, length);
    text[length] = '\0';
    return text;
}

static void sleep_ms(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A key no earlier run of the (long-lived) server has counted. */
static const char *unique_key(const char *prefix)
{
    static char keys[32][64];
    static int next;
    char *key = keys[next++ % 32];
    snprintf(key, sizeof keys[0], "%s-%ld-%d", prefix, (long)getpid(), next);
    return key;
}

/* A client for base_url, or a failed check and NULL. */
static gw_client *new_client(void)
{
    gw_client *client = NULL;
    int32_t rc = gw_client_new(base_url, &client);
    check(rc == GW_OK && client != NULL, __FILE__, __LINE__, "gw_client_new(%s): rc %d, %s",
          base_url, (int)rc, gw_last_error_message());
    return client;
}

static gw_client *new_client_from_config(const char *config)
{
    gw_client *client = NULL;
    int32_t rc = gw_client_new_from_config(config, &client);
    check(rc == GW_OK && client != NULL, __FILE__, __LINE__,
          "gw_client_new_from_config: rc %d, %s\n  config: %s", (int)rc, gw_last_error_message(), config);
    return client;
}

/* A blocking call with method + path; the result (maybe NULL) and *rc. */
static gw_result *call(gw_client *client, const char *method, const char *path, int32_t *rc)
{
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    options.method = method;
    options.path = path;
    *rc = gw_call(client, &options, &result);
    return result;
}

/* A config JSON with the test server as base URL: "%s" in `format` is the base URL. */
static char *config_with_base(const char *format)
{
    size_t size = strlen(format) + strlen(base_url) + 1;
    char *config = malloc(size);
    if (config == NULL)
        abort();
    snprintf(config, size, format, base_url);
    return config;
}

/* A completion latch: a mutex + condition variable counter with a bounded wait. */
typedef struct latch {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int count;
} latch;

static void latch_init(latch *l)
{
    pthread_mutex_init(&l->mutex, NULL);
    pthread_cond_init(&l->cond, NULL);
    l->count = 0;
}

static void latch_destroy(latch *l)
{
    pthread_cond_destroy(&l->cond);
    pthread_mutex_destroy(&l->mutex);
}

static void latch_count_down(latch *l)
{
    pthread_mutex_lock(&l->mutex);
    l->count++;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->mutex);
}

static int latch_count(latch *l)
{
    int count;
    pthread_mutex_lock(&l->mutex);
    count = l->count;
    pthread_mutex_unlock(&l->mutex);
    return count;
}

/* Waits until the count reaches `target` or `seconds` pass; returns the count reached. */
static int latch_wait(latch *l, int target, double seconds)
{
    struct timespec deadline;
    int count;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)seconds;
    deadline.tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&l->mutex);
    while (l->count < target) {
        if (pthread_cond_timedwait(&l->cond, &l->mutex, &deadline) == ETIMEDOUT)
            break;
    }
    count = l->count;
    pthread_mutex_unlock(&l->mutex);
    return count;
}

/* ---- Watchdog ----------------------------------------------------------------------------- */

static void on_alarm(int sig)
{
    static const char prefix[] = "watchdog: no progress for 60 s in test ";
    const char *name = current_test;
    (void)sig;
    if (write(2, prefix, sizeof prefix - 1) < 0 || write(2, name, strlen(name)) < 0 ||
        write(2, "\n", 1) < 0) {
    }
    _exit(3);
}

/* Names the test (or a step of it) in progress for the watchdog and failed checks, restarts
 * the watchdog's 60 s and prints the name. */
static void step(const char *name)
{
    current_test = name;
    alarm(60);
    printf("-- %s\n", name);
    fflush(stdout);
}

/* Appends entry, then separator, to the text in buffer (size bytes), cutting what does not
 * fit. The caller holds whatever lock guards buffer. */
static void append_entry(char *buffer, size_t size, const char *entry, const char *separator)
{
    strncat(buffer, entry, size - strlen(buffer) - 2);
    strncat(buffer, separator, size - strlen(buffer) - 1);
}

/* ---- Library, arguments, NULL handles ------------------------------------------------- */

static void test_version(void)
{
    const char *version = gw_version();
    unsigned major, minor, patch;
    char extra;
    CHECK(version != NULL);
    if (version == NULL)
        return;
    CHECK_INT(sscanf(version, "%u.%u.%u%c", &major, &minor, &patch, &extra), 3);
#ifdef GW_EXPECTED_VERSION
    CHECK_STR(version, GW_EXPECTED_VERSION); /* the CMake project version */
#endif
    CHECK(gw_version() == version);          /* static storage */
    CHECK(gw_last_error_message() != NULL);
}

#define CHECK_INVALID(expr)                                                                     \
    do {                                                                                        \
        int32_t rc_ = (expr);                                                                   \
        const char *m_ = gw_last_error_message();                                               \
        check(rc_ == GW_ERROR_INVALID_ARGUMENT, __FILE__, __LINE__,                             \
              "%s returns GW_ERROR_INVALID_ARGUMENT (got %d)", #expr, (int)rc_);                \
        check(m_ != NULL && m_[0] != '\0', __FILE__, __LINE__,                                  \
              "%s leaves a gw_last_error_message() (got \"%s\")", #expr, m_ ? m_ : "NULL");     \
    } while (0)

static void noop_completion(gw_result *result, void *user_data)
{
    (void)user_data;
    gw_result_free(result);
}

static void noop_observer(const gw_result *failure, void *user_data)
{
    (void)failure;
    (void)user_data;
}

static void test_null_arguments(void)
{
    gw_client *client;
    gw_client_options client_options = GW_CLIENT_OPTIONS_INIT;
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    gw_call_handle *handle = NULL;
    uint64_t id = 0;

    CHECK_INVALID(gw_client_new(NULL, &client));
    printf("   gw_client_new(NULL): \"%s\"\n", gw_last_error_message());
    CHECK_INVALID(gw_client_new(base_url, NULL));
    CHECK_INVALID(gw_client_new_from_config(NULL, &client));
    CHECK_INVALID(gw_client_create(NULL, &client));
    CHECK_INVALID(gw_client_create(&client_options, &client)); /* no config source */
    printf("   gw_client_create(no source): \"%s\"\n", gw_last_error_message());
    CHECK_INVALID(gw_client_options_init(NULL, GW_CLIENT_OPTIONS_VERSION));
    CHECK_INVALID(gw_call_options_init(NULL, GW_CALL_OPTIONS_VERSION));
    CHECK_INVALID(gw_config_check(NULL, NULL));

    client = new_client();
    if (client == NULL)
        return;
    options.method = "GET";
    options.path = "/echo";
    CHECK_INVALID(gw_call(NULL, &options, &result));
    CHECK_INVALID(gw_call(client, NULL, &result));
    CHECK_INVALID(gw_call(client, &options, NULL));
    CHECK(result == NULL);
    CHECK_INVALID(gw_call_async(NULL, &options, noop_completion, NULL, &handle));
    CHECK_INVALID(gw_call_async(client, NULL, noop_completion, NULL, &handle));
    CHECK_INVALID(gw_call_cancel(NULL));
    CHECK_INVALID(gw_client_add_failure_observer(NULL, noop_observer, NULL, NULL, &id));
    CHECK_INVALID(gw_client_add_failure_observer(client, NULL, NULL, NULL, &id));
    CHECK_INVALID(gw_client_remove_failure_observer(NULL, 1));
    CHECK_INVALID(gw_client_remove_failure_observer(client, 987654321u)); /* not registered */
    CHECK_INVALID(gw_request_set_header(NULL, "X-A", "b"));
    CHECK_INVALID(gw_request_set_url(NULL, "http://127.0.0.1/"));

    /* Malformed JSON in call options is an argument error, reported before anything is sent. */
    options.headers_json = "{\"X-A\": ";
    CHECK_INVALID(gw_call(client, &options, &result));
    printf("   gw_call(headers_json \"{\\\"X-A\\\": \"): \"%s\"\n", gw_last_error_message());
    CHECK(result == NULL);
    options.headers_json = NULL;
    options.params_json = "[1, 2]"; /* valid JSON, but not an object */
    CHECK_INVALID(gw_call(client, &options, &result));
    CHECK(result == NULL);
    gw_client_free(client);
}

static void test_versions(void)
{
    gw_client_options client_options;
    gw_call_options call_options;
    gw_client *client = NULL;
    gw_plugin plugin = {GW_PLUGIN_VERSION, "future", NULL, NULL, NULL, NULL, NULL, NULL};

    CHECK_INT(gw_client_options_init(&client_options, GW_CLIENT_OPTIONS_VERSION), GW_OK);
    CHECK_INT(client_options.version, GW_CLIENT_OPTIONS_VERSION);
    CHECK(client_options.base_url == NULL && client_options.plugins == NULL);
    CHECK_INT(gw_client_options_init(&client_options, 999), GW_ERROR_VERSION);
    CHECK_INT(gw_call_options_init(&call_options, GW_CALL_OPTIONS_VERSION), GW_OK);
    CHECK_INT(call_options.max_retries, -1);
    CHECK(call_options.method == NULL && call_options.retry_test == NULL);
    CHECK_INT(gw_call_options_init(&call_options, 999), GW_ERROR_VERSION);

    gw_client_options_init(&client_options, GW_CLIENT_OPTIONS_VERSION);
    client_options.base_url = base_url;
    client_options.version = 999;
    CHECK_INT(gw_client_create(&client_options, &client), GW_ERROR_VERSION);
    client_options.version = GW_CLIENT_OPTIONS_VERSION;
    plugin.version = 999;
    client_options.plugins = &plugin;
    client_options.plugin_count = 1;
    CHECK_INT(gw_client_create(&client_options, &client), GW_ERROR_VERSION);
    printf("   plugin version 999: \"%s\"\n", gw_last_error_message());
}

static void test_null_handles(void)
{
    size_t length = 12345;
    const char *text;
    CHECK_INT(gw_result_ok(NULL), 0);
    CHECK_INT(gw_result_status(NULL), 0);
    CHECK_INT(gw_result_error_kind(NULL), 0);
    CHECK_INT(gw_result_attempt_count(NULL), 0);
    CHECK(gw_result_method(NULL) == NULL);
    CHECK(gw_result_path(NULL) == NULL);
    CHECK(gw_result_body(NULL, &length) == NULL);
    CHECK_INT(length, 0);
    CHECK(gw_result_header(NULL, "Content-Type") == NULL);
    CHECK(gw_result_mapped_json(NULL) == NULL);
    CHECK(gw_result_error_objects_json(NULL) == NULL);
    /* Not pinned by the header for NULL: must not crash; NULL or "" is fine. */
    text = gw_result_attempts_json(NULL);
    CHECK(text == NULL || text[0] == '\0' || strcmp(text, "[]") == 0);
    text = gw_result_headers_json(NULL);
    CHECK(text == NULL || strcmp(text, "[]") == 0);
    text = gw_result_error_message(NULL);
    CHECK(text == NULL || text[0] == '\0');
    (void)gw_result_error_kind_name(NULL);

    CHECK_INT(gw_attempt_number(NULL), 0);
    CHECK_INT(gw_attempt_status(NULL), 0);
    CHECK_INT(gw_attempt_error_kind(NULL), 0);
    CHECK(gw_attempt_elapsed(NULL) == 0.0);
    CHECK(gw_attempt_header(NULL, "X") == NULL);
    CHECK(gw_request_method(NULL) == NULL);
    CHECK(gw_request_url(NULL) == NULL);
    CHECK(gw_request_header(NULL, "X") == NULL);

    /* NULL frees are ignored (the header): they do not fail, so the thread's last error is
     * the message of the failure just before them, and the library still makes clients. */
    {
        gw_client *client = NULL;
        char before[256];
        CHECK_INT(gw_client_new(NULL, &client), GW_ERROR_INVALID_ARGUMENT);
        snprintf(before, sizeof before, "%s", gw_last_error_message());
        CHECK(before[0] != '\0');
        gw_result_free(NULL);
        gw_string_free(NULL);
        gw_call_handle_free(NULL);
        gw_client_free(NULL);
        CHECK_STR(gw_last_error_message(), before);
        CHECK_INT(gw_client_new("http://127.0.0.1:1", &client), GW_OK);
        CHECK(client != NULL);
        gw_client_free(client);
    }
}

/* ---- Config ------------------------------------------------------------------------------ */

static void test_config_errors(void)
{
    gw_client *client = NULL;
    char *warnings = NULL;
    char *config;
    const char *bad_field = "{\"baseURL\":\"http://127.0.0.1:1\",\"retry\":{\"maxRetries\":-1}}";
    const char *malformed = "{\"baseURL\": \"http://x\",\n \"retry\": {\"maxRetries\": }\n}";

    CHECK_INT(gw_client_new_from_config(malformed, &client), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "line");
    printf("   malformed config (client): \"%s\"\n", gw_last_error_message());
    CHECK_INT(gw_config_check(malformed, &warnings), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "line");

    CHECK_INT(gw_config_check(bad_field, &warnings), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "retry.maxRetries");
    printf("   gw_config_check(maxRetries -1): \"%s\"\n", gw_last_error_message());
    CHECK_INT(gw_client_new_from_config(bad_field, &client), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "retry.maxRetries");

    /* The shortest absolute URL with a one-letter host is a valid base URL. */
    CHECK_INT(gw_config_check("{\"baseURL\":\"http://x\"}", NULL), GW_OK);
    CHECK_INT(gw_config_check("{\"baseURL\":\"http://x\",\"retry\":{\"maxRetries\":-1}}", NULL), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "retry.maxRetries");
    CHECK_INT(gw_config_check("{\"baseURL\":\"http://\"}", NULL), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "baseURL");

    config = config_with_base("{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 2}}");
    warnings = NULL;
    CHECK_INT(gw_config_check(config, &warnings), GW_OK);
    CHECK(warnings != NULL && warnings[0] == '[');
    printf("   gw_config_check(valid) warnings: %s\n", warnings ? warnings : "NULL");
    gw_string_free(warnings);
    CHECK_INT(gw_config_check(config, NULL), GW_OK);
    free(config);
}

/* ---- Blocking calls ------------------------------------------------------------------------ */

static void test_blocking_get(void)
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

static void test_headers_and_body(void)
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

/* ---- Concurrent asynchronous calls ---------------------------------------------------------- */

#define CONCURRENT 20

typedef struct echo_call {
    int index;
    int completions;
    int status;
    int body_has_index;
    int on_caller_thread;
    latch *done;
} echo_call;

static pthread_t main_thread;

static void echo_completion(gw_result *result, void *user_data)
{
    echo_call *c = user_data;
    char *body = body_text(result);
    char value[32];
    snprintf(value, sizeof value, "\"%d\"", c->index);
    pthread_mutex_lock(&c->done->mutex);
    c->completions++;
    c->status = gw_result_status(result);
    c->body_has_index = has_member(body, "i", value);
    c->on_caller_thread = pthread_equal(pthread_self(), main_thread);
    pthread_mutex_unlock(&c->done->mutex);
    free(body);
    gw_result_free(result);
    latch_count_down(c->done);
}

static void test_concurrent_async(void)
{
    /* Static: a late completion after a timed-out wait must not write to a dead frame. */
    static echo_call calls[CONCURRENT];
    static latch done;
    static char paths[CONCURRENT][32];
    gw_client *client = new_client();
    int i, reached, started = 0;
    double t0;
    if (client == NULL)
        return;
    latch_init(&done);
    t0 = now_seconds();
    for (i = 0; i < CONCURRENT; i++) {
        gw_call_options options = GW_CALL_OPTIONS_INIT;
        gw_call_handle *handle = NULL;
        calls[i].index = i;
        calls[i].done = &done;
        snprintf(paths[i], sizeof paths[i], "/echo?i=%d", i);
        options.method = "GET";
        options.path = paths[i];
        /* Half keep a handle (freed at once: freeing does not cancel), half pass NULL. */
        if (gw_call_async(client, &options, echo_completion, &calls[i], i % 2 ? &handle : NULL) == GW_OK)
            started++;
        if (i % 2) {
            CHECK(handle != NULL);
            gw_call_handle_free(handle);
        }
    }
    CHECK_INT(started, CONCURRENT);
    reached = latch_wait(&done, CONCURRENT, 10.0);
    CHECK_INT(reached, CONCURRENT);
    printf("   %d async calls completed in %.3f s\n", reached, now_seconds() - t0);
    sleep_ms(100); /* room for a (wrong) second completion */
    pthread_mutex_lock(&done.mutex);
    for (i = 0; i < CONCURRENT; i++) {
        check(calls[i].completions == 1, __FILE__, __LINE__, "call %d completed %d times", i,
              calls[i].completions);
        check(calls[i].status == 200, __FILE__, __LINE__, "call %d status %d", i, calls[i].status);
        check(calls[i].body_has_index, __FILE__, __LINE__, "call %d: body has its own i", i);
        check(!calls[i].on_caller_thread, __FILE__, __LINE__, "call %d completed on the loop thread", i);
    }
    pthread_mutex_unlock(&done.mutex);
    gw_client_free(client);
    if (reached == CONCURRENT)
        latch_destroy(&done);
}

/* ---- Response mapping ---------------------------------------------------------------------- */

static void test_mapping(void)
{
    char *config = config_with_base(
        "{\"baseURL\": \"%s\","
        " \"mappings\": {\"Charge\": {\"attributes\": {"
        "   \"id\": \"id\","
        "   \"amount\": {\"to\": \"amount\", \"type\": \"integer\"},"
        "   \"created\": {\"to\": \"createdAt\", \"type\": \"date\", \"dateFormat\": \"epochSeconds\"},"
        "   \"source.last4\": {\"to\": \"last4\", \"type\": \"string\"}}}},"
        " \"responseDescriptors\": [{\"mapping\": \"Charge\", \"method\": \"GET\","
        "   \"pathPattern\": \"/fixture/:name\", \"statusCodes\": \"2xx\"}]}");
    gw_client *client;
    gw_result *result;
    const char *mapped;
    int32_t rc;
    client = new_client_from_config(config);
    free(config);
    if (client == NULL)
        return;
    /* Tests/fixtures/real/stripe-charge.json: a real Stripe charge (amount 1061, card 4242). */
    result = call(client, "GET", "/fixture/stripe-charge.json", &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    mapped = gw_result_mapped_json(result);
    printf("   mapped: %s\n", mapped ? mapped : "NULL");
    CHECK(mapped != NULL && mapped[0] == '{');
    CHECK_MEMBER(mapped, "", "{");
    CHECK_MEMBER(mapped, "id", "\"ch_198c152iMoKf4jyWWYvyqjTX\"");
    CHECK_MEMBER(mapped, "amount", "1061");
    CHECK(!has_member(mapped, "amount", "\"1061\"")); /* an integer, not a string */
    CHECK_MEMBER(mapped, "last4", "\"4242\"");
    CHECK_MEMBER(mapped, "createdAt", "\"2016-10-25T20:59:27"); /* 1477429167 s, UTC */
    CHECK(!has_member(mapped, "object", "\"charge\"")); /* unmapped keys are not copied */
    gw_result_free(result);

    /* A path no descriptor matches: the call succeeds, nothing is mapped. */
    result = call(client, "GET", "/echo", &rc);
    CHECK_INT(rc, GW_OK);
    CHECK(gw_result_mapped_json(result) == NULL);
    gw_result_free(result);
    gw_client_free(client);
}

/* ---- Routes and request descriptors ---------------------------------------------------------- */

static void test_routes(void)
{
    char *config = config_with_base(
        "{\"baseURL\": \"%s\","
        " \"routes\": {\"item\": {\"method\": \"GET\", \"pathPattern\": \"/echo/items/:id\"},"
        "   \"createUser\": {\"method\": \"POST\", \"pathPattern\": \"/echo/users\", \"objectType\": \"User\"}},"
        " \"mappings\": {\"User\": {\"attributes\": {\"full_name\": \"name\", \"email\": \"email\"}}},"
        " \"requestDescriptors\": [{\"objectType\": \"User\", \"mapping\": \"User\", \"rootKeyPath\": \"user\"}]}");
    gw_client *client = new_client_from_config(config);
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char *body;
    free(config);
    if (client == NULL)
        return;

    /* Path parameters are percent-encoded (RFC 3986); the others become the query. */
    options.route = "item";
    options.method = "DELETE"; /* ignored with a route */
    options.params_json = "{\"id\": \"a b/c\", \"q\": \"x\"}";
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    CHECK_STR(gw_result_method(result), "GET");
    CHECK_CONTAINS(gw_result_path(result), "/echo/items/a%20b%2Fc");
    body = body_text(result);
    CHECK_MEMBER(body, "path", "\"/echo/items/a%20b%2Fc\"");
    CHECK_MEMBER(body, "q", "\"x\"");
    free(body);
    gw_result_free(result);

    /* object_type NULL: the route's objectType maps body_json through its request descriptor. */
    options.route = "createUser";
    options.params_json = NULL;
    options.body_json = "{\"name\": \"Ada Lovelace\", \"email\": \"ada@example.org\"}";
    result = NULL;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    body = body_text(result);
    CHECK_MEMBER(body, "user", "{");
    CHECK_MEMBER(body, "full_name", "\"Ada Lovelace\"");
    CHECK_MEMBER(body, "email", "\"ada@example.org\"");
    free(body);
    gw_result_free(result);

    /* An unknown route cannot be built: an error result, nothing sent. */
    options.route = "nope";
    options.body_json = NULL;
    result = NULL;
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_INVALID_ARGUMENT);
    CHECK_INT(gw_result_attempt_count(result), 0);
    printf("   unknown route: \"%s\"\n", gw_result_error_message(result));
    gw_result_free(result);
    gw_client_free(client);
}

/* ---- Retry ---------------------------------------------------------------------------------- */

#define FAST_RETRY "\"retry\": {\"maxRetries\": 3, \"initialDelay\": 0.01, \"maxDelay\": 0.05}"

static int server_count(gw_client *client, const char *key)
{
    char path[128];
    gw_result *result;
    int32_t rc;
    char *body;
    int count = -1;
    const char *at;
    snprintf(path, sizeof path, "/sequence/%s/count", key);
    result = call(client, "GET", path, &rc);
    body = body_text(result);
    at = strstr(body, "\"count\"");
    if (rc != GW_OK || at == NULL || sscanf(at, "\"count\" : %d", &count) != 1)
        count = -1;
    free(body);
    gw_result_free(result);
    return count;
}

/* Makes a client from options, whose plugin refuses in prepare, and calls GET
 * /sequence/KEY/200 with a fresh key prefixed key_prefix: the call must fail before anything
 * is sent (kind plugin, no attempt, and the server, asked on a new client, saw nothing).
 * Returns the failed result for the caller's checks of its message (free it), or NULL when
 * the client could not be made. */
static gw_result *call_refused_before_sending(const gw_client_options *options, const char *key_prefix)
{
    gw_client *client = NULL;
    gw_result *result;
    int32_t rc;
    const char *key;
    char path[128];
    CHECK_INT(gw_client_create(options, &client), GW_OK);
    if (client == NULL)
        return NULL;
    key = unique_key(key_prefix);
    snprintf(path, sizeof path, "/sequence/%s/200", key);
    result = call(client, "GET", path, &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_PLUGIN);
    CHECK_INT(gw_result_attempt_count(result), 0);
    gw_client_free(client);
    client = new_client();
    if (client != NULL) {
        CHECK_INT(server_count(client, key), 0);
        gw_client_free(client);
    }
    return result;
}

static void test_retry(void)
{
    char *config = config_with_base("{\"baseURL\": \"%s\", " FAST_RETRY "}");
    gw_client *client = new_client_from_config(config);
    gw_result *result;
    char path[128];
    const char *key;
    int32_t rc;
    char *body;
    free(config);
    if (client == NULL)
        return;

    /* GET is idempotent: 503 is retried, the second attempt answers 200. */
    key = unique_key("get");
    snprintf(path, sizeof path, "/sequence/%s/503,200", key);
    result = call(client, "GET", path, &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_ok(result), 1);
    CHECK_INT(gw_result_status(result), 200);
    CHECK_INT(gw_result_attempt_count(result), 2);
    CHECK_CONTAINS(gw_result_attempts_json(result), "503");
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 2);

    /* POST is not retried on a status: one attempt, the 503 is the outcome. */
    key = unique_key("post");
    snprintf(path, sizeof path, "/sequence/%s/503,200", key);
    result = call(client, "POST", path, &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    CHECK(result != NULL);
    CHECK_INT(gw_result_ok(result), 0);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_HTTP_STATUS);
    CHECK_STR(gw_result_error_kind_name(result), "http_status");
    CHECK_INT(gw_result_status(result), 503);
    CHECK_INT(gw_result_attempt_count(result), 1);
    CHECK(gw_result_error_message(result) != NULL && gw_result_error_message(result)[0] != '\0');
    printf("   POST 503 message: \"%s\"\n", gw_result_error_message(result));
    body = body_text(result); /* the failed response's body is kept */
    CHECK_MEMBER(body, "status", "503");
    free(body);
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 1);
    gw_client_free(client);
}

/* max_retries changes only the count of the route's policy: this route retries only 502,
 * after exactly 0.2 s, so 502, 502, 503 ends at the 503 after 3 attempts, where the client's
 * policy (503 retried too) would go on to the 200. */
static void test_max_retries_keeps_the_route_policy(void)
{
    char *config = config_with_base(
        "{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 0, \"initialDelay\": 0.5, \"statusCodes\": [502, 503]},"
        " \"routes\": {\"flaky\": {\"method\": \"GET\", \"pathPattern\": \"/sequence/:key/502,502,503,200\","
        " \"retry\": {\"maxRetries\": 0, \"initialDelay\": 0.2, \"multiplier\": 1, \"maxDelay\": 0.2,"
        " \"jitter\": \"none\", \"statusCodes\": [502]}}}}");
    gw_client *client = new_client_from_config(config);
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char params[128];
    const char *key = unique_key("max-retries");
    const char *attempts;
    free(config);
    if (client == NULL)
        return;
    snprintf(params, sizeof params, "{\"key\": \"%s\"}", key);
    options.route = "flaky";
    options.params_json = params;
    options.max_retries = 3;
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_status(result), 503);
    CHECK_INT(gw_result_attempt_count(result), 3);
    attempts = gw_result_attempts_json(result);
    CHECK_INT(count_members(attempts, "status", "502"), 2);
    CHECK_INT(count_members(attempts, "status", "503"), 1);
    CHECK_INT(count_members(attempts, "delay", "0.2"), 2);
    CHECK_INT(count_members(attempts, "delay", "null"), 1);
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 3);
    gw_client_free(client);
}

typedef struct retry_test_state {
    int calls;
    int32_t verdict;
    double delay;
    int first_number;
    int first_status;
    int first_kind;
} retry_test_state;

static int32_t retry_test(const gw_attempt *attempt, double *delay, void *user_data)
{
    retry_test_state *state = user_data;
    if (state->calls++ == 0) {
        state->first_number = gw_attempt_number(attempt);
        state->first_status = gw_attempt_status(attempt);
        state->first_kind = gw_attempt_error_kind(attempt);
    }
    if (state->verdict == GW_RETRY_RETRY && delay != NULL)
        *delay = state->delay;
    return state->verdict;
}

static void test_retry_test_function(void)
{
    char *config = config_with_base("{\"baseURL\": \"%s\", " FAST_RETRY "}");
    gw_client *client = new_client_from_config(config);
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    retry_test_state stop = {0, GW_RETRY_STOP, -1, 0, 0, 0};
    retry_test_state retry = {0, GW_RETRY_RETRY, 0.01, 0, 0, 0};
    gw_result *result = NULL;
    char path[128];
    const char *key;
    free(config);
    if (client == NULL)
        return;

    /* STOP overrides a policy that would retry this GET. */
    key = unique_key("stop");
    snprintf(path, sizeof path, "/sequence/%s/503,503,200", key);
    options.method = "GET";
    options.path = path;
    options.retry_test = retry_test;
    options.retry_test_user_data = &stop;
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(stop.calls, 1);
    CHECK_INT(stop.first_number, 1);
    CHECK_INT(stop.first_status, 503);
    CHECK_INT(stop.first_kind, GW_KIND_NONE); /* a response arrived */
    CHECK_INT(gw_result_attempt_count(result), 1);
    CHECK_INT(gw_result_status(result), 503);
    gw_result_free(result);
    CHECK_INT(server_count(client, key), 1);

    /* RETRY overrides a policy that would not retry this POST; asked once (one failed attempt). */
    key = unique_key("retry");
    snprintf(path, sizeof path, "/sequence/%s/503,200", key);
    options.method = "POST";
    options.retry_test_user_data = &retry;
    result = NULL;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    CHECK_INT(retry.calls, 1);
    CHECK_INT(gw_result_attempt_count(result), 2);
    CHECK_INT(gw_result_status(result), 200);
    gw_result_free(result);

    /* max_retries 0 in the call options: a 503 GET is not retried. */
    key = unique_key("noretry");
    snprintf(path, sizeof path, "/sequence/%s/503,200", key);
    options.method = "GET";
    options.retry_test = NULL;
    options.max_retries = 0;
    result = NULL;
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_attempt_count(result), 1);
    gw_result_free(result);
    gw_client_free(client);
}

/* ---- Failure observers ---------------------------------------------------------------------- */

typedef struct observer_state {
    pthread_mutex_t mutex;
    int calls;
    int last_status;
    int last_kind;
    int destroyed;
} observer_state;

static void count_failure(const gw_result *failure, void *user_data)
{
    observer_state *state = user_data;
    pthread_mutex_lock(&state->mutex);
    state->calls++;
    state->last_status = gw_result_status(failure);
    state->last_kind = gw_result_error_kind(failure);
    pthread_mutex_unlock(&state->mutex);
}

static void count_destroy(void *user_data)
{
    observer_state *state = user_data;
    pthread_mutex_lock(&state->mutex);
    state->destroyed++;
    pthread_mutex_unlock(&state->mutex);
}

static int observed(observer_state *state, int *status, int *kind)
{
    int calls;
    pthread_mutex_lock(&state->mutex);
    calls = state->calls;
    if (status)
        *status = state->last_status;
    if (kind)
        *kind = state->last_kind;
    pthread_mutex_unlock(&state->mutex);
    return calls;
}

static int destroyed(observer_state *state)
{
    int count;
    pthread_mutex_lock(&state->mutex);
    count = state->destroyed;
    pthread_mutex_unlock(&state->mutex);
    return count;
}

/* A port on 127.0.0.1 that nothing listens on: bound by us, then closed. */
static int closed_port(void)
{
    struct sockaddr_in address;
    socklen_t length = sizeof address;
    int port = 0;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&address, sizeof address) == 0 &&
        getsockname(fd, (struct sockaddr *)&address, &length) == 0)
        port = ntohs(address.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

static void test_failure_observer(void)
{
    static observer_state state = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0};
    static observer_state refused = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0};
    gw_client *client = new_client();
    gw_client *dead;
    gw_result *result;
    uint64_t id = 0, refused_id = 0;
    int32_t rc;
    int status = -1, kind = -1;
    char dead_config[256];
    if (client == NULL)
        return;

    CHECK_INT(gw_client_add_failure_observer(client, count_failure, &state, count_destroy, &id), GW_OK);
    result = call(client, "GET", "/status/404", &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_status(result), 404);
    gw_result_free(result);
    /* Observers run before the call's own completion, so before gw_call returns. */
    CHECK_INT(observed(&state, &status, &kind), 1);
    CHECK_INT(status, 404);
    CHECK_INT(kind, GW_KIND_HTTP_STATUS);

    result = call(client, "GET", "/echo", &rc); /* a success is not observed */
    CHECK_INT(rc, GW_OK);
    gw_result_free(result);
    CHECK_INT(observed(&state, NULL, NULL), 1);

    result = call(client, "GET", "/status/400", &rc);
    gw_result_free(result);
    CHECK_INT(observed(&state, NULL, NULL), 2);

    /* Removing the observer stops notifications and calls its destroy once. */
    CHECK_INT(gw_client_remove_failure_observer(client, id), GW_OK);
    CHECK_INT(destroyed(&state), 1);
    result = call(client, "GET", "/status/404", &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    gw_result_free(result);
    CHECK_INT(observed(&state, NULL, NULL), 2);
    CHECK_INT(gw_client_remove_failure_observer(client, id), GW_ERROR_INVALID_ARGUMENT);
    gw_client_free(client);
    CHECK_INT(destroyed(&state), 1); /* not again at free */

    /* Connection refused, retried by a fast policy: still one notification per call. */
    snprintf(dead_config, sizeof dead_config,
             "{\"baseURL\": \"http://127.0.0.1:%d\", " FAST_RETRY "}", closed_port());
    dead = new_client_from_config(dead_config);
    if (dead == NULL)
        return;
    CHECK_INT(gw_client_add_failure_observer(dead, count_failure, &refused, count_destroy, &refused_id), GW_OK);
    result = call(dead, "GET", "/echo", &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_CONNECT);
    CHECK_STR(gw_result_error_kind_name(result), "connect");
    CHECK_INT(gw_result_status(result), 0);
    {
        size_t length = 12345;
        CHECK(gw_result_body(result, &length) == NULL);
        CHECK_INT(length, 0);
        CHECK_STR(gw_result_headers_json(result), "[]"); /* no response */
    }
    printf("   connection refused: %d attempts, \"%s\"\n", (int)gw_result_attempt_count(result),
           gw_result_error_message(result));
    CHECK(gw_result_attempt_count(result) >= 1);
    gw_result_free(result);
    CHECK_INT(observed(&refused, &status, &kind), 1);
    CHECK_INT(status, 0);
    CHECK_INT(kind, GW_KIND_CONNECT);
    gw_client_free(dead);
    CHECK_INT(destroyed(&refused), 1); /* destroy runs when the client is freed */
}

/* ---- Plugins -------------------------------------------------------------------------------- */

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

static void test_plugins(void)
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

/* ---- Input validation: header injection, option ranges, messages, gw_request_fail ---------- */

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

static void test_validation(void)
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

/* ---- Cancellation, callbacks, free with calls in flight ------------------------------------- */

typedef struct async_state {
    latch done;
    int completions;
    int kind;
    int status;
    int32_t nested_rc;
    int nested_result_is_null;
    gw_client *client;
} async_state;

static void record_completion(gw_result *result, void *user_data)
{
    async_state *state = user_data;
    pthread_mutex_lock(&state->done.mutex);
    state->completions++;
    state->kind = gw_result_error_kind(result);
    state->status = gw_result_status(result);
    pthread_mutex_unlock(&state->done.mutex);
    gw_result_free(result);
    latch_count_down(&state->done);
}

static void test_cancel(void)
{
    static async_state state;
    gw_client *client = new_client();
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_call_handle *handle = NULL;
    double t0, elapsed;
    if (client == NULL)
        return;
    latch_init(&state.done);
    options.method = "GET";
    options.path = "/delay/5000";
    t0 = now_seconds();
    CHECK_INT(gw_call_async(client, &options, record_completion, &state, &handle), GW_OK);
    CHECK(handle != NULL);
    sleep_ms(200); /* let the attempt reach the server */
    CHECK_INT(gw_call_cancel(handle), GW_OK);
    CHECK_INT(latch_wait(&state.done, 1, 3.0), 1);
    elapsed = now_seconds() - t0;
    printf("   cancelled /delay/5000 completed after %.3f s\n", elapsed);
    CHECK(elapsed < 2.0);
    CHECK_INT(state.kind, GW_KIND_CANCELLED);
    CHECK_INT(state.status, 0);
    CHECK_INT(gw_call_cancel(handle), GW_OK); /* cancelling a finished call is harmless */
    sleep_ms(100);
    CHECK_INT(latch_count(&state.done), 1);
    gw_call_handle_free(handle);
    gw_client_free(client);
}

static void nested_completion(gw_result *result, void *user_data)
{
    async_state *state = user_data;
    static int marker;
    gw_result *nested = (gw_result *)&marker; /* must be reset to NULL */
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    options.method = "GET";
    options.path = "/echo";
    state->nested_rc = gw_call(state->client, &options, &nested);
    state->nested_result_is_null = nested == NULL;
    if (nested != NULL && nested != (gw_result *)&marker)
        gw_result_free(nested);
    gw_result_free(result);
    latch_count_down(&state->done);
}

static void test_blocking_call_in_callback(void)
{
    static async_state state;
    gw_client *client = new_client();
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    if (client == NULL)
        return;
    latch_init(&state.done);
    state.client = client;
    state.nested_rc = -1;
    options.method = "GET";
    options.path = "/echo";
    CHECK_INT(gw_call_async(client, &options, nested_completion, &state, NULL), GW_OK);
    CHECK_INT(latch_wait(&state.done, 1, 10.0), 1);
    CHECK_INT(state.nested_rc, GW_ERROR_WOULD_DEADLOCK);
    CHECK(state.nested_result_is_null);
    gw_client_free(client);
}

static void test_free_with_call_in_flight(void)
{
    static async_state state;
    static observer_state observer = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0};
    gw_client *client = new_client();
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_call_handle *handle = NULL;
    double t0, elapsed;
    if (client == NULL)
        return;
    latch_init(&state.done);
    CHECK_INT(gw_client_add_failure_observer(client, count_failure, &observer, count_destroy, NULL), GW_OK);
    options.method = "GET";
    options.path = "/delay/5000";
    CHECK_INT(gw_call_async(client, &options, record_completion, &state, &handle), GW_OK);
    sleep_ms(200);
    t0 = now_seconds();
    gw_client_free(client); /* blocks until the loop ended: the completion has run */
    elapsed = now_seconds() - t0;
    printf("   gw_client_free with /delay/5000 in flight took %.3f s\n", elapsed);
    CHECK(elapsed < 2.0);
    CHECK_INT(latch_count(&state.done), 1);
    CHECK_INT(state.kind, GW_KIND_CANCELLED);
    CHECK_INT(observed(&observer, NULL, NULL), 1);
    CHECK_INT(destroyed(&observer), 1);
    sleep_ms(200);
    CHECK_INT(latch_count(&state.done), 1); /* exactly once */
    gw_call_handle_free(handle);           /* a handle outlives its client */
}

static void free_from_completion(gw_result *result, void *user_data)
{
    async_state *state = user_data;
    state->kind = gw_result_error_kind(result);
    gw_result_free(result);
    gw_client_free(state->client); /* on the loop thread: must not join itself */
    latch_count_down(&state->done);
}

static void test_free_from_callback(void)
{
    static async_state state;
    gw_client *client = new_client();
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    if (client == NULL)
        return;
    latch_init(&state.done);
    state.client = client;
    state.kind = -1;
    options.method = "GET";
    options.path = "/echo";
    CHECK_INT(gw_call_async(client, &options, free_from_completion, &state, NULL), GW_OK);
    CHECK_INT(latch_wait(&state.done, 1, 10.0), 1);
    CHECK_INT(state.kind, GW_KIND_NONE);
    sleep_ms(100); /* the detached loop thread winds down */
}

static void test_timeouts(void)
{
    gw_client *client = new_client();
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    double t0, elapsed;
    if (client == NULL)
        return;
    options.method = "GET";
    options.path = "/delay/3000";
    options.max_retries = 0;
    options.attempt_timeout = 0.3;
    t0 = now_seconds();
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    elapsed = now_seconds() - t0;
    CHECK_INT(gw_result_error_kind(result), GW_KIND_TIMEOUT);
    CHECK_INT(gw_result_status(result), 0);
    CHECK(elapsed < 2.0);
    printf("   attempt_timeout 0.3: %s after %.3f s\n", gw_result_error_kind_name(result), elapsed);
    gw_result_free(result);

    options.max_retries = -1;
    options.attempt_timeout = 0;
    options.deadline = 0.3;
    result = NULL;
    t0 = now_seconds();
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    elapsed = now_seconds() - t0;
    CHECK_INT(gw_result_error_kind(result), GW_KIND_DEADLINE);
    CHECK(elapsed < 2.0);
    printf("   deadline 0.3: %s after %.3f s\n", gw_result_error_kind_name(result), elapsed);
    gw_result_free(result);
    gw_client_free(client);
}

/* ---- Resilience: policy_json, v1 options, circuit_open, retry budget --------------- */

/* Requests the test server saw for a /fault/<key>/... script. */
static int fault_count(gw_client *client, const char *key)
{
    char path[160];
    gw_result *result;
    int32_t rc;
    char *body;
    int count = -1;
    const char *at;
    snprintf(path, sizeof path, "/fault/%s/count", key);
    result = call(client, "GET", path, &rc);
    body = body_text(result);
    at = body ? strstr(body, "\"count\"") : NULL;
    if (rc != GW_OK || at == NULL || sscanf(at, "\"count\" : %d", &count) != 1)
        count = -1;
    free(body);
    gw_result_free(result);
    return count;
}

/* A version 1 caller: its struct ends at retry_test_user_data (no policy_json). */
typedef struct call_options_v1 {
    uint32_t version;
    const char *method, *path, *route, *params_json, *headers_json, *body_json, *object_type;
    int32_t max_retries;
    double attempt_timeout, deadline;
    gw_retry_test_fn retry_test;
    void *retry_test_user_data;
} call_options_v1;

static void test_resilience_options(void)
{
    char *config = config_with_base("{\"baseURL\": \"%s\", " FAST_RETRY "}");
    gw_client *client = new_client_from_config(config);
    gw_call_options options;
    call_options_v1 v1;
    gw_result *result = NULL;
    char path[160];
    const char *key;
    free(config);
    if (client == NULL)
        return;

    /* gw_call_options_init fills a v1 struct without writing past it; v1 calls still work. */
    memset(&v1, 0xAB, sizeof v1);
    CHECK_INT(gw_call_options_init((gw_call_options *)&v1, GW_CALL_OPTIONS_VERSION_1), GW_OK);
    CHECK_INT(v1.version, 1);
    CHECK_INT(v1.max_retries, -1);
    CHECK(v1.retry_test_user_data == NULL);
    key = unique_key("v1");
    snprintf(path, sizeof path, "/fault/%s/503,200", key);
    v1.method = "GET";
    v1.path = path;
    CHECK_INT(gw_call(client, (const gw_call_options *)&v1, &result), GW_OK);
    CHECK_INT(gw_result_attempt_count(result), 2);
    gw_result_free(result);

    /* policy_json: an Idempotency-Key per call makes a POST retryable after a reset. */
    CHECK_INT(gw_call_options_init(&options, GW_CALL_OPTIONS_VERSION), GW_OK);
    CHECK(options.policy_json == NULL);
    key = unique_key("postkey");
    snprintf(path, sizeof path, "/fault/%s/reset-after,503,200", key);
    options.method = "POST";
    options.path = path;
    options.body_json = "{}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED); /* by default: not retried */
    CHECK_INT(gw_result_error_kind(result), GW_KIND_NETWORK);
    CHECK_INT(gw_result_attempt_count(result), 1);
    gw_result_free(result);
    key = unique_key("postkey2");
    snprintf(path, sizeof path, "/fault/%s/reset-after,503,200", key);
    options.policy_json = "{\"retry\": {\"idempotencyKey\": true}}";
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    CHECK_INT(gw_result_attempt_count(result), 3);
    gw_result_free(result);
    CHECK_INT(fault_count(client, key), 3);

    /* A bad policy is an argument error naming the field. */
    options.policy_json = "{\"retry\": {\"jitter\": \"sometimes\"}}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "policy_json.retry.jitter");
    CHECK(result == NULL);
    /* maxResponseBytes is an integer of bytes in 1...2^62. */
    options.policy_json = "{\"maxResponseBytes\": 0}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "policy_json.maxResponseBytes");
    CHECK(result == NULL);
    options.policy_json = "{\"maxResponseBytes\": 1.5}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "policy_json.maxResponseBytes");
    gw_client_free(client);
}

static void test_circuit_open_and_budget(void)
{
    static observer_state seen = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0};
    char *config = config_with_base(
        "{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 3, \"initialDelay\": 0.01, \"jitter\": \"none\"}, "
        "\"retryBudget\": {\"maxTokens\": 4, \"tokenRatio\": 1}, "
        "\"circuitBreaker\": {\"failureRatio\": 1, \"minimumThroughput\": 3, \"breakDuration\": 1.0}}");
    gw_client *client = new_client_from_config(config);
    gw_client *counter;
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char path[160];
    const char *key;
    int kind = 0, status = -1;
    free(config);
    if (client == NULL)
        return;
    CHECK_INT(gw_client_add_failure_observer(client, count_failure, &seen, NULL, NULL), GW_OK);
    key = unique_key("down");
    snprintf(path, sizeof path, "/fault/%s/503", key);
    options.method = "GET";
    options.path = path;

    /* Budget: 4 tokens, retries need more than 2: 4 -> 3 (retry) -> 2 (stop). */
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_attempt_count(result), 2);
    CHECK_CONTAINS(gw_result_attempts_json(result), "retry budget");
    gw_result_free(result);
    CHECK_INT(observed(&seen, &status, &kind), 1);
    CHECK_INT(kind, GW_KIND_HTTP_STATUS);

    /* Third failure in the window (ratio 1): the breaker opens; the call fails with 1 attempt. */
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_attempt_count(result), 1);
    gw_result_free(result);

    /* Open: fails at once, nothing sent, the observer sees circuit_open once. */
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_CIRCUIT_OPEN);
    CHECK_STR(gw_result_error_kind_name(result), "circuit_open");
    CHECK_INT(gw_result_attempt_count(result), 0);
    CHECK_INT(gw_result_status(result), 0);
    gw_result_free(result);
    CHECK_INT(observed(&seen, &status, &kind), 3);
    CHECK_INT(kind, GW_KIND_CIRCUIT_OPEN);
    counter = new_client(); /* the breaker is per host: count through a client without one */
    CHECK_INT(fault_count(counter, key), 3);
    gw_client_free(counter);

    /* A call that turns the breaker off goes through (and, out of budget, is not retried). */
    options.policy_json = "{\"circuitBreaker\": false}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_HTTP_STATUS);
    CHECK_INT(gw_result_attempt_count(result), 1);
    gw_result_free(result);
    options.policy_json = NULL;

    /* After the break one trial decides: a success closes the breaker. */
    sleep_ms(1100);
    snprintf(path, sizeof path, "/fault/%s-ok/200", key);
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    gw_result_free(result);
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    gw_result_free(result);
    CHECK_INT(observed(&seen, NULL, NULL), 4);
    gw_client_free(client);
}

/* ---- Plugins v2, observers with filters, events, refreshing credentials ------------------ */

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

static void test_plugin_hooks_v2(void)
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

static void test_plugin_version_1_array(void)
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

/* The refresh: a thread rotates the realm's token with its own client, then answers. */
typedef struct refresh_state {
    char realm[64];
    int fail;
    int calls;
    pthread_mutex_t mutex;
} refresh_state;

typedef struct refresh_job {
    gw_refresh *refresh;
    refresh_state *state;
} refresh_job;

static char *rotate_token(const char *realm)
{
    gw_client *client = new_client();
    char path[128], *text, *start, *end, *token = NULL;
    int32_t rc;
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    snprintf(path, sizeof path, "/auth/%s/rotate", realm);
    options.method = "POST";
    options.path = path;
    rc = gw_call(client, &options, &result);
    text = rc == GW_OK ? body_text(result) : NULL;
    start = text ? strstr(text, "\"token\": \"") : NULL;
    if (start != NULL) {
        start += strlen("\"token\": \"");
        end = strchr(start, '"');
        if (end != NULL) {
            *end = '\0';
            token = strdup(start);
        }
    }
    free(text);
    gw_result_free(result);
    gw_client_free(client);
    return token;
}

/* Waits (at most 10 s) until the server has answered `count` requests of `realm` with 401:
 * a failing refresh answers only then, so every call is waiting on it (none is sent after
 * the failure, which would be entitled to a refresh of its own). */
static void wait_for_rejections(const char *realm, int count)
{
    gw_client *client = new_client();
    char path[128];
    int waited;
    snprintf(path, sizeof path, "/auth/%s/rotations", realm);
    for (waited = 0; waited < 1000; waited++) {
        int32_t rc;
        gw_result *result = call(client, "GET", path, &rc);
        char *text = body_text(result);
        const char *at = text ? strstr(text, "\"rejected\"") : NULL;
        int rejected = -1;
        if (at != NULL)
            sscanf(at, "\"rejected\" : %d", &rejected);
        free(text);
        gw_result_free(result);
        if (rejected >= count)
            break;
        sleep_ms(10);
    }
    gw_client_free(client);
}

static void *refresh_thread(void *argument)
{
    refresh_job *job = argument;
    if (job->state->fail)
        wait_for_rejections(job->state->realm, 20);
    char *token = job->state->fail ? NULL : rotate_token(job->state->realm);
    gw_refresh_complete(job->refresh, token);
    free(token);
    free(job);
    return NULL;
}

static void start_refresh(gw_refresh *refresh, const char *current_token, void *user_data)
{
    refresh_state *state = user_data;
    refresh_job *job = malloc(sizeof *job);
    pthread_t thread;
    (void)current_token;
    pthread_mutex_lock(&state->mutex);
    state->calls++;
    pthread_mutex_unlock(&state->mutex);
    job->refresh = refresh;
    job->state = state;
    pthread_create(&thread, NULL, refresh_thread, job);
    pthread_detach(thread);
}

typedef struct auth_outcomes {
    latch done;
    pthread_mutex_t mutex;
    int ok, auth, observed;
} auth_outcomes;

static void auth_completion(gw_result *result, void *user_data)
{
    auth_outcomes *outcomes = user_data;
    pthread_mutex_lock(&outcomes->mutex);
    if (gw_result_ok(result))
        outcomes->ok++;
    else if (gw_result_error_kind(result) == GW_KIND_AUTH && gw_result_status(result) == 401)
        outcomes->auth++;
    pthread_mutex_unlock(&outcomes->mutex);
    gw_result_free(result);
    latch_count_down(&outcomes->done);
}

static void auth_observer(const gw_result *failure, void *user_data)
{
    auth_outcomes *outcomes = user_data;
    pthread_mutex_lock(&outcomes->mutex);
    if (gw_result_status(failure) == 401)
        outcomes->observed++;
    pthread_mutex_unlock(&outcomes->mutex);
}

static void run_refresh_scenario(int fail)
{
    refresh_state state;
    auth_outcomes outcomes;
    gw_credential_options credential_options = GW_CREDENTIAL_OPTIONS_INIT;
    gw_credential *credential = NULL;
    gw_client_options options = GW_CLIENT_OPTIONS_INIT;
    gw_client *client = NULL;
    gw_call_options call_options = GW_CALL_OPTIONS_INIT;
    char path[128], *initial;
    int i;

    memset(&state, 0, sizeof state);
    pthread_mutex_init(&state.mutex, NULL);
    snprintf(state.realm, sizeof state.realm, "%s", unique_key(fail ? "cfail" : "crealm"));
    state.fail = fail;
    initial = rotate_token(state.realm); /* the server's token, which the client does not have */
    free(initial);
    memset(&outcomes, 0, sizeof outcomes);
    latch_init(&outcomes.done);
    pthread_mutex_init(&outcomes.mutex, NULL);

    credential_options.token = "stale";
    credential_options.refresh = start_refresh;
    credential_options.user_data = &state;
    CHECK_INT(gw_credential_new(&credential_options, &credential), GW_OK);
    options.base_url = base_url;
    options.credential = credential;
    CHECK_INT(gw_client_create(&options, &client), GW_OK);
    gw_credential_free(credential); /* the client keeps its reference */
    CHECK_INT(gw_client_add_failure_observer_filtered(client, "{\"statusCodes\": 401}", auth_observer, &outcomes,
                                                      NULL, NULL), GW_OK);
    snprintf(path, sizeof path, "/auth/%s", state.realm);
    call_options.method = "GET";
    call_options.path = path;
    for (i = 0; i < 20; i++)
        CHECK_INT(gw_call_async(client, &call_options, auth_completion, &outcomes, NULL), GW_OK);
    CHECK_INT(latch_wait(&outcomes.done, 20, 30), 20);
    CHECK_INT(state.calls, 1);
    if (fail) {
        CHECK_INT(outcomes.auth, 20);
        CHECK_INT(outcomes.observed, 20);
    } else {
        CHECK_INT(outcomes.ok, 20);
        CHECK_INT(outcomes.observed, 0);
    }
    gw_client_free(client);
    latch_destroy(&outcomes.done);
    pthread_mutex_destroy(&outcomes.mutex);
    pthread_mutex_destroy(&state.mutex);
}

static void test_refreshing_credential(void)
{
    step("refreshing credential: 20 concurrent 401s, one refresh");
    run_refresh_scenario(0);
    step("refreshing credential: a failed refresh");
    run_refresh_scenario(1);
}

static void count_status(const gw_result *failure, void *user_data)
{
    int *seen = user_data;
    seen[gw_result_status(failure) == 0 ? 0 : 1]++;
}

static void test_filtered_observers(void)
{
    int unauthorized[2] = {0, 0}, offline[2] = {0, 0};
    char url[64];
    gw_client *clients[2];
    gw_result *result;
    int32_t rc;
    int i;
    step("filtered observers: 401 and no connection");
    snprintf(url, sizeof url, "http://127.0.0.1:%d", closed_port());
    clients[0] = new_client();
    CHECK_INT(gw_client_new(url, &clients[1]), GW_OK);
    for (i = 0; i < 2; i++) {
        CHECK_INT(gw_client_add_failure_observer_filtered(clients[i], "{\"statusCodes\": [401]}", count_status,
                                                          unauthorized, NULL, NULL), GW_OK);
        CHECK_INT(gw_client_add_failure_observer_filtered(clients[i], "{\"noResponse\": true}", count_status,
                                                          offline, NULL, NULL), GW_OK);
        gw_result_free(call(clients[i], "GET", "/status/401", &rc));
        gw_result_free(call(clients[i], "GET", "/status/500", &rc));
        gw_client_free(clients[i]);
    }
    CHECK_INT(unauthorized[1], 1);
    CHECK_INT(unauthorized[0], 0);
    CHECK_INT(offline[0], 2);
    CHECK_INT(offline[1], 0);
    CHECK_INT(gw_client_add_failure_observer_filtered(NULL, NULL, count_status, NULL, NULL, NULL),
              GW_ERROR_INVALID_ARGUMENT);
    clients[0] = new_client();
    CHECK_INT(gw_client_add_failure_observer_filtered(clients[0], "{\"kinds\": [\"nope\"]}", count_status, NULL,
                                                      NULL, NULL), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "unknown error kind");
    result = call(clients[0], "GET", "/echo", &rc);
    gw_result_free(result);
    gw_client_free(clients[0]);
}

static char event_log[512];

static void record_event(const gw_event *event, void *user_data)
{
    (void)user_data;
    append_entry(event_log, sizeof event_log, gw_event_kind(event), " ");
    if (strcmp(gw_event_kind(event), "attempt_finished") == 0)
        CHECK_CONTAINS(gw_event_json(event), "\"first_byte\"");
}

static char redirect_events[1024];

static void record_redirect_event(const gw_event *event, void *user_data)
{
    (void)user_data;
    if (strcmp(gw_event_kind(event), "attempt_finished") == 0)
        snprintf(redirect_events, sizeof redirect_events, "%s", gw_event_json(event));
}

/* Redirects through the C ABI: policy_json "redirects" (checked, naming the field), the hops
 * in the attempts JSON and gw_event_json (redacted URLs), the last hop's URL in the metadata,
 * and a refusal's kind, status and Location. The shared cases cover the origin rules. */
static void test_redirects(void)
{
    char *config = config_with_base(
        "{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 0}, \"mappings\": {\"E\": {\"attributes\": {\"path\": \"path\"}}},"
        " \"responseDescriptors\": [{\"mapping\": \"E\", \"pathPattern\": \"/redirect/:n\"}]}");
    gw_client *client = new_client_from_config(config);
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char expected[512];
    uint64_t id = 0;
    free(config);
    if (client == NULL)
        return;

    options.path = "/redirect/2?access_token=C-SECRET";
    options.policy_json = "{\"redirects\": {\"max\": 51}}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK(result == NULL);
    CHECK_STR(gw_last_error_message(), "policy_json.redirects.max: 51 is out of range 0...50");
    options.policy_json = "{\"redirects\": {\"follow\": \"all\"}}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "policy_json.redirects.follow: unknown value \"all\"");

    CHECK_INT(gw_client_add_event_monitor(client, record_redirect_event, NULL, NULL, &id), GW_OK);
    options.policy_json = NULL;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    snprintf(expected, sizeof expected, "\"redirects\":[{\"status\":302,\"url\":\"%s/redirect/1\"},"
             "{\"status\":302,\"url\":\"%s/redirect/0\"}]", base_url, base_url);
    CHECK_CONTAINS(gw_result_attempts_json(result), expected);
    CHECK_CONTAINS(redirect_events, expected);
    snprintf(expected, sizeof expected, "\"url\":\"%s/redirect/0\"", base_url);
    CHECK_CONTAINS(gw_result_metadata_json(result), expected);
    CHECK_MEMBER(gw_result_mapped_first(result, ""), "path", "\"/redirect/0\"");
    gw_result_free(result);
    CHECK_INT(gw_client_remove_event_monitor(client, id), GW_OK);

    options.policy_json = "{\"redirects\": false}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_REDIRECT);
    CHECK_STR(gw_result_error_kind_name(result), "redirect");
    CHECK_INT(gw_result_status(result), 302);
    CHECK_STR(gw_result_header(result, "Location"), "/redirect/1");
    snprintf(expected, sizeof expected, "redirect not followed: 302 to %s/redirect/1: following redirects is off", base_url);
    CHECK_CONTAINS(gw_result_error_message(result), expected);
    CHECK_CONTAINS(gw_result_attempts_json(result), "\"redirects\":[]");
    gw_result_free(result);
    gw_client_free(client);
}

static char log_lines[8192];
static pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;

static void capture_log(const char *line, void *user_data)
{
    (void)user_data;
    pthread_mutex_lock(&log_mutex);
    append_entry(log_lines, sizeof log_lines, line, "\n");
    pthread_mutex_unlock(&log_mutex);
}

static void test_events_logs_metrics_and_shared_objects(void)
{
    gw_client *client;
    gw_result *result;
    uint64_t id = 0;
    int32_t rc;
    char path[128], command[1024], *metrics = NULL, *text, *config;
    const char *secret = "c-s3cr3t-token";
    FILE *file;
    step("events, redacted logs, metrics, a shared-object plugin");

    config = config_with_base("{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 1, \"initialDelay\": 0.01}}");
    client = new_client_from_config(config);
    free(config);
    CHECK_INT(gw_client_add_event_monitor(client, record_event, NULL, NULL, &id), GW_OK);
    snprintf(path, sizeof path, "/sequence/%s/503,200", unique_key("events"));
    gw_result_free(call(client, "GET", path, &rc));
    CHECK_STR(event_log, "call_started attempt_started attempt_finished retry_scheduled attempt_started "
                         "attempt_finished call_finished ");
    CHECK_INT(gw_client_remove_event_monitor(client, id), GW_OK);
    CHECK_INT(gw_client_remove_event_monitor(client, id), GW_ERROR_INVALID_ARGUMENT);
    gw_client_free(client);

    CHECK_INT(gw_set_log_sink(capture_log, NULL), GW_OK);
    file = fopen("gw_test_plugin.c", "w");
    CHECK(file != NULL);
    if (file == NULL)
        return;
    fputs("#include \"gatewire.h\"\n"
          "static int32_t prepare(gw_request *r, void *u) { (void)u; return gw_request_set_header(r, \"X-From-Shared-Object\", \"yes\"); }\n"
          "int32_t gw_plugin_entry(gw_plugin *p) { p->version = GW_PLUGIN_VERSION; p->name = \"shared\"; p->prepare = prepare; return 0; }\n",
          file);
    fclose(file);
    snprintf(command, sizeof command, "cc -shared -fPIC -I%s -o ./libgw_test_plugin.so gw_test_plugin.c -L%s -lGatewire",
             GW_INCLUDE_DIR, GW_LIBRARY_DIR);
    CHECK_INT(system(command), 0);
    {
        char cwd[512], *json = malloc(2048);
        CHECK(getcwd(cwd, sizeof cwd) != NULL);
        snprintf(json, 2048,
                 "{\"baseURL\": \"%s\", \"plugins\": [{\"name\": \"bearer\", \"token\": \"%s\"}, "
                 "{\"name\": \"apiKey\", \"query\": \"api_key\", \"value\": \"%s\"}, {\"name\": \"requestId\"}, "
                 "{\"name\": \"log\", \"headers\": true}, {\"name\": \"metrics\"}, {\"path\": \"%s/libgw_test_plugin.so\"}]}",
                 base_url, secret, secret, cwd);
        client = new_client_from_config(json);
        free(json);
    }
    result = call(client, "GET", "/echo", &rc);
    CHECK_INT(rc, GW_OK);
    text = body_text(result);
    CHECK_CONTAINS(text, "\"x-from-shared-object\": \"yes\"");
    CHECK_CONTAINS(text, "x-request-id");
    CHECK_CONTAINS(text, secret); /* the server got it ... */
    free(text);
    gw_result_free(result);
    gw_result_free(call(client, "GET", "/status/401", &rc));
    CHECK_INT(gw_client_metrics_json(client, &metrics), GW_OK);
    CHECK_MEMBER(metrics, "calls", "2");
    gw_string_free(metrics);
    gw_client_free(client);
    gw_set_log_sink(NULL, NULL);
    CHECK_CONTAINS(log_lines, "<redacted>");
    CHECK(strstr(log_lines, secret) == NULL); /* ... but no log line did */
    remove("gw_test_plugin.c");
    remove("libgw_test_plugin.so");
}

/* ---- Secrets never leave --------------------------------------------------------------------
 * Secrets planted everywhere (base URL userinfo, bearer token, the apiKey plugin's header and
 * query parameter, configured names, call headers and query parameters) reach the server but
 * no string the library hands out: every string accessor of gw_result, the observer's result,
 * event JSON and log lines. */

static const char *const planted_secrets[] = {"BASEPASS_C1", "BEARER_C2", "APIKEY_C3", "APIQ_C4", "QTOKEN_C5",
                                              "QKEY_C6", "QSIG_C7", "CALLKEY_C8", "SIGH_C9", "gwuser"};
static char leak_text[65536];
static pthread_mutex_t leak_mutex = PTHREAD_MUTEX_INITIALIZER;

static void collect_text(const char *text)
{
    pthread_mutex_lock(&leak_mutex);
    append_entry(leak_text, sizeof leak_text, text ? text : "", "\n");
    pthread_mutex_unlock(&leak_mutex);
}

/* Every string accessor of a result (its body aside: the server's bytes). */
static void collect_result(const gw_result *result)
{
    collect_text(gw_result_error_kind_name(result));
    collect_text(gw_result_error_message(result));
    collect_text(gw_result_method(result));
    collect_text(gw_result_path(result));
    collect_text(gw_result_headers_json(result));
    collect_text(gw_result_mapped_json(result));
    collect_text(gw_result_error_objects_json(result));
    collect_text(gw_result_attempts_json(result));
    collect_text(gw_result_mapped_at(result, ""));
    collect_text(gw_result_mapped_first(result, ""));
    collect_text(gw_result_metadata_json(result));
}

static void collect_event(const gw_event *event, void *user_data)
{
    (void)user_data;
    collect_text(gw_event_json(event));
}

static void collect_failure(const gw_result *failure, void *user_data)
{
    (void)user_data;
    collect_result(failure);
}

static void test_secrets_never_leave(void)
{
    gw_client *client;
    gw_result *result;
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    char config[2048], path[128];
    const char *params = "{\"access_token\": \"QTOKEN_C5\", \"api_key\": \"QKEY_C6\", \"sig\": \"QSIG_C7\", \"page\": 2}";
    const char *headers = "{\"X-Api-Key\": \"CALLKEY_C8\", \"X-Signature\": \"SIGH_C9\"}";
    char *text;
    size_t i;
    step("secrets never leave: results, observers, events, logs");

    snprintf(config, sizeof config,
             "{\"baseURL\": \"http://gwuser:BASEPASS_C1@%s\", \"auth\": {\"type\": \"bearer\", \"token\": \"BEARER_C2\"},"
             " \"redactHeaders\": [\"X-Signature\"], \"redactQuery\": [\"sig\"],"
             " \"plugins\": [{\"name\": \"apiKey\", \"header\": \"X-Custom-Key\", \"value\": \"APIKEY_C3\"},"
             " {\"name\": \"apiKey\", \"query\": \"q_auth\", \"value\": \"APIQ_C4\"}, {\"name\": \"log\", \"headers\": true}],"
             " \"mappings\": {\"Fault\": {\"attributes\": {\"@metadata.url\": \"url\", \"@metadata.query.sig\": \"sig\"}}},"
             " \"responseDescriptors\": [{\"mapping\": \"Fault\", \"pathPattern\": \"/fault/:key/:step\"}]}",
             base_url + strlen("http://"));
    leak_text[0] = '\0';
    log_lines[0] = '\0';
    CHECK_INT(gw_set_log_sink(capture_log, NULL), GW_OK);
    client = new_client_from_config(config);
    CHECK_INT(gw_client_add_event_monitor(client, collect_event, NULL, NULL, NULL), GW_OK);
    CHECK_INT(gw_client_add_failure_observer(client, collect_failure, NULL, NULL, NULL), GW_OK);
    options.method = "GET";
    options.params_json = params;
    options.headers_json = headers;

    options.path = "/echo"; /* the server sees every secret ... */
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    text = body_text(result);
    for (i = 0; i < sizeof planted_secrets / sizeof planted_secrets[0]; i++)
        if (strcmp(planted_secrets[i], "BASEPASS_C1") != 0 && strcmp(planted_secrets[i], "gwuser") != 0)
            CHECK_CONTAINS(text, planted_secrets[i]);
    free(text);
    collect_result(result);
    gw_result_free(result);

    snprintf(path, sizeof path, "/fault/%s/200", unique_key("planted"));
    options.path = path;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    collect_result(result);
    CHECK_CONTAINS(gw_result_path(result), "access_token=<redacted>");
    CHECK_CONTAINS(gw_result_path(result), "page=2");
    CHECK_CONTAINS(gw_result_mapped_json(result), "\"sig\":\"<redacted>\"");
    gw_result_free(result);

    options.path = "/status/404";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    collect_result(result);
    gw_result_free(result);
    gw_client_free(client);
    gw_set_log_sink(NULL, NULL);
    collect_text(log_lines);

    CHECK_CONTAINS(leak_text, "X-Api-Key: <redacted>");
    CHECK_CONTAINS(leak_text, "\"url\":\"http://127.0.0.1:");
    for (i = 0; i < sizeof planted_secrets / sizeof planted_secrets[0]; i++)
        check(strstr(leak_text, planted_secrets[i]) == NULL, __FILE__, __LINE__, "%s leaked:\n%s", planted_secrets[i],
              leak_text);
}

/* ---- Times in JSON -----------------------------------------------------------------------
 * Every real number in the attempts, event and metrics documents is written as "%.11g"
 * (include/gatewire.h, "Times in JSON"): reformatting the value that way gives the same text. */

/* Non-zero when every real number (a number token with '.', 'e' or 'E') in `json` is the
 * time format's text of its own value; counts them in *reals. Strings are skipped. With
 * `verbose`, a mismatch is printed. */
static int times_in_time_format(const char *json, int *reals, int verbose)
{
    const char *p = json;
    if (json == NULL)
        return 0;
    while (*p) {
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (*p)
                p++;
        } else if (*p == '-' || (*p >= '0' && *p <= '9')) {
            char token[64], expected[64], *e;
            size_t n = strspn(p, "-+0123456789.eE");
            if (n >= sizeof token)
                return 0;
            memcpy(token, p, n);
            token[n] = '\0';
            p += n;
            if (strpbrk(token, ".eE") == NULL)
                continue; /* an integer */
            (*reals)++;
            snprintf(expected, sizeof expected, "%.11g", strtod(token, NULL));
            if ((e = strchr(expected, 'e')) != NULL) { /* Jansson: "e-6", not "e-06"; "e5", not "e+05" */
                char *digits = e + 1, *out = e + 1;
                if (*digits == '-')
                    *out++ = *digits++;
                else if (*digits == '+')
                    digits++;
                while (*digits == '0' && digits[1])
                    digits++;
                memmove(out, digits, strlen(digits) + 1);
            }
            if (strpbrk(expected, ".e") == NULL)
                strcat(expected, ".0");
            if (strcmp(token, expected) != 0) {
                if (verbose)
                    fprintf(stderr, "time format: %s is not %s\n", token, expected);
                return 0;
            }
        } else {
            p++;
        }
    }
    return 1;
}

static char time_events[8192];
static int time_events_bad;
static int time_event_reals;
static pthread_mutex_t time_events_mutex = PTHREAD_MUTEX_INITIALIZER;

static void record_time_event(const gw_event *event, void *user_data)
{
    const char *json = gw_event_json(event);
    (void)user_data;
    pthread_mutex_lock(&time_events_mutex);
    if (!times_in_time_format(json, &time_event_reals, 1))
        time_events_bad++;
    if (json != NULL)
        append_entry(time_events, sizeof time_events, json, "\n");
    pthread_mutex_unlock(&time_events_mutex);
}

static void test_times_in_json(void)
{
    gw_client *client;
    gw_result *result;
    uint64_t id = 0;
    int32_t rc;
    int reals = 0;
    char path[128], *metrics = NULL, *config;
    const char *attempts;
    step("times in attempts, events and metrics JSON: one format");

    /* Self-checks of the checker: 17 digits and a C-style exponent are not the format. (It
     * accepts fewer digits, so the delay below pins the 11: a 12-digit initialDelay, without
     * jitter, reads back cut to 11 digits in the attempts and the retry_scheduled event.) */
    CHECK(times_in_time_format("{\"start\":9.945e-6,\"d\":0.25,\"t\":86399.999999,\"z\":0.0,\"n\":1}", &reals, 1));
    CHECK_INT(reals, 4);
    CHECK(!times_in_time_format("{\"elapsed\":6.7199998738942668e-6}", &reals, 0));
    CHECK(!times_in_time_format("{\"elapsed\":6.72e-06}", &reals, 0));

    config = config_with_base("{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 1, \"initialDelay\": 0.0123456789123,"
                              " \"jitter\": \"none\"}, \"plugins\": [{\"name\": \"metrics\"}]}");
    client = new_client_from_config(config);
    free(config);
    if (client == NULL)
        return;
    time_events[0] = '\0';
    time_events_bad = 0;
    time_event_reals = 0;
    CHECK_INT(gw_client_add_event_monitor(client, record_time_event, NULL, NULL, &id), GW_OK);
    snprintf(path, sizeof path, "/sequence/%s/503,200", unique_key("times"));
    result = call(client, "GET", path, &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_attempt_count(result), 2);

    attempts = gw_result_attempts_json(result);
    reals = 0;
    if (!times_in_time_format(attempts, &reals, 1)) {
        check(0, __FILE__, __LINE__, "the attempts JSON is in the time format");
        fprintf(stderr, "attempts: %s\n", attempts ? attempts : "NULL");
    }
    CHECK(reals >= 2 * 7 + 1); /* per attempt start, duration and 5 timings; one delay */
    CHECK_CONTAINS(attempts, "\"delay\":0.012345678912,"); /* 11 significant digits */

    pthread_mutex_lock(&time_events_mutex);
    CHECK_INT(time_events_bad, 0);
    CHECK(time_event_reals >= 7 + 2 * 5); /* elapsed of 7 events, 2 timings objects */
    CHECK_CONTAINS(time_events, "\"elapsed\":");
    CHECK_CONTAINS(time_events, "\"delay\":0.012345678912,");
    if (time_events_bad)
        fprintf(stderr, "events:\n%s", time_events);
    pthread_mutex_unlock(&time_events_mutex);
    CHECK_INT(gw_client_remove_event_monitor(client, id), GW_OK);

    CHECK_INT(gw_client_metrics_json(client, &metrics), GW_OK);
    reals = 0;
    CHECK(times_in_time_format(metrics, &reals, 1));
    CHECK_INT(reals, 3); /* attempt_time, first_byte_time, max_attempt_time */
    gw_string_free(metrics);
    gw_result_free(result);
    gw_client_free(client);
}

/* ---- Authentication against httpbin ----------------------------------------------------------
 * httpbin's /bearer answers 401 without a bearer token and 200 with any; /basic-auth/<u>/<p>
 * answers 401 unless the basic credentials match. */

/* A refresh that answers `token` from another thread after `delay_ms`, counting its calls. */
typedef struct httpbin_refresh {
    const char *token;
    long delay_ms;
    int calls;
    int had_token; /* a refresh was asked with a current token (there should be none) */
    pthread_mutex_t mutex;
} httpbin_refresh;

typedef struct httpbin_refresh_job {
    gw_refresh *refresh;
    httpbin_refresh *state;
} httpbin_refresh_job;

static void *httpbin_refresh_thread(void *argument)
{
    httpbin_refresh_job *job = argument;
    if (job->state->delay_ms > 0)
        sleep_ms(job->state->delay_ms);
    gw_refresh_complete(job->refresh, job->state->token);
    free(job);
    return NULL;
}

static void httpbin_start_refresh(gw_refresh *refresh, const char *current_token, void *user_data)
{
    httpbin_refresh *state = user_data;
    httpbin_refresh_job *job = malloc(sizeof *job);
    pthread_t thread;
    if (job == NULL)
        abort();
    pthread_mutex_lock(&state->mutex);
    state->calls++;
    if (current_token != NULL)
        state->had_token = 1;
    pthread_mutex_unlock(&state->mutex);
    job->refresh = refresh;
    job->state = state;
    pthread_create(&thread, NULL, httpbin_refresh_thread, job);
    pthread_detach(thread);
}

/* A client for httpbin with a credential that has no token and refreshes through `state`. */
static gw_client *httpbin_client_with_credential(httpbin_refresh *state, gw_credential **out_credential)
{
    gw_credential_options credential_options = GW_CREDENTIAL_OPTIONS_INIT;
    gw_client_options options = GW_CLIENT_OPTIONS_INIT;
    gw_credential *credential = NULL;
    gw_client *client = NULL;
    credential_options.token = NULL; /* unsigned until the first refresh */
    credential_options.refresh = httpbin_start_refresh;
    credential_options.user_data = state;
    CHECK_INT(gw_credential_new(&credential_options, &credential), GW_OK);
    options.base_url = httpbin_url;
    options.credential = credential;
    CHECK_INT(gw_client_create(&options, &client), GW_OK);
    *out_credential = credential; /* the caller frees its reference after the calls */
    return client;
}

/* The "status" members of an attempt history, in order, as "401,200". */
static void attempt_statuses(const char *json, char *out, size_t size)
{
    const char *at = json;
    out[0] = '\0';
    while (at != NULL && (at = strstr(at, "\"status\"")) != NULL) {
        const char *p = at + strlen("\"status\"");
        char number[16];
        while (*p == ' ')
            p++;
        at = p;
        if (*p != ':')
            continue;
        snprintf(number, sizeof number, "%s%ld", out[0] ? "," : "", strtol(p + 1, NULL, 10));
        strncat(out, number, size - strlen(out) - 1);
    }
}

static void test_httpbin_refresh_replays_inside_the_call(void)
{
    httpbin_refresh state;
    gw_credential *credential = NULL;
    gw_client *client;
    gw_result *result;
    int32_t rc;
    int failures[2] = {0, 0};
    char statuses[64], *text;
    step("httpbin: a credential without a token gets a 401, refreshes once, replays in the call");
    memset(&state, 0, sizeof state);
    pthread_mutex_init(&state.mutex, NULL);
    state.token = "c-fresh-token";
    client = httpbin_client_with_credential(&state, &credential);
    CHECK_INT(gw_client_add_failure_observer(client, count_status, failures, NULL, NULL), GW_OK);
    result = call(client, "GET", "/bearer", &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    CHECK_INT(gw_result_attempt_count(result), 2);
    attempt_statuses(gw_result_attempts_json(result), statuses, sizeof statuses);
    CHECK_STR(statuses, "401,200");
    text = body_text(result);
    CHECK_MEMBER(text, "authenticated", "true");
    CHECK_MEMBER(text, "token", "\"c-fresh-token\"");
    free(text);
    gw_result_free(result);
    result = call(client, "GET", "/bearer", &rc); /* signed from now on: no 401, no refresh */
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_attempt_count(result), 1);
    gw_result_free(result);
    CHECK_INT(gw_credential_refresh_count(credential), 1);
    CHECK_INT(state.calls, 1);
    CHECK_INT(state.had_token, 0);
    CHECK_INT(failures[0] + failures[1], 0);
    gw_client_free(client);
    gw_credential_free(credential);
    pthread_mutex_destroy(&state.mutex);
}

static void test_httpbin_wrong_password_observers(void)
{
    int unauthorized[2] = {0, 0}, offline[2] = {0, 0};
    char config[512], *text;
    gw_client *client;
    gw_result *result;
    int32_t rc;
    step("httpbin: a wrong password fires the 401 observer once, the no-connection one never");
    snprintf(config, sizeof config,
             "{\"baseURL\": \"%s\", \"plugins\": [{\"name\": \"basic\", \"username\": \"ann\", \"password\": \"wrong\"}]}",
             httpbin_url);
    client = new_client_from_config(config);
    CHECK_INT(gw_client_add_failure_observer_filtered(client, "{\"statusCodes\": [401]}", count_status, unauthorized,
                                                      NULL, NULL), GW_OK);
    CHECK_INT(gw_client_add_failure_observer_filtered(client, "{\"noResponse\": true}", count_status, offline, NULL,
                                                      NULL), GW_OK);
    result = call(client, "GET", "/basic-auth/ann/secret", &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_status(result), 401);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_HTTP_STATUS);
    gw_result_free(result);
    gw_client_free(client);
    CHECK_INT(unauthorized[1], 1);
    CHECK_INT(unauthorized[0], 0);
    CHECK_INT(offline[0] + offline[1], 0);

    snprintf(config, sizeof config,
             "{\"baseURL\": \"%s\", \"plugins\": [{\"name\": \"basic\", \"username\": \"ann\", \"password\": \"secret\"}]}",
             httpbin_url);
    client = new_client_from_config(config);
    result = call(client, "GET", "/basic-auth/ann/secret", &rc);
    CHECK_INT(rc, GW_OK);
    text = body_text(result);
    CHECK_MEMBER(text, "authenticated", "true");
    free(text);
    gw_result_free(result);
    gw_client_free(client);
}

static void test_httpbin_concurrent_calls_share_one_refresh(void)
{
    httpbin_refresh state;
    auth_outcomes outcomes;
    gw_credential *credential = NULL;
    gw_client *client;
    gw_call_options call_options = GW_CALL_OPTIONS_INIT;
    int i;
    step("httpbin: 5 concurrent calls without a token cause exactly one refresh");
    memset(&state, 0, sizeof state);
    pthread_mutex_init(&state.mutex, NULL);
    state.token = "c-shared-token";
    state.delay_ms = 300; /* answers late, so every call's 401 arrives while it runs */
    memset(&outcomes, 0, sizeof outcomes);
    latch_init(&outcomes.done);
    pthread_mutex_init(&outcomes.mutex, NULL);
    client = httpbin_client_with_credential(&state, &credential);
    call_options.method = "GET";
    call_options.path = "/bearer";
    for (i = 0; i < 5; i++)
        CHECK_INT(gw_call_async(client, &call_options, auth_completion, &outcomes, NULL), GW_OK);
    CHECK_INT(latch_wait(&outcomes.done, 5, 30), 5);
    CHECK_INT(outcomes.ok, 5);
    CHECK_INT(state.calls, 1);
    CHECK_INT(gw_credential_refresh_count(credential), 1);
    gw_client_free(client);
    gw_credential_free(credential);
    latch_destroy(&outcomes.done);
    pthread_mutex_destroy(&outcomes.mutex);
    pthread_mutex_destroy(&state.mutex);
}

/* ---- destroy runs once per registration, also when out_id is NULL ---------------------------- */

static int null_id_destroyed;
static void count_null_id_destroy(void *user_data) { (void)user_data; __atomic_add_fetch(&null_id_destroyed, 1, __ATOMIC_SEQ_CST); }
static void ignore_failure(const gw_result *failure, void *user_data) { (void)failure; (void)user_data; }
static void ignore_event(const gw_event *event, void *user_data) { (void)event; (void)user_data; }

static void test_destroy_without_out_id(void)
{
    gw_client *client = new_client();
    null_id_destroyed = 0;
    CHECK_INT(gw_client_add_failure_observer(client, ignore_failure, NULL, count_null_id_destroy, NULL), GW_OK);
    CHECK_INT(gw_client_add_failure_observer_filtered(client, "{\"statusCodes\": 401}", ignore_failure, NULL,
                                                      count_null_id_destroy, NULL), GW_OK);
    CHECK_INT(gw_client_add_event_monitor(client, ignore_event, NULL, count_null_id_destroy, NULL), GW_OK);
    gw_client_free(client);
    CHECK_INT(__atomic_load_n(&null_id_destroyed, __ATOMIC_SEQ_CST), 3);
}

/* ---- Main -------------------------------------------------------------------------------------- */

/* ---- Completion queues and gw_result_read ------------------------------------------------ */

#define QUEUED 40

/* gw_queue_wait from a completion (the loop thread): a wait is refused at once with
 * GW_ERROR_WOULD_DEADLOCK (it would stall the loop that fills the queue), a poll is allowed. */
typedef struct queue_wait_state {
    latch done;
    gw_queue *queue;
    int32_t waiting_rc, forever_rc, poll_rc;
    double waited;
    char message[512];
} queue_wait_state;

static void wait_in_completion(gw_result *result, void *user_data)
{
    queue_wait_state *state = user_data;
    gw_result *taken[4];
    size_t count = 99;
    double t0 = now_seconds();
    state->waiting_rc = gw_queue_wait(state->queue, 5.0, taken, NULL, 4, &count);
    snprintf(state->message, sizeof state->message, "%s", gw_last_error_message());
    state->forever_rc = gw_queue_wait(state->queue, -1.0, taken, NULL, 4, &count);
    state->waited = now_seconds() - t0;
    state->poll_rc = gw_queue_wait(state->queue, 0, taken, NULL, 4, &count);
    gw_result_free(result);
    latch_count_down(&state->done);
}

static void test_queue_wait_on_the_loop_thread(void)
{
    gw_client *client = new_client();
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    static queue_wait_state state;
    step("gw_queue_wait in a completion: refused, not a stalled loop");
    if (client == NULL)
        return;
    latch_init(&state.done);
    CHECK_INT(gw_queue_new(&state.queue), GW_OK);
    options.method = "GET";
    options.path = "/echo";
    CHECK_INT(gw_call_async(client, &options, wait_in_completion, &state, NULL), GW_OK);
    CHECK(latch_wait(&state.done, 1, 10.0));
    CHECK_INT(state.waiting_rc, GW_ERROR_WOULD_DEADLOCK);
    CHECK_INT(state.forever_rc, GW_ERROR_WOULD_DEADLOCK);
    CHECK(state.waited < 1.0);
    CHECK_CONTAINS(state.message, "gw_queue_wait: called on an event-loop thread");
    CHECK_INT(state.poll_rc, GW_OK);
    gw_client_free(client);
    gw_queue_free(state.queue);
    latch_destroy(&state.done);
}

static void test_completion_queue(void)
{
    static char paths[QUEUED][32];
    gw_client *client = new_client();
    gw_queue *queue = NULL, *late = NULL;
    gw_result *results[8];
    uint64_t tags[8];
    int seen[QUEUED] = {0};
    size_t count = 99, taken = 0;
    int i, bad_body = 0, bad_status = 0;
    double t0;
    if (client == NULL)
        return;
    CHECK_INVALID(gw_queue_new(NULL));
    CHECK_INT(gw_queue_new(&queue), GW_OK);
    CHECK(queue != NULL);
    CHECK_INT((int)gw_queue_count(queue), 0);
    CHECK_INT((int)gw_queue_count(NULL), 0);
    /* Arguments. */
    CHECK_INVALID(gw_queue_wait(NULL, 0, results, tags, 8, &count));
    CHECK_INVALID(gw_queue_wait(queue, 0, NULL, tags, 8, &count));
    CHECK_INVALID(gw_queue_wait(queue, 0, results, tags, 0, &count));
    CHECK_INVALID(gw_queue_wait(queue, 0, results, tags, 8, NULL));
    {
        gw_call_options options = GW_CALL_OPTIONS_INIT;
        options.method = "GET";
        options.path = "/echo";
        CHECK_INVALID(gw_call_async_queued(client, &options, NULL, 1, NULL));
        CHECK_INVALID(gw_call_async_queued(NULL, &options, queue, 1, NULL));
        CHECK_INVALID(gw_call_async_queued(client, NULL, queue, 1, NULL));
    }
    /* An empty queue: no wait at 0, a bounded wait with a timeout. */
    count = 99;
    CHECK_INT(gw_queue_wait(queue, 0, results, tags, 8, &count), GW_OK);
    CHECK_INT((int)count, 0);
    t0 = now_seconds();
    CHECK_INT(gw_queue_wait(queue, 0.05, results, tags, 8, &count), GW_OK);
    CHECK_INT((int)count, 0);
    CHECK(now_seconds() - t0 >= 0.04);

    /* Many calls, each result exactly once with its tag, taken at most 8 at a time. */
    for (i = 0; i < QUEUED; i++) {
        gw_call_options options = GW_CALL_OPTIONS_INIT;
        gw_call_handle *handle = NULL;
        snprintf(paths[i], sizeof paths[i], "/echo?i=%d", i);
        options.method = "GET";
        options.path = paths[i];
        CHECK_INT(gw_call_async_queued(client, &options, queue, (uint64_t)(1000 + i), i % 2 ? &handle : NULL), GW_OK);
        if (i % 2) {
            CHECK(handle != NULL);
            gw_call_handle_free(handle);
        }
    }
    t0 = now_seconds();
    while (taken < QUEUED && now_seconds() - t0 < 10.0) {
        size_t k;
        CHECK_INT(gw_queue_wait(queue, -1.0, results, tags, 8, &count), GW_OK);
        CHECK(count >= 1 && count <= 8);
        for (k = 0; k < count; k++) {
            gw_result_fields fields;
            int index = (int)tags[k] - 1000;
            memset(&fields, 0, sizeof fields);
            fields.version = GW_RESULT_FIELDS_VERSION;
            CHECK_INT(gw_result_read(results[k], &fields), GW_OK);
            if (index >= 0 && index < QUEUED)
                seen[index]++;
            if (fields.ok != 1 || fields.status != 200 || fields.error_kind != GW_KIND_NONE || fields.attempt_count != 1)
                bad_status++;
            {
                size_t length = 0;
                const uint8_t *body = gw_result_body(results[k], &length);
                if (fields.body != body || fields.body_length != length || length == 0 ||
                    strstr((const char *)fields.body, "\"query\"") == NULL)
                    bad_body++;
            }
            gw_result_free(results[k]);
        }
        taken += count;
    }
    CHECK_INT((int)taken, QUEUED);
    CHECK_INT(bad_status, 0);
    CHECK_INT(bad_body, 0);
    for (i = 0; i < QUEUED; i++)
        check(seen[i] == 1, __FILE__, __LINE__, "tag %d taken %d times", 1000 + i, seen[i]);
    CHECK_INT((int)gw_queue_count(queue), 0);

    /* A failed call arrives as a failure; gw_result_read reports it. */
    {
        gw_call_options options = GW_CALL_OPTIONS_INIT;
        gw_result_fields fields;
        options.route = "no-such-route";
        CHECK_INT(gw_call_async_queued(client, &options, queue, 7, NULL), GW_OK);
        CHECK_INT(gw_queue_wait(queue, 10.0, results, tags, 8, &count), GW_OK);
        CHECK_INT((int)count, 1);
        if (count == 1) {
            memset(&fields, 0, sizeof fields);
            CHECK_INT(gw_result_read(results[0], &fields), GW_ERROR_VERSION);
            fields.version = GW_RESULT_FIELDS_VERSION;
            CHECK_INT(gw_result_read(results[0], &fields), GW_OK);
            CHECK_INT((int)tags[0], 7);
            CHECK_INT(fields.ok, 0);
            CHECK_INT(fields.error_kind, GW_KIND_INVALID_ARGUMENT);
            CHECK_INT(fields.error_kind, gw_result_error_kind(results[0]));
            gw_result_free(results[0]);
        }
        CHECK_INVALID(gw_result_read(NULL, &fields));
    }

    /* Freed with calls in flight and results never taken: the calls finish, nothing leaks
     * or crashes (checked under the sanitizers). */
    CHECK_INT(gw_queue_new(&late), GW_OK);
    for (i = 0; i < 4; i++) {
        gw_call_options options = GW_CALL_OPTIONS_INIT;
        options.method = "GET";
        options.path = i < 2 ? "/echo" : "/delay/50";
        CHECK_INT(gw_call_async_queued(client, &options, late, (uint64_t)i, NULL), GW_OK);
    }
    gw_queue_free(late);
    gw_queue_free(NULL);
    sleep_ms(150);
    gw_queue_free(queue);
    gw_client_free(client);
}

/* ---- The tests, by name ----------------------------------------------------------------- */

/* Every test, in the order a run without names runs them; `uses_httpbin`: the test calls
 * httpbin at $GW_HTTPBIN_URL besides the test server. `--list` prints one test a line, its name
 * then " httpbin" when it uses httpbin: CMake registers each as its own ctest, c_api.<name>,
 * with httpbin started only for those (cmake/GatewireListCTests.cmake). */
typedef struct named_test {
    const char *name;
    void (*run)(void);
    int uses_httpbin;
} named_test;

static const named_test tests[] = {
    {"version", test_version, 0},
    {"null_arguments", test_null_arguments, 0},
    {"versions", test_versions, 0},
    {"null_handles", test_null_handles, 0},
    {"config_errors", test_config_errors, 0},
    {"blocking_get", test_blocking_get, 0},
    {"headers_and_body", test_headers_and_body, 0},
    {"concurrent_async", test_concurrent_async, 0},
    {"mapping", test_mapping, 0},
    {"routes", test_routes, 0},
    {"retry", test_retry, 0},
    {"max_retries_keeps_the_route_policy", test_max_retries_keeps_the_route_policy, 0},
    {"retry_test_function", test_retry_test_function, 0},
    {"failure_observer", test_failure_observer, 0},
    {"plugins", test_plugins, 0},
    {"cancel", test_cancel, 0},
    {"blocking_call_in_callback", test_blocking_call_in_callback, 0},
    {"free_with_call_in_flight", test_free_with_call_in_flight, 0},
    {"free_from_callback", test_free_from_callback, 0},
    {"timeouts", test_timeouts, 0},
    {"resilience_options", test_resilience_options, 0},
    {"circuit_open_and_budget", test_circuit_open_and_budget, 0},
    {"plugin_hooks_v2", test_plugin_hooks_v2, 0},
    {"plugin_version_1_array", test_plugin_version_1_array, 0},
    {"refreshing_credential", test_refreshing_credential, 0},
    {"filtered_observers", test_filtered_observers, 0},
    {"events_logs_metrics_and_shared_objects", test_events_logs_metrics_and_shared_objects, 0},
    {"redirects", test_redirects, 0},
    {"secrets_never_leave", test_secrets_never_leave, 0},
    {"times_in_json", test_times_in_json, 0},
    {"httpbin_refresh_replays_inside_the_call", test_httpbin_refresh_replays_inside_the_call, 1},
    {"httpbin_wrong_password_observers", test_httpbin_wrong_password_observers, 1},
    {"httpbin_concurrent_calls_share_one_refresh", test_httpbin_concurrent_calls_share_one_refresh, 1},
    {"destroy_without_out_id", test_destroy_without_out_id, 0},
    {"completion_queue", test_completion_queue, 0},
    {"queue_wait_on_the_loop_thread", test_queue_wait_on_the_loop_thread, 0},
    {"validation", test_validation, 0},
};

#define TEST_COUNT (sizeof tests / sizeof tests[0])

static const named_test *find_test(const char *name)
{
    size_t i;
    for (i = 0; i < TEST_COUNT; i++) {
        if (strcmp(tests[i].name, name) == 0)
            return &tests[i];
    }
    return NULL;
}

/* Runs one test; a test that made no check at all fails (it would pass whatever it saw). */
static void run_test(const named_test *test)
{
    int before = passed + failed;
    step(test->name);
    test->run();
    if (passed + failed == before) {
        failed++;
        fprintf(stderr, "[%s] made no checks\n", test->name);
    }
}

/* test_gatewire_c [--list | NAME...]: runs the named tests (all of them without names), or
 * lists the names. An unknown name is a usage error (exit 2), so a misspelt ctest fails. */
int main(int argc, char **argv)
{
    int i;
    int needs_httpbin = argc == 1; /* all tests run */
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_alarm;
    sigaction(SIGALRM, &action, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);
    main_thread = pthread_self();

    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        size_t t;
        for (t = 0; t < TEST_COUNT; t++)
            printf("%s%s\n", tests[t].name, tests[t].uses_httpbin ? " httpbin" : "");
        return 0;
    }
    for (i = 1; i < argc; i++) {
        const named_test *test = find_test(argv[i]);
        if (test == NULL) {
            fprintf(stderr, "test_gatewire: no test named \"%s\" (--list lists them)\n", argv[i]);
            return 2;
        }
        if (test->uses_httpbin)
            needs_httpbin = 1;
    }

    base_url = getenv("GW_TEST_BASE_URL");
    if (base_url == NULL || base_url[0] == '\0') {
        fprintf(stderr, "test_gatewire: GW_TEST_BASE_URL is not set; run me through "
                        "Tests/support/run_with_server.py (a missing server is a failure)\n");
        printf("0 passed, 1 failed\n");
        return 2;
    }
    httpbin_url = getenv("GW_HTTPBIN_URL");
    if (needs_httpbin && (httpbin_url == NULL || httpbin_url[0] == '\0')) {
        fprintf(stderr, "test_gatewire: GW_HTTPBIN_URL is not set; run me through "
                        "Tests/support/run_with_server.py --httpbin (a missing server is a failure)\n");
        printf("0 passed, 1 failed\n");
        return 2;
    }
    printf("gatewire %s against %s and httpbin at %s\n", gw_version() ? gw_version() : "(null)", base_url,
           httpbin_url ? httpbin_url : "(not started)");

    if (argc == 1) {
        size_t t;
        for (t = 0; t < TEST_COUNT; t++)
            run_test(&tests[t]);
    }
    for (i = 1; i < argc; i++)
        run_test(find_test(argv[i]));

    alarm(0);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
