/* Streaming downloads: a 2xx body to a file (download_path) or to a chunk consumer
 * (on_chunk, with GW_CHUNK_PAUSE and gw_call_resume_body), against the test server's
 * /bytes, /fault and /status and httpbin's /stream-bytes and /drip. */
#include "support.h"
#include "tests.h"

#include <dirent.h>
#include <sys/stat.h>

/* A fresh folder under /tmp (a failed check and NULL when it cannot be made). */
static char *new_folder(void)
{
    char *folder = strdup("/tmp/gw-c-downloads-XXXXXX");
    check(mkdtemp(folder) != NULL, __FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
    return folder;
}

/* The names in `folder` besides "." and "..", each followed by a space, into `out`. */
static void list_folder(const char *folder, char *out, size_t size)
{
    out[0] = '\0';
    DIR *dir = opendir(folder);
    if (dir == NULL) return;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) append_entry(out, size, entry->d_name, " ");
    }
    closedir(dir);
}

/* The file's bytes (malloc'd, *length set), or NULL when it does not exist. */
static unsigned char *read_file(const char *path, size_t *length)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    size_t capacity = 1 << 16, used = 0, n;
    unsigned char *bytes = malloc(capacity);
    while ((n = fread(bytes + used, 1, capacity - used, file)) > 0) {
        used += n;
        if (used == capacity) bytes = realloc(bytes, capacity *= 2);
    }
    fclose(file);
    *length = used;
    return bytes;
}

static gw_result *download(gw_client *client, const char *path, const char *destination, int32_t *rc)
{
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    options.path = path;
    options.download_path = destination;
    *rc = gw_call(client, &options, &result);
    return result;
}

void test_download_to_file(void)
{
    step("download_to_file");
    char *config = config_with_base("{\"baseURL\": \"%s\", " FAST_RETRY ", \"maxResponseBytes\": 1000}");
    gw_client *client = new_client_from_config(config);
    free(config);
    char *folder = new_folder();
    if (client == NULL || folder == NULL) return;
    char destination[512], names[512];
    snprintf(destination, sizeof destination, "%s/out.bin", folder);

    /* 300,000 bytes, past maxResponseBytes (which limits kept bodies only): the server writes
     * 64 KiB pieces of "0123456789" repeated, each from its start. */
    int32_t rc;
    gw_result *result = download(client, "/bytes/300000", destination, &rc);
    CHECK_INT(rc, GW_OK);
    size_t length = 99, file_length = 0;
    gw_result_body(result, &length);
    CHECK_INT(length, 0);
    CHECK_CONTAINS(gw_result_attempts_json(result), "\"bytes_received\":300000");
    unsigned char *bytes = read_file(destination, &file_length);
    CHECK_INT(file_length, 300000);
    int same = bytes != NULL;
    for (size_t i = 0; same && i < file_length; i++) same = bytes[i] == (unsigned char)('0' + i % 65536 % 10);
    CHECK(same);
    free(bytes);
    list_folder(folder, names, sizeof names);
    CHECK_STR(names, "out.bin ");
    gw_result_free(result);

    /* A 503, then the retried 200: the file holds the final body only. */
    char path[256];
    snprintf(path, sizeof path, "/fault/%s/503,200", unique_key("download"));
    result = download(client, path, destination, &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_attempt_count(result), 2);
    bytes = read_file(destination, &file_length);
    char *text = bytes ? strndup((const char *)bytes, file_length) : NULL;
    CHECK_MEMBER(text, "attempt", "2");
    CHECK_MEMBER(text, "status", "200");
    free(text);
    free(bytes);
    gw_result_free(result);

    /* A 404 fails the call: the file keeps what it had, no temporary file is left, and the
     * error body is in the result. */
    result = download(client, "/status/404", destination, &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_HTTP_STATUS);
    char *body = body_text(result);
    CHECK_MEMBER(body, "status", "404");
    free(body);
    bytes = read_file(destination, &file_length);
    text = bytes ? strndup((const char *)bytes, file_length) : NULL;
    CHECK_MEMBER(text, "attempt", "2");
    free(text);
    free(bytes);
    list_folder(folder, names, sizeof names);
    CHECK_STR(names, "out.bin ");
    gw_result_free(result);

    /* A folder that takes no file: GW_KIND_INVALID_ARGUMENT naming it. */
    result = download(client, "/bytes/10", "/nonexistent-folder/out.bin", &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_result_error_message(result), "/nonexistent-folder/");
    gw_result_free(result);

    /* Both sinks at once, or a negative cap, is an argument error. */
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    options.path = "/bytes/10";
    options.download_path = destination;
    options.on_chunk = (gw_chunk_fn)1;
    CHECK_INVALID(gw_call(client, &options, &result));
    CHECK_CONTAINS(gw_last_error_message(), "download_path and on_chunk");
    options.on_chunk = NULL;
    options.download_max_bytes = -1;
    CHECK_INVALID(gw_call(client, &options, &result));

    /* Its cap: GW_KIND_RESPONSE_TOO_LARGE and no file. */
    unlink(destination);
    options.download_max_bytes = 1000;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);  /* 10 bytes: within it */
    gw_result_free(result);
    options.path = "/bytes/300000";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_RESPONSE_TOO_LARGE);
    gw_result_free(result);
    list_folder(folder, names, sizeof names);
    CHECK_STR(names, "out.bin ");  /* the 10 bytes of the call before */
    unlink(destination);
    rmdir(folder);
    free(folder);
    gw_client_free(client);
}

/* What a chunk consumer saw: the bytes in order, and whether to pause once. */
typedef struct chunks {
    unsigned char *bytes;
    size_t length, capacity;
    int chunks;
    int pause_at;   /* answer GW_CHUNK_PAUSE to this chunk (1-based) the first time; 0: never */
    int paused;
    latch done;
} chunks;

static int32_t take_chunk(const uint8_t *data, size_t length, void *user_data)
{
    chunks *seen = user_data;
    if (seen->pause_at > 0 && seen->chunks + 1 == seen->pause_at && !__atomic_load_n(&seen->paused, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&seen->paused, 1, __ATOMIC_RELEASE);
        return GW_CHUNK_PAUSE;
    }
    if (seen->length + length > seen->capacity) {
        seen->capacity = (seen->length + length) * 2;
        seen->bytes = realloc(seen->bytes, seen->capacity);
    }
    memcpy(seen->bytes + seen->length, data, length);
    seen->length += length;
    __atomic_add_fetch(&seen->chunks, 1, __ATOMIC_RELEASE);
    return GW_CHUNK_CONTINUE;
}

static void chunks_done(gw_result *result, void *user_data)
{
    chunks *seen = user_data;
    CHECK_INT(gw_result_status(result), 200);
    gw_result_free(result);
    latch_count_down(&seen->done);
}

void test_httpbin_chunks(void)
{
    step("httpbin_chunks");
    gw_client *client = NULL;
    CHECK_INT(gw_client_new(httpbin_url, &client), GW_OK);
    if (client == NULL) return;

    /* httpbin's seeded random bytes, streamed in 997-byte pieces: the chunks concatenate to
     * exactly the body of the same call kept in memory. */
    const char *path = "/stream-bytes/100000?seed=7&chunk_size=997";  /* httpbin's most: 100 KiB */
    int32_t rc;
    gw_result *whole = call(client, "GET", path, &rc);
    CHECK_INT(rc, GW_OK);
    size_t length = 0;
    const uint8_t *expected = gw_result_body(whole, &length);
    CHECK_INT(length, 100000);

    chunks seen = {0};
    latch_init(&seen.done);
    seen.pause_at = 3;
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    options.path = path;
    options.on_chunk = take_chunk;
    options.on_chunk_user_data = &seen;
    gw_call_handle *handle = NULL;
    CHECK_INT(gw_call_async(client, &options, chunks_done, &seen, &handle), GW_OK);
    /* The consumer paused at its third chunk: nothing more arrives until the resume. */
    for (int i = 0; i < 200 && !__atomic_load_n(&seen.paused, __ATOMIC_ACQUIRE); i++) sleep_ms(10);
    sleep_ms(200);
    CHECK(__atomic_load_n(&seen.paused, __ATOMIC_ACQUIRE));
    CHECK_INT(__atomic_load_n(&seen.chunks, __ATOMIC_ACQUIRE), 2);
    CHECK_INT(gw_call_resume_body(handle), GW_OK);
    CHECK_INT(latch_wait(&seen.done, 1, 30), 1);
    CHECK_INT(seen.length, 100000);
    CHECK(seen.length == length && memcmp(seen.bytes, expected, length) == 0);
    CHECK(seen.chunks > 3);
    gw_call_handle_free(handle);
    gw_result_free(whole);
    free(seen.bytes);
    latch_destroy(&seen.done);

    /* /drip sends 10 bytes one at a time over half a second: ten chunks of "*". */
    chunks drip = {0};
    latch_init(&drip.done);
    options.path = "/drip?numbytes=10&duration=0.5&delay=0";
    options.on_chunk_user_data = &drip;
    gw_result *result = NULL;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    CHECK_INT(drip.length, 10);
    CHECK(drip.bytes != NULL && memcmp(drip.bytes, "**********", 10) == 0);
    CHECK(drip.chunks >= 2);
    gw_result_free(result);
    free(drip.bytes);
    latch_destroy(&drip.done);

    CHECK_INVALID(gw_call_resume_body(NULL));
    gw_client_free(client);
}
