/* Latency under load: an open-loop client (requests sent on a fixed schedule, whatever the
 * responses do, as wrk2 sends them), so a slow response delays nothing that follows and
 * shows in the figures as the time its successors waited (no coordinated omission).
 *
 * Usage: openloop curl URL RATE SECONDS EXPECT_BYTES
 *        openloop gatewire CONFIG_FILE ROUTE RATE SECONDS EXPECT_BYTES
 *   curl:     raw libcurl multi on one thread; the schedule is a timerfd polled beside the
 *             transfers (curl_multi_poll's extra descriptor), so a send is late by the
 *             loop's own work only; easy handles are reused, connections capped at 100 (as
 *             Gatewire's default maxConnections);
 *   gatewire: Gatewire's C ABI; a sender thread sleeps to each send time (clock_nanosleep,
 *             absolute) and calls gw_call_async, as an application thread would.
 * Request i is due at start + i / RATE (RATE in requests per second, SECONDS of schedule).
 * Its latency is its completion time minus its due time, in microseconds. The first second
 * is a warm-up (connections open): it is sent and checked but not counted. Prints one JSON
 * line (see common.h) with p50_us, p99_us, p999_us and max_us. Exit status 1 when any
 * response is wrong. */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <errno.h>
#include <gatewire.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "common.h"

static double start_time, rate;
static long total, warmup;
static double *latency_us;  /* per request; written once, by the thread that completes it */
static size_t expect;

static double due(long i) { return start_time + (double)i / rate; }

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The nearest-rank percentile of the sorted latencies. */
static double percentile(const double *sorted, long count, double p) {
    long rank = (long)ceil(p / 100.0 * (double)count);
    if (rank < 1) rank = 1;
    return sorted[rank - 1];
}

static void report(long ok, double elapsed, double cpu) {
    long counted = total - warmup;
    qsort(latency_us + warmup, (size_t)counted, sizeof(double), by_value);
    const double *sorted = latency_us + warmup;
    char extra[256];
    snprintf(extra, sizeof extra,
             "\"rate\": %.1f, \"counted\": %ld, \"p50_us\": %.1f, \"p99_us\": %.1f, \"p999_us\": %.1f, \"max_us\": %.1f", rate,
             counted, percentile(sorted, counted, 50), percentile(sorted, counted, 99), percentile(sorted, counted, 99.9),
             sorted[counted - 1]);
    bench_report(total, ok, elapsed, cpu, extra);
}

/* ---- raw libcurl ------------------------------------------------------------------------ */
typedef struct slot {
    CURL *easy;
    long request;
    size_t length;
    struct slot *next_free;
} slot;

static size_t on_data(char *ptr, size_t size, size_t count, void *user) {
    (void)ptr;
    ((slot *)user)->length += size * count;
    return size * count;
}

static void arm(int timer, double when) {
    struct itimerspec spec = {0};
    double whole = floor(when);
    spec.it_value.tv_sec = (time_t)whole;
    spec.it_value.tv_nsec = (long)((when - whole) * 1e9);
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
    timerfd_settime(timer, TFD_TIMER_ABSTIME, &spec, NULL);
}

static int run_curl(const char *url) {
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, 100L);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 104L);
    int timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    slot *free_slots = NULL;
    long sent = 0, done = 0, ok = 0;
    double cpu0 = bench_cpu();
    start_time = bench_now() + 0.01;
    arm(timer, start_time);
    while (done < total) {
        double now = bench_now();
        for (; sent < total && due(sent) <= now; sent++) {
            slot *s = free_slots;
            if (s) {
                free_slots = s->next_free;
            } else {
                s = calloc(1, sizeof *s);
                s->easy = curl_easy_init();
                curl_easy_setopt(s->easy, CURLOPT_URL, url);
                curl_easy_setopt(s->easy, CURLOPT_NOSIGNAL, 1L);
                curl_easy_setopt(s->easy, CURLOPT_WRITEFUNCTION, on_data);
                curl_easy_setopt(s->easy, CURLOPT_WRITEDATA, s);
                curl_easy_setopt(s->easy, CURLOPT_PRIVATE, s);
            }
            s->request = sent;
            s->length = 0;
            curl_multi_add_handle(multi, s->easy);
        }
        if (sent < total) arm(timer, due(sent));
        int running = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            slot *s;
            curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&s);
            long status = 0;
            curl_easy_getinfo(message->easy_handle, CURLINFO_RESPONSE_CODE, &status);
            latency_us[s->request] = (bench_now() - due(s->request)) * 1e6;
            ok += message->data.result == CURLE_OK && status == 200 && s->length == expect;
            done++;
            curl_multi_remove_handle(multi, s->easy);
            s->next_free = free_slots;
            free_slots = s;
        }
        if (done < total) {
            struct curl_waitfd wake = {.fd = timer, .events = CURL_WAIT_POLLIN};
            curl_multi_poll(multi, &wake, sent < total ? 1 : 0, 1000, NULL);
            uint64_t expirations;
            if (read(timer, &expirations, sizeof expirations) < 0 && errno != EAGAIN) perror("timerfd");
        }
    }
    double elapsed = bench_now() - start_time, cpu = bench_cpu() - cpu0;
    report(ok, elapsed, cpu);
    while (free_slots) {
        slot *s = free_slots;
        free_slots = s->next_free;
        curl_easy_cleanup(s->easy);
        free(s);
    }
    curl_multi_cleanup(multi);
    close(timer);
    return ok == total ? 0 : 1;
}

/* ---- Gatewire's C ABI ------------------------------------------------------------------- */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;
static long settled, verified;

static void on_done(gw_result *result, void *user_data) {
    long request = (long)(intptr_t)user_data;
    latency_us[request] = (bench_now() - due(request)) * 1e6;
    size_t length = 0;
    gw_result_body(result, &length);
    int good = gw_result_ok(result) && gw_result_status(result) == 200 && length == expect;
    gw_result_free(result);
    pthread_mutex_lock(&lock);
    verified += good;
    if (++settled == total) pthread_cond_signal(&finished);
    pthread_mutex_unlock(&lock);
}

static int run_gatewire(const char *config_path, const char *route) {
    char *config = bench_read_file(config_path);
    gw_client *client = NULL;
    if (!config || gw_client_new_from_config(config, &client) != GW_OK) {
        fprintf(stderr, "client: %s\n", gw_last_error_message());
        return 1;
    }
    free(config);
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    options.route = route;
    double cpu0 = bench_cpu();
    start_time = bench_now() + 0.01;
    for (long i = 0; i < total; i++) {
        double when = due(i), whole = floor(when);
        struct timespec at = {.tv_sec = (time_t)whole, .tv_nsec = (long)((when - whole) * 1e9)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR) {}
        if (gw_call_async(client, &options, on_done, (void *)(intptr_t)i, NULL) != GW_OK) {
            fprintf(stderr, "gw_call_async: %s\n", gw_last_error_message());
            return 1;
        }
    }
    pthread_mutex_lock(&lock);
    while (settled < total) pthread_cond_wait(&finished, &lock);
    long ok = verified;
    pthread_mutex_unlock(&lock);
    double elapsed = bench_now() - start_time, cpu = bench_cpu() - cpu0;
    report(ok, elapsed, cpu);
    gw_client_free(client);
    return ok == total ? 0 : 1;
}

int main(int argc, char **argv) {
    int raw = argc == 6 && strcmp(argv[1], "curl") == 0, gatewire = argc == 7 && strcmp(argv[1], "gatewire") == 0;
    if (!raw && !gatewire) {
        fprintf(stderr, "usage: openloop curl URL RATE SECONDS EXPECT_BYTES\n"
                        "       openloop gatewire CONFIG_FILE ROUTE RATE SECONDS EXPECT_BYTES\n");
        return 2;
    }
    int at = raw ? 3 : 4;
    rate = atof(argv[at]);
    double seconds = atof(argv[at + 1]);
    expect = (size_t)atol(argv[at + 2]);
    total = (long)(rate * seconds);
    warmup = (long)rate;
    if (rate <= 0 || seconds <= 1 || total <= warmup) {
        fprintf(stderr, "openloop: RATE must be positive and SECONDS above 1\n");
        return 2;
    }
    latency_us = calloc((size_t)total, sizeof(double));
    curl_global_init(CURL_GLOBAL_DEFAULT);
    return raw ? run_curl(argv[2]) : run_gatewire(argv[2], argv[3]);
}
