/* Upload and download progress (gw_call_options.on_progress): a slow httpbin /drip download,
 * an upload to the test server, a retried call's attempts, and no reports without a callback. */
#include "support.h"
#include "tests.h"

#define MAX_REPORTS 256

/* Every report one callback saw (it runs on the loop thread; read after the call). */
typedef struct progress_log {
    pthread_mutex_t mutex;
    gw_progress reports[MAX_REPORTS];
    int count;
} progress_log;

static void log_progress(const gw_progress *progress, void *user_data)
{
    progress_log *log = user_data;
    pthread_mutex_lock(&log->mutex);
    if (log->count < MAX_REPORTS)
        log->reports[log->count++] = *progress;
    pthread_mutex_unlock(&log->mutex);
}

static int log_count(progress_log *log)
{
    int count;
    pthread_mutex_lock(&log->mutex);
    count = log->count;
    pthread_mutex_unlock(&log->mutex);
    return count;
}

/* Checks the log's counts never go down within an attempt and that each attempt
 * 1...attempts has exactly one final report, its last; returns the final of `attempt`. */
static gw_progress check_reports(progress_log *log, int attempts, int attempt)
{
    gw_progress final = {0};
    int finals = 0;
    for (int i = 0; i < log->count; i++) {
        const gw_progress *report = &log->reports[i];
        if (i > 0 && report->attempt == log->reports[i - 1].attempt) {
            CHECK(report->bytes_sent >= log->reports[i - 1].bytes_sent);
            CHECK(report->bytes_received >= log->reports[i - 1].bytes_received);
        }
        if (i > 0)
            CHECK(report->attempt >= log->reports[i - 1].attempt);
        if (report->is_final) {
            finals++;
            CHECK_INT(report->attempt, finals);
            CHECK(i == log->count - 1 || log->reports[i + 1].attempt == report->attempt + 1);
            if (report->attempt == attempt)
                final = *report;
        }
    }
    CHECK_INT(finals, attempts);
    return final;
}

void test_progress_download(void)
{
    char config[256];
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    progress_log log = {.count = 0};
    gw_client *client;
    gw_result *result = NULL;
    gw_progress final;
    pthread_mutex_init(&log.mutex, NULL);
    snprintf(config, sizeof config, "{\"baseURL\": \"%s\"}", httpbin_url);
    client = new_client_from_config(config);
    if (client == NULL)
        return;

    step("progress: a 2 s download of 40 bytes reports several times, ending at 40");
    options.path = "/drip?numbytes=40&duration=2&delay=0";
    options.on_progress = log_progress;
    options.on_progress_user_data = &log;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    final = check_reports(&log, 1, 1);
    CHECK_INT(final.bytes_received, 40);
    CHECK_INT(final.bytes_to_receive, 40);
    CHECK(log.count >= 4);
    CHECK(log.count <= 2 * 10 + 1 + 5); /* ten a second and the final, with slack */
    gw_result_free(result);
    gw_client_free(client);
    pthread_mutex_destroy(&log.mutex);
}

void test_progress_upload_and_retries(void)
{
    enum { SIZE = 3 * 1024 * 1024 };
    char path[128];
    char *config = config_with_base("{\"baseURL\": \"%s\", " FAST_RETRY "}");
    gw_client *client = new_client_from_config(config);
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    progress_log log = {.count = 0};
    gw_result *result = NULL;
    gw_progress final;
    char *body = malloc(SIZE);
    int seen;
    free(config);
    if (client == NULL || body == NULL)
        abort();
    memset(body, 'a', SIZE);
    pthread_mutex_init(&log.mutex, NULL);

    step("progress: an upload of 3 MiB ends at its size");
    snprintf(path, sizeof path, "/fault/%s/200", unique_key("progress-upload"));
    options.method = "POST";
    options.path = path;
    options.body = body;
    options.body_length = SIZE;
    options.on_progress = log_progress;
    options.on_progress_user_data = &log;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    final = check_reports(&log, 1, 1);
    CHECK_INT(final.bytes_sent, SIZE);
    CHECK_INT(final.bytes_to_send, SIZE);
    gw_result_free(result);

    step("progress: a retried call reports each attempt, one final report each");
    log.count = 0;
    snprintf(path, sizeof path, "/fault/%s/503,503,200", unique_key("progress-retry"));
    options.method = "GET";
    options.body = NULL;
    options.body_length = 0;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    CHECK_INT(gw_result_attempt_count(result), 3);
    final = check_reports(&log, 3, 3);
    CHECK(final.bytes_received > 0);
    CHECK_INT(final.bytes_received, final.bytes_to_receive);
    gw_result_free(result);

    step("progress: a call without on_progress reports nothing");
    seen = log_count(&log);
    options.on_progress = NULL;
    snprintf(path, sizeof path, "/bytes/100000");
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    CHECK_INT(log_count(&log), seen);
    gw_result_free(result);

    step("progress: a version 3 struct (no on_progress) still calls");
    {
        gw_call_options v3;
        memset(&v3, 0x7f, sizeof v3); /* what a version 3 caller's memory past form_json may hold */
        CHECK_INT(gw_call_options_init(&v3, GW_CALL_OPTIONS_VERSION_3), GW_OK);
        CHECK(v3.on_progress == (gw_progress_fn)(uintptr_t)0x7f7f7f7f7f7f7f7fULL); /* not written */
        v3.path = "/bytes/10";
        CHECK_INT(gw_call(client, &v3, &result), GW_OK);
        CHECK_INT(log_count(&log), seen);
        gw_result_free(result);
    }
    gw_client_free(client);
    free(body);
    pthread_mutex_destroy(&log.mutex);
}
