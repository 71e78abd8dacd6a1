/*
 * fuzz-abi: the C ABI's numeric and text arguments, as a C caller passes them.
 *
 * An input is a sequence of operations, each a selector byte and the bytes it reads (numbers
 * are mostly picked from a table of edge values: infinities, NaN, zeros, type limits, values
 * just outside each documented range; else raw bits). Operations:
 *   0  gw_call_options (version, max_retries, attempt_timeout, deadline, body_length,
 *      part_count, download_max_bytes, download_path, method, path, content_type) through
 *      gw_call_async_queued, on one client of a closed port; a started call is cancelled
 *   1  gw_queue_wait with a fuzzed timeout and capacity, after one cancelled queued call
 *   2  gw_credential_options (max_refreshes, refresh_interval)
 *   3  gw_client_options.plugin_count
 *   4  gw_config_check with fuzzed text (JSON "\u0000" included) as a path or URL of the
 *      config: cookies.file, cache.directory, caFile, proxy, noProxy, a route's pathPattern,
 *      baseURL
 *   5  gw_part arrays (kind, name, filename, content_type, path, length) through a call
 * Every value out of its documented range must be refused with GW_ERROR_INVALID_ARGUMENT
 * (GW_ERROR_CONFIG for config text with a NUL, naming it); a crash, a sanitizer report, a
 * hang or a wrong status (abort() with the reason) is a finding. Paths are kept inside
 * FUZZ_FOLDER ('/' in fuzzed text becomes '_'); no call reaches a server. Each input ends with
 * every started call's result taken from the queue, so inputs do not share state.
 */
/* Fuzzes the 0.x flat layout of the call options (gw_call_options_v4). */
#define GW_USE_CALL_OPTIONS_V4
#include "../../../include/gatewire.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FUZZ_FOLDER "/tmp/gatewire-fuzz-abi"
#define BASE_URL "http://127.0.0.1:9" /* the discard port: nothing listens there */
#define TEXT_MAX 64

typedef struct input {
    const uint8_t *data;
    size_t size;
} input;

static gw_client *client;
static gw_queue *queue;
static size_t started, taken;

static void fail(const char *what, int32_t status)
{
    fprintf(stderr, "fuzz-abi: %s (status %d, message \"%s\")\n", what, (int)status, gw_last_error_message());
    abort();
}

static uint8_t byte(input *in)
{
    if (in->size == 0)
        return 0;
    in->size--;
    return *in->data++;
}

static uint64_t raw64(input *in)
{
    uint64_t value = 0;
    for (int i = 0; i < 8; i++)
        value = value << 8 | byte(in);
    return value;
}

static double number(input *in)
{
    static const double edges[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN, 1.0, -1.0, 0.001, 0.0009999, 86400.0,
                                   86400.001, 1e9, 1e9 + 0.5, 1e300, DBL_MAX, -DBL_MAX, DBL_MIN, 5e-324, 0.25};
    uint8_t pick = byte(in);
    if (pick < 200)
        return edges[pick % (sizeof edges / sizeof edges[0])];
    uint64_t bits = raw64(in);
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static int64_t integer(input *in)
{
    static const int64_t edges[] = {0, 1, -1, -2, 100, 101, INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1,
                                    (int64_t)INT32_MIN - 1, INT64_MAX, INT64_MIN, 5, 64};
    uint8_t pick = byte(in);
    if (pick < 200)
        return edges[pick % (sizeof edges / sizeof edges[0])];
    return (int64_t)raw64(in);
}

/* A size_t for a buffer of `available` items: one that fits it, or one above SIZE_MAX / 2
 * (no buffer has that many; the library must refuse it before reading anything). */
static size_t size(input *in, size_t available)
{
    static const size_t huge[] = {SIZE_MAX, (size_t)INT64_MAX + 1, SIZE_MAX - 1, (size_t)1 << 63 | 12345};
    uint8_t pick = byte(in);
    if (pick >= 224)
        return huge[pick % 4];
    return available ? pick % (available + 1) : 0;
}

static int huge(size_t value) { return value > (size_t)INT64_MAX; }

/* Up to TEXT_MAX fuzzed bytes as a C string (it cannot hold a NUL: C ends it there). */
static char *text(input *in, char *buffer)
{
    size_t length = byte(in) % (TEXT_MAX + 1), used = 0;
    while (used < length && in->size > 0) {
        char c = (char)byte(in);
        if (c == 0)
            break;
        buffer[used++] = c;
    }
    buffer[used] = 0;
    return buffer;
}

/* FUZZ_FOLDER/<fuzzed name>, with '/' replaced so the path stays in the folder. */
static char *path_in_folder(input *in, char *buffer)
{
    char name[TEXT_MAX + 1];
    text(in, name);
    for (char *c = name; *c; c++)
        if (*c == '/')
            *c = '_';
    snprintf(buffer, sizeof FUZZ_FOLDER + TEXT_MAX + 2, FUZZ_FOLDER "/%s", name);
    return buffer;
}

/* Starts `options` on the queue (cancelled at once when started); returns the status. */
static int32_t start(const gw_call_options *options)
{
    gw_call_handle *call = NULL;
    int32_t status = gw_call_async_queued(client, options, queue, started, &call);
    if (status == GW_OK) {
        started++;
        gw_call_cancel(call);
        gw_call_handle_free(call);
    } else if (call != NULL) {
        fail("a refused call handed out a handle", status);
    }
    return status;
}

static void take_all(void)
{
    gw_result *results[4];
    size_t count;
    while (taken < started) {
        count = 0;
        int32_t status = gw_queue_wait(queue, -1, results, NULL, 4, &count);
        if (status != GW_OK || count == 0)
            fail("a wait without limit returned nothing", status);
        for (size_t i = 0; i < count; i++)
            gw_result_free(results[i]);
        taken += count;
    }
}

static int timeout_in_range(double seconds) { return seconds == 0 || (seconds >= 0.001 && seconds <= 86400); }

static void call_options(input *in)
{
    static const uint32_t versions[] = {GW_CALL_OPTIONS_VERSION, GW_CALL_OPTIONS_VERSION_3, GW_CALL_OPTIONS_VERSION_2,
                                        GW_CALL_OPTIONS_VERSION_1, 0, 7, UINT32_MAX};
    static const uint8_t body[64] = {1, 2, 3};
    char method[TEXT_MAX + 1], path[TEXT_MAX + 2], type[TEXT_MAX + 1], download[sizeof FUZZ_FOLDER + TEXT_MAX + 2];
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    uint8_t flags = byte(in);
    options.version = versions[byte(in) % 7];
    options.method = flags & 1 ? text(in, method) : NULL;
    path[0] = '/';
    text(in, path + 1);
    options.path = path;
    options.max_retries = (int32_t)integer(in);
    options.attempt_timeout = number(in);
    options.deadline = number(in);
    if (flags & 2) {
        options.body = body;
        options.body_length = size(in, sizeof body);
        options.content_type = flags & 4 ? text(in, type) : NULL;
    }
    options.download_max_bytes = integer(in);
    if (flags & 8)
        options.download_path = path_in_folder(in, download);
    int supported = options.version >= GW_CALL_OPTIONS_VERSION_1 && options.version <= GW_CALL_OPTIONS_VERSION;
    int out_of_range = options.max_retries < -1 || options.max_retries > 100 ||
                       !timeout_in_range(options.attempt_timeout) || !timeout_in_range(options.deadline) ||
                       (options.version >= 3 && huge(options.body_length)) ||
                       (options.version >= 4 && options.download_max_bytes < 0);
    int32_t status = start(&options);
    if (!supported && status != GW_ERROR_VERSION)
        fail("an unsupported gw_call_options version was not GW_ERROR_VERSION", status);
    if (supported && out_of_range && status != GW_ERROR_INVALID_ARGUMENT)
        fail("a number out of range in gw_call_options was not GW_ERROR_INVALID_ARGUMENT", status);
}

static void queue_wait(input *in)
{
    static const size_t capacities[] = {1, 2, 3, 4, 0, SIZE_MAX, (size_t)INT64_MAX + 1};
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *results[4];
    uint64_t tags[4];
    size_t count = 99, capacity = capacities[byte(in) % 7];
    double timeout = number(in);
    options.path = "/wait";
    if (start(&options) != GW_OK)
        fail("a plain call was refused", GW_ERROR_INVALID_ARGUMENT);
    int32_t status = gw_queue_wait(queue, timeout, results, tags, capacity, &count);
    if (isnan(timeout) || capacity == 0 || huge(capacity)) {
        if (status != GW_ERROR_INVALID_ARGUMENT || count != 0)
            fail("gw_queue_wait took a NaN timeout or a capacity out of range", status);
        return;
    }
    if (status != GW_OK || count > capacity)
        fail("gw_queue_wait failed in range", status);
    if ((timeout < 0 || isinf(timeout)) && count == 0)
        fail("gw_queue_wait without limit returned nothing", status);
    for (size_t i = 0; i < count; i++)
        gw_result_free(results[i]);
    taken += count;
}

static void refuse(gw_refresh *refresh, const char *current, void *user_data)
{
    (void)current;
    (void)user_data;
    gw_refresh_complete(refresh, NULL);
}

static void credential_options(input *in)
{
    gw_credential_options options = GW_CREDENTIAL_OPTIONS_INIT;
    gw_credential *credential = NULL;
    options.refresh = refuse;
    options.max_refreshes = (int32_t)integer(in);
    options.refresh_interval = number(in);
    int32_t status = gw_credential_new(&options, &credential);
    int valid = options.max_refreshes >= 0 && options.refresh_interval >= 0;
    if (valid != (status == GW_OK))
        fail(valid ? "valid credential options were refused" : "invalid credential options were accepted", status);
    gw_credential_free(credential);
}

static void plugin_count(input *in)
{
    static gw_plugin plugins[4]; /* version 0: refused once the count is in range */
    gw_client_options options = GW_CLIENT_OPTIONS_INIT;
    gw_client *other = NULL;
    options.base_url = BASE_URL;
    options.plugins = plugins;
    options.plugin_count = size(in, 4);
    if (options.plugin_count == 0)
        options.plugin_count = 1; /* 0 would make a client (a thread) per input */
    int32_t status = gw_client_create(&options, &other);
    int32_t expected = huge(options.plugin_count) ? GW_ERROR_INVALID_ARGUMENT : GW_ERROR_VERSION;
    if (status != expected || other != NULL)
        fail("gw_client_options.plugin_count was not refused as it should be", status);
}

/* Appends `raw` as the characters of a JSON string: a NUL as \u0000, bytes from 0x80 as '?'
 * (so the text stays UTF-8); returns whether it held a NUL. */
static int json_text(char *out, size_t room, const uint8_t *raw, size_t length, int in_folder)
{
    int nul = 0;
    size_t used = strlen(out);
    for (size_t i = 0; i < length && used + 8 < room; i++) {
        uint8_t c = raw[i];
        nul |= c == 0;
        if (c < 0x20)
            used += (size_t)snprintf(out + used, room - used, "\\u%04x", c);
        else if (c == '"' || c == '\\')
            used += (size_t)snprintf(out + used, room - used, "\\%c", c);
        else
            out[used++] = c >= 0x80 ? '?' : (in_folder && c == '/') ? '_' : (char)c;
        out[used] = 0;
    }
    return nul;
}

static void config_text(input *in)
{
    static const char *const shapes[][2] = {
        {"{\"baseURL\": \"" BASE_URL "\", \"cookies\": {\"file\": \"" FUZZ_FOLDER "/", "\"}}"},
        {"{\"baseURL\": \"" BASE_URL "\", \"cache\": {\"directory\": \"" FUZZ_FOLDER "/", "\"}}"},
        {"{\"baseURL\": \"" BASE_URL "\", \"caFile\": \"" FUZZ_FOLDER "/", "\"}"},
        {"{\"baseURL\": \"" BASE_URL "\", \"proxy\": \"http://", "\"}"},
        {"{\"baseURL\": \"" BASE_URL "\", \"noProxy\": \"", "\"}"},
        {"{\"baseURL\": \"" BASE_URL "\", \"routes\": {\"r\": {\"method\": \"GET\", \"pathPattern\": \"/", "\"}}}"},
        {"{\"baseURL\": \"" BASE_URL "/", "\"}"},
    };
    char config[512];
    char *warnings = NULL;
    uint8_t shape = byte(in) % 7;
    size_t length = byte(in) % (TEXT_MAX + 1);
    if (length > in->size)
        length = in->size;
    snprintf(config, sizeof config, "%s", shapes[shape][0]);
    int nul = json_text(config, sizeof config - 8, in->data, length, shape < 3);
    in->data += length;
    in->size -= length;
    strcat(config, shapes[shape][1]);
    int32_t status = gw_config_check(config, &warnings);
    gw_string_free(warnings);
    if (nul && (status != GW_ERROR_CONFIG || !strstr(gw_last_error_message(), "contains NUL at byte")))
        fail("config text with a NUL was not refused naming the NUL", status);
}

static void parts(input *in)
{
    static const uint8_t bytes[32] = {7};
    char names[4][TEXT_MAX + 1], filenames[4][TEXT_MAX + 1], types[4][TEXT_MAX + 1], values[4][TEXT_MAX + 1];
    char paths[4][sizeof FUZZ_FOLDER + TEXT_MAX + 2];
    gw_part array[4];
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    int refused = 0;
    size_t count = byte(in) % 5;
    memset(array, 0, sizeof array);
    for (size_t i = 0; i < count; i++) {
        uint8_t flags = byte(in);
        gw_part *part = &array[i];
        part->kind = flags & 0x80 ? (int32_t)integer(in) : (int32_t)(flags % 3);
        part->name = flags & 4 ? NULL : text(in, names[i]);
        part->value = text(in, values[i]);
        part->filename = flags & 8 ? text(in, filenames[i]) : NULL;
        part->content_type = flags & 16 ? text(in, types[i]) : NULL;
        part->path = flags & 32 ? path_in_folder(in, paths[i]) : NULL;
        part->bytes = flags & 64 ? bytes : NULL;
        part->length = size(in, part->bytes ? sizeof bytes : 0);
    }
    options.method = "POST";
    options.path = "/parts";
    options.parts = count ? array : NULL;
    options.part_count = count;
    if (byte(in) >= 240) {
        options.part_count = SIZE_MAX - byte(in);
        refused = 1;
    }
    for (size_t i = 0; i < count && !refused; i++)
        refused = array[i].kind == GW_PART_BYTES && huge(array[i].length);
    int32_t status = start(&options);
    if (refused && status != GW_ERROR_INVALID_ARGUMENT)
        fail("a part count or length above SIZE_MAX / 2 was not GW_ERROR_INVALID_ARGUMENT", status);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t length)
{
    input in = {data, length};
    if (client == NULL) {
        mkdir(FUZZ_FOLDER, 0700);
        if (gw_client_new(BASE_URL, &client) != GW_OK || gw_queue_new(&queue) != GW_OK)
            fail("cannot make the client and queue", GW_ERROR_INVALID_ARGUMENT);
    }
    for (int operations = 0; operations < 16 && in.size > 0; operations++) {
        switch (byte(&in) % 6) {
        case 0: call_options(&in); break;
        case 1: queue_wait(&in); break;
        case 2: credential_options(&in); break;
        case 3: plugin_count(&in); break;
        case 4: config_text(&in); break;
        default: parts(&in); break;
        }
    }
    take_all();
    return 0;
}
