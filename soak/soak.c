/* The fault soak (make soak; scripts/soak.sh): CALLS calls through the C ABI, IN_FLIGHT at a
 * time (gw_call_async_queued + gw_queue_wait, one tag per call), against soak/fault_server.py,
 * about one call in ten with a fault injected on its first attempt.
 *
 *   soak BASE_URL CALLS IN_FLIGHT
 *
 * Checks, failing with exit status 1:
 *   - every call completes exactly once (a tag seen twice, or a call still missing when no
 *     result arrives for 60 s, is a failure), none is lost;
 *   - a call without a fault succeeds with its own body (byte for byte) and, on /mapped, its
 *     own mapped object; a call whose fault is invalid JSON on the mapped route fails with
 *     GW_KIND_MAPPING; any other fault ends in success with the call's own body or in a
 *     failure (counted by kind and printed);
 *   - RSS and open fds stay flat: RSS at 100% of the calls is within 16 MiB of RSS at 20%;
 *     fds never exceed those before the client plus one connection per call in flight plus
 *     32; after gw_client_free the fds are back to those before the client.
 * The folded_first fault is the response libcurl 7.88.1 turns into a use-after-free on a
 * reused easy handle (curl issue #11101); Gatewire gives each transfer a new one.
 * Prints the figures (calls/s, RSS, fds, outcomes per fault) on stdout. */
#include <gatewire.h>

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum fault {
    FAULT_NONE, FAULT_RESET_BEFORE, FAULT_RESET_AFTER, FAULT_STATUS_503, FAULT_STATUS_503_RETRY, FAULT_STALL,
    FAULT_TRUNCATED, FAULT_INVALID_JSON, FAULT_FOLDED, FAULT_NON_HTTP,
    FAULT_FOLDED_FIRST,
    FAULT_COUNT
};
static const char *const fault_names[FAULT_COUNT] = {
    "none", "reset_before", "reset_after", "status_503", "status_503_retry", "stall",
    "truncated", "invalid_json", "folded", "non_http", "folded_first"};
enum { KIND_SLOTS = 32 };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Resident set size in MiB, from /proc/self/statm. */
static double rss_mib(void) {
    long pages_total = 0, pages_resident = 0;
    FILE *file = fopen("/proc/self/statm", "r");
    if (file == NULL) return -1;
    if (fscanf(file, "%ld %ld", &pages_total, &pages_resident) != 2) pages_resident = -1;
    fclose(file);
    return (double)pages_resident * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

/* Open file descriptors of this process (/proc/self/fd, without the one reading it). */
static int open_fds(void) {
    DIR *dir = opendir("/proc/self/fd");
    if (dir == NULL) return -1;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL)
        if (entry->d_name[0] != '.') count++;
    closedir(dir);
    return count - 1;
}

/* The fault of call `id`: about one in ten, spread over the faults by a fixed hash (the
 * same calls get the same faults on every run). invalid_json only on /mapped (odd ids). */
static int fault_of(uint64_t id) {
    uint64_t x = id * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    if (x % 10 != 0) return FAULT_NONE;
    int fault = 1 + (int)((x / 10) % (FAULT_COUNT - 1));
    if (fault == FAULT_INVALID_JSON && id % 2 == 0) return FAULT_FOLDED;
    return fault;
}

/* The body fault_server.py sends for call `id`. */
static size_t expected_body(uint64_t id, char *out, size_t size) {
    char pad[97];
    memset(pad, 'x', id % 97);
    pad[id % 97] = '\0';
    int length = snprintf(out, size, "{\"id\":%llu,\"name\":\"call-%llu\",\"pad\":\"%s\"}",
                          (unsigned long long)id, (unsigned long long)id, pad);
    return (size_t)length;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: soak BASE_URL CALLS IN_FLIGHT\n");
        return 2;
    }
    const char *base_url = argv[1];
    uint64_t calls = strtoull(argv[2], NULL, 10);
    size_t in_flight = strtoull(argv[3], NULL, 10);
    if (calls == 0 || in_flight == 0) {
        fprintf(stderr, "soak: CALLS and IN_FLIGHT must be positive\n");
        return 2;
    }

    int fds_before = open_fds();
    double rss_before = rss_mib();
    char config[1024];
    /* Up to 3 retries with short delays; an attempt timeout under the server's stall. */
    snprintf(config, sizeof config,
             "{\"baseURL\": \"%s\", \"timeouts\": {\"connect\": 5, \"attempt\": 1},"
             " \"retry\": {\"maxRetries\": 3, \"initialDelay\": 0.05, \"maxDelay\": 0.2, \"maxRetryAfter\": 2},"
             " \"mappings\": {\"Item\": {\"attributes\": {\"id\": {\"to\": \"id\", \"type\": \"integer\"},"
             " \"name\": \"name\"}}},"
             " \"responseDescriptors\": [{\"mapping\": \"Item\", \"pathPattern\": \"/mapped/:id\"}]}",
             base_url);
    gw_client_options options = GW_CLIENT_OPTIONS_INIT;
    options.config_json = config;
    gw_client *client = NULL;
    gw_queue *queue = NULL;
    if (gw_client_create(&options, &client) != GW_OK || gw_queue_new(&queue) != GW_OK) {
        fprintf(stderr, "soak: %s\n", gw_last_error_message());
        return 1;
    }

    unsigned char *completions = calloc(calls, 1);
    unsigned long outcomes[FAULT_COUNT][KIND_SLOTS];
    memset(outcomes, 0, sizeof outcomes);
    gw_result **results = calloc(in_flight, sizeof *results);
    uint64_t *tags = calloc(in_flight, sizeof *tags);
    if (completions == NULL || results == NULL || tags == NULL) return 1;

    uint64_t started = 0, completed = 0, failures = 0;
    double rss_20 = -1, rss_100 = -1;
    int fds_20 = -1, fds_max = 0;
    int fd_limit = fds_before + (int)in_flight + 32;
    double begin = now();
    char path[128], body[256], mapped_name[64];

    while (completed < calls) {
        while (started < calls && started - completed < in_flight) {
            int fault = fault_of(started);
            snprintf(path, sizeof path, "/%s/%llu%s%s", started % 2 ? "mapped" : "plain",
                     (unsigned long long)started, fault ? "?fault=" : "", fault ? fault_names[fault] : "");
            gw_call_options call = GW_CALL_OPTIONS_INIT;
            call.path = path;
            if (gw_call_async_queued(client, &call, queue, started, NULL) != GW_OK) {
                fprintf(stderr, "soak: call %llu not started: %s\n", (unsigned long long)started,
                        gw_last_error_message());
                return 1;
            }
            started++;
        }
        size_t count = 0;
        gw_queue_wait(queue, 60.0, results, tags, in_flight, &count);
        if (count == 0) {
            fprintf(stderr, "soak: no result for 60 s; %llu of %llu calls lost\n",
                    (unsigned long long)(started - completed), (unsigned long long)calls);
            return 1;
        }
        for (size_t i = 0; i < count; i++) {
            uint64_t id = tags[i];
            gw_result *result = results[i];
            if (id >= started || completions[id]++) {
                fprintf(stderr, "soak: call %llu completed twice (or was never started)\n", (unsigned long long)id);
                return 1;
            }
            int fault = fault_of(id);
            size_t body_length = 0;
            const uint8_t *received = gw_result_body(result, &body_length);
            size_t expected_length = expected_body(id, body, sizeof body);
            int ok = gw_result_ok(result);
            int right_body = received != NULL && body_length == expected_length &&
                             memcmp(received, body, expected_length) == 0;
            int kind = gw_result_error_kind(result);
            outcomes[fault][kind >= 0 && kind < KIND_SLOTS ? kind : 0]++;
            const char *problem = NULL;
            if (ok && !right_body) {
                problem = "succeeded with another body";
            } else if (ok && id % 2) {
                const char *mapped = gw_result_mapped_at(result, "");
                snprintf(mapped_name, sizeof mapped_name, "\"call-%llu\"", (unsigned long long)id);
                if (mapped == NULL || strstr(mapped, mapped_name) == NULL) problem = "mapped another object";
            }
            if (fault == FAULT_NONE && !ok) problem = "failed without a fault";
            if (fault == FAULT_INVALID_JSON && (ok || kind != GW_KIND_MAPPING)) problem = "invalid JSON was not a mapping failure";
            if (problem != NULL) {
                fprintf(stderr, "soak: call %llu (fault %s): %s: kind %s, status %d, %s\n",
                        (unsigned long long)id, fault_names[fault], problem, gw_result_error_kind_name(result),
                        gw_result_status(result), gw_result_error_message(result));
                failures++;
            }
            gw_result_free(result);
            completed++;
        }
        int fds = open_fds();
        if (fds > fds_max) fds_max = fds;
        if (rss_20 < 0 && completed >= calls / 5) {
            rss_20 = rss_mib();
            fds_20 = fds;
        }
    }
    double seconds = now() - begin;
    rss_100 = rss_mib();
    int fds_100 = open_fds();
    gw_queue_free(queue);
    gw_client_free(client);
    int fds_after = open_fds();

    printf("soak: %llu calls, %zu in flight, %.1f s, %.0f calls/s\n", (unsigned long long)calls, in_flight,
           seconds, (double)calls / seconds);
    printf("soak: RSS MiB before %.1f, at 20%% %.1f, at 100%% %.1f (growth %.1f)\n", rss_before, rss_20, rss_100,
           rss_100 - rss_20);
    printf("soak: fds before %d, at 20%% %d, at 100%% %d, max %d (limit %d), after gw_client_free %d\n",
           fds_before, fds_20, fds_100, fds_max, fd_limit, fds_after);
    for (int fault = 0; fault < FAULT_COUNT; fault++) {
        unsigned long total = 0;
        for (int kind = 0; kind < KIND_SLOTS; kind++) total += outcomes[fault][kind];
        if (total == 0) continue;
        printf("soak: fault %-16s %6lu calls: %lu ok", fault_names[fault], total, outcomes[fault][0]);
        for (int kind = 1; kind < KIND_SLOTS; kind++)
            if (outcomes[fault][kind]) printf(", %lu failed (kind %d)", outcomes[fault][kind], kind);
        printf("\n");
    }
    for (uint64_t id = 0; id < calls; id++) {
        if (completions[id] != 1) {
            fprintf(stderr, "soak: call %llu completed %d times\n", (unsigned long long)id, completions[id]);
            failures++;
        }
    }
    if (rss_100 - rss_20 > 16.0) {
        fprintf(stderr, "soak: RSS grew by %.1f MiB from 20%% to 100%% of the calls\n", rss_100 - rss_20);
        failures++;
    }
    if (fds_max > fd_limit || fds_after != fds_before) {
        fprintf(stderr, "soak: fds not flat (max %d > %d, or %d after free != %d before)\n", fds_max, fd_limit,
                fds_after, fds_before);
        failures++;
    }
    free(completions);
    free(results);
    free(tags);
    if (failures) {
        fprintf(stderr, "soak: %llu failures\n", (unsigned long long)failures);
        return 1;
    }
    printf("soak: passed\n");
    return 0;
}
