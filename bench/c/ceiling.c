/* The ceiling: raw libcurl multi, reused easy handles, keep-alive; for the "parse" mode
 * also Jansson json_loadb plus a walk over every object of the array.
 *
 * Usage: ceiling URL REQUESTS INFLIGHT EXPECT_BYTES MODE [CAFILE PIPEWAIT PER_HOST]
 *   MODE: raw | parse. For the HTTP/2 rows (https URL): CAFILE the server's certificate,
 *   PIPEWAIT 1 to set CURLOPT_PIPEWAIT, PER_HOST CURLMOPT_MAX_HOST_CONNECTIONS (0: none).
 * Prints one JSON line (see common.h). Exit status 1 when any response is wrong. */
#include <curl/curl.h>
#include <jansson.h>

#include "common.h"

typedef struct {
    CURL *easy;
    char *data;
    size_t length, capacity;
} slot;

static size_t on_data(char *ptr, size_t size, size_t count, void *user) {
    slot *s = user;
    size_t n = size * count;
    if (s->length + n > s->capacity) {
        s->capacity = (s->length + n) * 2;
        s->data = realloc(s->data, s->capacity);
    }
    memcpy(s->data + s->length, ptr, n);
    s->length += n;
    return n;
}

/* Touches every value of every object (and nested object); returns the number of objects. */
static long walk(json_t *array, long *checksum) {
    size_t count = json_array_size(array);
    for (size_t i = 0; i < count; i++) {
        json_t *object = json_array_get(array, i);
        const char *key;
        json_t *value;
        json_object_foreach(object, key, value) {
            switch (json_typeof(value)) {
            case JSON_INTEGER: *checksum += (long)json_integer_value(value); break;
            case JSON_STRING: *checksum += (long)json_string_length(value); break;
            case JSON_REAL: *checksum += (long)json_real_value(value); break;
            case JSON_TRUE: *checksum += 1; break;
            case JSON_OBJECT: {
                const char *inner_key;
                json_t *inner;
                json_object_foreach(value, inner_key, inner) {
                    if (json_is_string(inner)) *checksum += (long)json_string_length(inner);
                }
                break;
            }
            default: break;
            }
        }
    }
    return (long)count;
}

int main(int argc, char **argv) {
    if (argc != 6 && argc != 9) {
        fprintf(stderr, "usage: ceiling URL REQUESTS INFLIGHT EXPECT_BYTES raw|parse [CAFILE PIPEWAIT PER_HOST]\n");
        return 2;
    }
    const char *cafile = argc == 9 ? argv[6] : NULL;
    long pipewait = argc == 9 ? atol(argv[7]) : 0, per_host = argc == 9 ? atol(argv[8]) : 0;
    const char *url = argv[1];
    long total = atol(argv[2]);
    int inflight = atoi(argv[3]);
    size_t expect = (size_t)atol(argv[4]);
    int parse = strcmp(argv[5], "parse") == 0;
    if (inflight > total) inflight = (int)total;

    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, (long)inflight + 4);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, per_host);
    slot *slots = calloc((size_t)inflight, sizeof(slot));
    for (int i = 0; i < inflight; i++) {
        slots[i].easy = curl_easy_init();
        curl_easy_setopt(slots[i].easy, CURLOPT_URL, url);
        curl_easy_setopt(slots[i].easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(slots[i].easy, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(slots[i].easy, CURLOPT_WRITEDATA, &slots[i]);
        curl_easy_setopt(slots[i].easy, CURLOPT_PRIVATE, &slots[i]);
        curl_easy_setopt(slots[i].easy, CURLOPT_PIPEWAIT, pipewait);
        if (cafile) curl_easy_setopt(slots[i].easy, CURLOPT_CAINFO, cafile);
    }

    double start = bench_now(), cpu0 = bench_cpu();
    long started = 0, done = 0, ok = 0, checksum = 0;
    for (; started < inflight; started++) curl_multi_add_handle(multi, slots[started].easy);
    while (done < total) {
        int running = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            slot *s;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&s);
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            int good = message->data.result == CURLE_OK && status == 200 && s->length == expect;
            if (good && parse) {
                json_error_t error;
                json_t *root = json_loadb(s->data, s->length, 0, &error);
                good = root && walk(root, &checksum) == 1000;
                json_decref(root);
            }
            ok += good;
            done++;
            s->length = 0;
            curl_multi_remove_handle(multi, easy);
            if (started < total) {
                curl_multi_add_handle(multi, easy);
                started++;
            }
        }
        if (done < total) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    double elapsed = bench_now() - start, cpu = bench_cpu() - cpu0;
    char extra[64];
    snprintf(extra, sizeof extra, "\"checksum\": %ld", checksum);
    bench_report(total, ok, elapsed, cpu, extra);
    for (int i = 0; i < inflight; i++) {
        curl_multi_remove_handle(multi, slots[i].easy);
        curl_easy_cleanup(slots[i].easy);
        free(slots[i].data);
    }
    free(slots);
    curl_multi_cleanup(multi);
    return ok == total ? 0 : 1;
}
