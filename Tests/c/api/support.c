/* The definitions behind support.h. */
#include "support.h"

int passed;

int failed;

const char *volatile current_test = "start-up";

void check(int ok, const char *file, int line, const char *format, ...)
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

const char *base_url;

const char *httpbin_url;

int count_members(const char *json, const char *key, const char *value)
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

int has_member(const char *json, const char *key, const char *value)
{
    return count_members(json, key, value) > 0;
}

char *body_text(const gw_result *result)
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

void sleep_ms(long ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *unique_key(const char *prefix)
{
    static char keys[32][64];
    static int next;
    char *key = keys[next++ % 32];
    snprintf(key, sizeof keys[0], "%s-%ld-%d", prefix, (long)getpid(), next);
    return key;
}

gw_client *new_client(void)
{
    gw_client *client = NULL;
    int32_t rc = gw_client_new(base_url, &client);
    check(rc == GW_OK && client != NULL, __FILE__, __LINE__, "gw_client_new(%s): rc %d, %s",
          base_url, (int)rc, gw_last_error_message());
    return client;
}

gw_client *new_client_from_config(const char *config)
{
    gw_client *client = NULL;
    int32_t rc = gw_client_new_from_config(config, &client);
    check(rc == GW_OK && client != NULL, __FILE__, __LINE__,
          "gw_client_new_from_config: rc %d, %s\n  config: %s", (int)rc, gw_last_error_message(), config);
    return client;
}

gw_result *call(gw_client *client, const char *method, const char *path, int32_t *rc)
{
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    options.method = method;
    options.path = path;
    *rc = gw_call(client, &options, &result);
    return result;
}

char *config_with_base(const char *format)
{
    size_t size = strlen(format) + strlen(base_url) + 1;
    char *config = malloc(size);
    if (config == NULL)
        abort();
    snprintf(config, size, format, base_url);
    return config;
}

void latch_init(latch *l)
{
    pthread_mutex_init(&l->mutex, NULL);
    pthread_cond_init(&l->cond, NULL);
    l->count = 0;
}

void latch_destroy(latch *l)
{
    pthread_cond_destroy(&l->cond);
    pthread_mutex_destroy(&l->mutex);
}

void latch_count_down(latch *l)
{
    pthread_mutex_lock(&l->mutex);
    l->count++;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->mutex);
}

int latch_count(latch *l)
{
    int count;
    pthread_mutex_lock(&l->mutex);
    count = l->count;
    pthread_mutex_unlock(&l->mutex);
    return count;
}

int latch_wait(latch *l, int target, double seconds)
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

void on_alarm(int sig)
{
    static const char prefix[] = "watchdog: no progress for 60 s in test ";
    const char *name = current_test;
    (void)sig;
    if (write(2, prefix, sizeof prefix - 1) < 0 || write(2, name, strlen(name)) < 0 ||
        write(2, "\n", 1) < 0) {
    }
    _exit(3);
}

void step(const char *name)
{
    current_test = name;
    alarm(60);
    printf("-- %s\n", name);
    fflush(stdout);
}

void append_entry(char *buffer, size_t size, const char *entry, const char *separator)
{
    strncat(buffer, entry, size - strlen(buffer) - 2);
    strncat(buffer, separator, size - strlen(buffer) - 1);
}

void noop_completion(gw_result *result, void *user_data)
{
    (void)user_data;
    gw_result_free(result);
}

pthread_t main_thread;

/* Requests the test server saw for the script KEY of ENDPOINT (/ENDPOINT/KEY/count), or -1. */
static int script_count(gw_client *client, const char *endpoint, const char *key)
{
    char path[160];
    gw_result *result;
    int32_t rc;
    char *body;
    int count = -1;
    const char *at;
    snprintf(path, sizeof path, "/%s/%s/count", endpoint, key);
    result = call(client, "GET", path, &rc);
    body = body_text(result);
    at = body ? strstr(body, "\"count\"") : NULL;
    if (rc != GW_OK || at == NULL || sscanf(at, "\"count\" : %d", &count) != 1)
        count = -1;
    free(body);
    gw_result_free(result);
    return count;
}

int server_count(gw_client *client, const char *key)
{
    return script_count(client, "sequence", key);
}

int fault_count(gw_client *client, const char *key)
{
    return script_count(client, "fault", key);
}

gw_result *call_refused_before_sending(const gw_client_options *options, const char *key_prefix)
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

void count_failure(const gw_result *failure, void *user_data)
{
    observer_state *state = user_data;
    pthread_mutex_lock(&state->mutex);
    state->calls++;
    state->last_status = gw_result_status(failure);
    state->last_kind = gw_result_error_kind(failure);
    pthread_mutex_unlock(&state->mutex);
}

void count_destroy(void *user_data)
{
    observer_state *state = user_data;
    pthread_mutex_lock(&state->mutex);
    state->destroyed++;
    pthread_mutex_unlock(&state->mutex);
}

int observed(observer_state *state, int *status, int *kind)
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

int destroyed(observer_state *state)
{
    int count;
    pthread_mutex_lock(&state->mutex);
    count = state->destroyed;
    pthread_mutex_unlock(&state->mutex);
    return count;
}

void auth_completion(gw_result *result, void *user_data)
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

void count_status(const gw_result *failure, void *user_data)
{
    int *seen = user_data;
    seen[gw_result_status(failure) == 0 ? 0 : 1]++;
}

char log_lines[8192];

pthread_mutex_t log_mutex = PTHREAD_MUTEX_INITIALIZER;

void capture_log(const char *line, void *user_data)
{
    (void)user_data;
    pthread_mutex_lock(&log_mutex);
    append_entry(log_lines, sizeof log_lines, line, "\n");
    pthread_mutex_unlock(&log_mutex);
}
