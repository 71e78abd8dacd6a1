/*
 * What the C API tests share (Tests/c/api): the assertions, which count passes and failures
 * and name the test in progress; the servers' URLs; a watchdog step; small helpers (a blocking
 * call, a client, unique server keys, JSON members in text); a latch; and the failure
 * observers, the refused-before-sending call and the log capture that tests in several files
 * use. Each test file includes this header first (it sets _POSIX_C_SOURCE before any system
 * header).
 */
#ifndef GW_API_TEST_SUPPORT_H
#define GW_API_TEST_SUPPORT_H

#define _POSIX_C_SOURCE 200809L

/* Written against the 0.x flat gw_call_options (version 4, policy_json): kept so. */
#define GW_USE_CALL_OPTIONS_V4
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

extern int passed;

extern int failed;

extern const char *volatile current_test;

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

void check(int ok, const char *file, int line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

extern const char *base_url;

extern const char *httpbin_url;

/* How many members "key": value the JSON text has, whatever the spacing around the colon. */
int count_members(const char *json, const char *key, const char *value);

int has_member(const char *json, const char *key, const char *value);

/* The result's body as a NUL-terminated copy (the library's is pointer + length). */
char *body_text(const gw_result *result);

void sleep_ms(long ms);

double now_seconds(void);

/* A key no earlier run of the (long-lived) server has counted. */
const char *unique_key(const char *prefix);

/* A client for base_url, or a failed check and NULL. */
gw_client *new_client(void);

gw_client *new_client_from_config(const char *config);

/* A blocking call with method + path; the result (maybe NULL) and *rc. */
gw_result *call(gw_client *client, const char *method, const char *path, int32_t *rc);

/* A config JSON with the test server as base URL: "%s" in `format` is the base URL. */
char *config_with_base(const char *format);

/* A completion latch: a mutex + condition variable counter with a bounded wait. */
typedef struct latch {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int count;
} latch;

void latch_init(latch *l);

void latch_destroy(latch *l);

void latch_count_down(latch *l);

int latch_count(latch *l);

/* Waits until the count reaches `target` or `seconds` pass; returns the count reached. */
int latch_wait(latch *l, int target, double seconds);

void on_alarm(int sig);

/* Names the test (or a step of it) in progress for the watchdog and failed checks, restarts
 * the watchdog's 60 s and prints the name. */
void step(const char *name);

/* Appends entry, then separator, to the text in buffer (size bytes), cutting what does not
 * fit. The caller holds whatever lock guards buffer. */
void append_entry(char *buffer, size_t size, const char *entry, const char *separator);

#define CHECK_INVALID(expr)                                                                     \
    do {                                                                                        \
        int32_t rc_ = (expr);                                                                   \
        const char *m_ = gw_last_error_message();                                               \
        check(rc_ == GW_ERROR_INVALID_ARGUMENT, __FILE__, __LINE__,                             \
              "%s returns GW_ERROR_INVALID_ARGUMENT (got %d)", #expr, (int)rc_);                \
        check(m_ != NULL && m_[0] != '\0', __FILE__, __LINE__,                                  \
              "%s leaves a gw_last_error_message() (got \"%s\")", #expr, m_ ? m_ : "NULL");     \
    } while (0)

void noop_completion(gw_result *result, void *user_data);

extern pthread_t main_thread;

#define FAST_RETRY "\"retry\": {\"maxRetries\": 3, \"initialDelay\": 0.01, \"maxDelay\": 0.05}"

/* Requests the test server saw for a /sequence/KEY/... script, or -1. */
int server_count(gw_client *client, const char *key);
/* Requests the test server saw for a /fault/KEY/... script, or -1. */
int fault_count(gw_client *client, const char *key);

/* Makes a client from options, whose plugin refuses in prepare, and calls GET
 * /sequence/KEY/200 with a fresh key prefixed key_prefix: the call must fail before anything
 * is sent (kind plugin, no attempt, and the server, asked on a new client, saw nothing).
 * Returns the failed result for the caller's checks of its message (free it), or NULL when
 * the client could not be made. */
gw_result *call_refused_before_sending(const gw_client_options *options, const char *key_prefix);

typedef struct observer_state {
    pthread_mutex_t mutex;
    int calls;
    int last_status;
    int last_kind;
    int destroyed;
} observer_state;

void count_failure(const gw_result *failure, void *user_data);

void count_destroy(void *user_data);

int observed(observer_state *state, int *status, int *kind);

int destroyed(observer_state *state);

typedef struct auth_outcomes {
    latch done;
    pthread_mutex_t mutex;
    int ok, auth, observed;
} auth_outcomes;

void auth_completion(gw_result *result, void *user_data);

void count_status(const gw_result *failure, void *user_data);

extern char log_lines[8192];

extern pthread_mutex_t log_mutex;

void capture_log(const char *line, void *user_data);

#endif
