/* Gatewire through its C ABI: gw_call_async, INFLIGHT calls kept in flight by starting the
 * next call from each completion (on the client's loop thread, as the header allows).
 *
 * Usage: gatewire_c CONFIG_FILE ROUTE REQUESTS INFLIGHT EXPECT_BYTES MODE
 *   MODE raw:    check status 200 and the body length;
 *   MODE mapped: the route has a response descriptor; also read every mapped object of every
 *                result in place (gw_result_mapped_value: its userId and home.cityName,
 *                as a C caller consumes what it mapped, with no JSON text) and check
 *                there are 1,000 with an integer id and a city;
 *   MODE memory: like raw, and also report RSS after 10% of the requests and at the end;
 *   MODE cached: like raw, and every call after the first INFLIGHT must be a fresh hit of
 *                the client's HTTP cache (gw_result_cache; the config has "cache");
 *   MODE timed:  like raw, and also report each call's latency (from gw_call_async to its
 *                completion) at the median and the 99th percentile, in seconds.
 * Prints one JSON line (see common.h). Exit status 1 when any call failed or was wrong. */
#include <gatewire.h>
#include <pthread.h>
#include <stdint.h>

#include "common.h"

static gw_client *client;
static gw_call_options options = GW_CALL_OPTIONS_INIT;
static long total, started, done, settled, ok, rss_early, inflight;
static size_t expect;
static int mode_mapped, mode_memory, mode_cached, mode_timed;
static double *sent_at, *latency; /* per call, by its number (mode timed) */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;

/* Reads every mapped User in place; returns how many have an integer id and a city. */
static long mapped_users(const gw_result *result) {
    long count = 0;
    int64_t total = gw_result_mapped_count(result, "");
    for (int64_t i = 0; i < total; i++) {
        gw_value id, city;
        gw_result_mapped_value(result, "", i, "userId", &id);
        gw_result_mapped_value(result, "", i, "home.cityName", &city);
        count += id.type == GW_VALUE_INTEGER && id.integer > 0 && city.type == GW_VALUE_STRING && city.length > 0;
    }
    return count;
}

static void on_done(gw_result *result, void *user_data);

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void start_one(long number) {
    if (mode_timed) sent_at[number] = bench_now();
    if (gw_call_async(client, &options, on_done, (void *)(intptr_t)number, NULL) != GW_OK) {
        fprintf(stderr, "gw_call_async: %s\n", gw_last_error_message());
        exit(1);
    }
}

static void on_done(gw_result *result, void *user_data) {
    if (mode_timed) latency[(intptr_t)user_data] = bench_now() - sent_at[(intptr_t)user_data];
    size_t length = 0;
    gw_result_body(result, &length);
    int good = gw_result_ok(result) && gw_result_status(result) == 200 && length == expect;
    if (!good) fprintf(stderr, "call failed: %d %s\n", gw_result_status(result), gw_result_error_message(result));
    pthread_mutex_lock(&lock);
    long number = done++;
    long next = started < total ? started++ : -1;
    if (mode_memory && done == total / 10) rss_early = bench_rss_kib();
    pthread_mutex_unlock(&lock);
    if (good && mode_cached && number >= inflight && gw_result_cache(result) != GW_CACHE_HIT) {
        fprintf(stderr, "call %ld was not a cache hit\n", number);
        good = 0;
    }
    if (good && mode_mapped) {
        long count = mapped_users(result);
        if (count != 1000) {
            fprintf(stderr, "mapped %ld objects, expected 1000\n", count);
            good = 0;
        }
    }
    gw_result_free(result);
    if (next >= 0) start_one(next);
    pthread_mutex_lock(&lock);
    ok += good;
    if (++settled == total) pthread_cond_signal(&finished);
    pthread_mutex_unlock(&lock);
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: gatewire_c CONFIG_FILE ROUTE REQUESTS INFLIGHT EXPECT_BYTES raw|mapped|memory|cached|timed\n");
        return 2;
    }
    char *config = bench_read_file(argv[1]);
    options.route = argv[2];
    total = atol(argv[3]);
    inflight = atol(argv[4]);
    expect = (size_t)atol(argv[5]);
    mode_mapped = strcmp(argv[6], "mapped") == 0;
    mode_memory = strcmp(argv[6], "memory") == 0;
    mode_cached = strcmp(argv[6], "cached") == 0;
    mode_timed = strcmp(argv[6], "timed") == 0;
    if (inflight > total) inflight = total;
    if (mode_timed) {
        sent_at = calloc((size_t)total, sizeof *sent_at);
        latency = calloc((size_t)total, sizeof *latency);
    }
    if (!config || gw_client_new_from_config(config, &client) != GW_OK) {
        fprintf(stderr, "client: %s\n", gw_last_error_message());
        return 1;
    }
    free(config);

    double start = bench_now(), cpu0 = bench_cpu();
    pthread_mutex_lock(&lock);
    started = inflight;
    pthread_mutex_unlock(&lock);
    for (long i = 0; i < inflight; i++) start_one(i);
    pthread_mutex_lock(&lock);
    while (settled < total) pthread_cond_wait(&finished, &lock);
    long verified = ok;
    pthread_mutex_unlock(&lock);
    double elapsed = bench_now() - start, cpu = bench_cpu() - cpu0;
    char extra[128] = "";
    if (mode_memory)
        snprintf(extra, sizeof extra, "\"rss_early_kib\": %ld, \"rss_end_kib\": %ld", rss_early, bench_rss_kib());
    if (mode_timed) {
        qsort(latency, (size_t)total, sizeof *latency, compare_doubles);
        snprintf(extra, sizeof extra, "\"p50\": %.9f, \"p99\": %.9f", latency[total / 2], latency[total * 99 / 100]);
    }
    bench_report(total, verified, elapsed, cpu, extra);
    gw_client_free(client);
    return verified == total ? 0 : 1;
}
