/* multipart/form-data bodies from gw_call_options.parts (version 4), as the test server's
 * /multipart saw them (werkzeug's parse: each part's name, filename, content type, size and
 * SHA-256): form_json fields first, then field, file and bytes parts; a retry re-sends every
 * part; a missing file fails the call before anything is sent; version 3 options still work. */
#include "support.h"
#include "tests.h"

#define HELLO_SHA256 "\"185f8db32271fe25f561a6fc938b2e264306ec304eda518007d1764826381969\""

/* The server's log of every request for `key` (a JSON text to free). */
static char *upload_log(gw_client *client, const char *key)
{
    char path[128];
    int32_t rc;
    gw_result *result;
    char *text;
    snprintf(path, sizeof path, "/multipart/%s/log", key);
    result = call(client, "GET", path, &rc);
    CHECK_INT(rc, GW_OK);
    text = body_text(result);
    gw_result_free(result);
    return text;
}

static void test_multipart_file_that_changes_size(void);

void test_multipart_uploads(void)
{
    static const uint8_t blob[] = {'H', 'e', 'l', 'l', 'o'};
    char file_path[] = "/tmp/gatewire-c-multipart-XXXXXX";
    char missing_path[64], path[128], *config, *body, *log;
    const char *key = unique_key("c-multipart");
    gw_part parts[] = {
        {.kind = GW_PART_FIELD, .name = "title", .value = "Q3 plan"},
        {.kind = GW_PART_FILE, .name = "report", .path = file_path, .content_type = "application/pdf"},
        {.kind = GW_PART_BYTES, .name = "blob", .bytes = blob, .length = sizeof blob, .filename = "hello.png"},
    };
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_call_options *v3;
    gw_result *result = NULL;
    gw_client *client;
    int fd = mkstemp(file_path);

    if (fd < 0 || write(fd, "Hello", 5) != 5)
        abort();
    close(fd);
    config = config_with_base("{\"baseURL\": \"%s\", \"headers\": {\"Content-Type\": \"application/json\"}, "
                              "\"retry\": {\"maxRetries\": 1, \"initialDelay\": 0.01, \"methods\": [\"POST\"]}}");
    client = new_client_from_config(config);
    free(config);
    if (client == NULL)
        return;

    step("multipart: form_json fields, then the parts, re-sent whole by the retry");
    snprintf(path, sizeof path, "/multipart/%s/503,200", key);
    options.method = "POST";
    options.path = path;
    options.form_json = "{\"ids\": [1, 2]}";
    options.parts = parts;
    options.part_count = 3;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    CHECK_INT(gw_result_attempt_count(result), 2);
    body = body_text(result);
    CHECK_CONTAINS(body, "\"content_type\": \"multipart/form-data; boundary=");
    CHECK_CONTAINS(body, "{\"name\": \"ids\", \"filename\": null, \"content_type\": null, \"size\": 1, ");
    CHECK_CONTAINS(body, "\"text\": \"1\"}, {\"name\": \"ids\", ");
    CHECK_CONTAINS(body, "\"text\": \"2\"}, {\"name\": \"title\", ");
    CHECK_CONTAINS(body, "\"text\": \"Q3 plan\"}, {\"name\": \"report\", \"filename\": \"gatewire-c-multipart-");
    CHECK_CONTAINS(body, "\"content_type\": \"application/pdf\", \"size\": 5, \"sha256\": " HELLO_SHA256
                         "}, {\"name\": \"blob\", \"filename\": \"hello.png\", \"content_type\": \"image/png\", "
                         "\"size\": 5, \"sha256\": " HELLO_SHA256 "}]");
    free(body);
    gw_result_free(result);
    log = upload_log(client, key);
    CHECK_INT(count_members(log, "attempt", "1"), 1);
    CHECK_INT(count_members(log, "attempt", "2"), 1);
    CHECK_INT(count_members(log, "sha256", HELLO_SHA256), 4);  /* the file and the bytes, twice */
    CHECK_INT(count_members(log, "text", "\"Q3 plan\""), 2);
    free(log);

    step("multipart: a missing file fails the call before anything is sent");
    key = unique_key("c-multipart-missing");
    snprintf(path, sizeof path, "/multipart/%s/200", key);
    snprintf(missing_path, sizeof missing_path, "%s.absent", file_path);
    parts[1].path = missing_path;
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_STR(gw_result_error_kind_name(result), "invalid_argument");
    CHECK_INT(gw_result_attempt_count(result), 0);
    CHECK_CONTAINS(gw_result_error_message(result), "file part \"report\": cannot read \"");
    CHECK_CONTAINS(gw_result_error_message(result), ".absent\": No such file or directory");
    gw_result_free(result);
    result = NULL;
    log = upload_log(client, key);
    CHECK_STR(log, "{\"attempts\": []}");
    free(log);
    parts[1].path = file_path;

    step("multipart: argument errors name the field");
    options.parts = NULL;
    CHECK_INVALID(gw_call(client, &options, &result));
    CHECK_STR(gw_last_error_message(), "parts: NULL with part_count 3 (NULL is no parts)");
    options.parts = parts;
    parts[0].kind = 7;
    CHECK_INVALID(gw_call(client, &options, &result));
    CHECK_STR(gw_last_error_message(),
              "parts[0].kind: unknown kind 7 (expected GW_PART_FIELD, GW_PART_FILE or GW_PART_BYTES)");
    parts[0].kind = GW_PART_FIELD;
    parts[0].value = NULL;
    CHECK_INVALID(gw_call(client, &options, &result));
    CHECK_STR(gw_last_error_message(), "parts[0].value: required for GW_PART_FIELD");
    parts[0].value = "Q3 plan";
    options.form_json = NULL;
    options.body_json = "{\"a\": 1}";
    CHECK_INVALID(gw_call(client, &options, &result));
    CHECK_CONTAINS(gw_last_error_message(), "parts: cannot be sent with body, or with a body_json of no object type");

    step("multipart: a version 3 caller's struct ends at form_json");
    /* Its parts and part_count hold garbage (0xAB...): the library must not read them. */
    v3 = malloc(sizeof *v3);
    if (v3 == NULL)
        abort();
    memset(v3, 0xAB, sizeof *v3);
    CHECK_INT(gw_call_options_init(v3, GW_CALL_OPTIONS_VERSION_3), GW_OK);
    CHECK_INT(v3->version, 3);
    CHECK_INT(v3->part_count == (size_t)0xABABABABABABABABu, 1);
    v3->method = "POST";
    v3->path = "/echo";
    v3->form_json = "{\"v\": 3}";
    CHECK_INT(gw_call(client, v3, &result), GW_OK);
    body = body_text(result);
    CHECK_MEMBER(body, "body", "\"v=3\"");
    free(body);
    gw_result_free(result);
    free(v3);

    unlink(file_path);
    gw_client_free(client);
    test_multipart_file_that_changes_size();
}

/* A file of `bytes` bytes at a new temporary path (written into `path`, 64 bytes). */
static void write_file(char *path, size_t bytes)
{
    static char chunk[1 << 16];
    int fd;
    strcpy(path, "/tmp/gatewire-c-multipart-big-XXXXXX");
    fd = mkstemp(path);
    if (fd < 0)
        abort();
    memset(chunk, 'u', sizeof chunk);
    for (size_t written = 0; written < bytes; written += sizeof chunk)
        if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk)
            abort();
    close(fd);
}

/* A file part whose file the server grows (appending a request, as a request smuggler would)
 * or shrinks once the request head has arrived: only the declared bytes go out, the attempt
 * fails at once as invalid_argument naming the file, and the appended request never reaches
 * the server. 32 MiB: more than libcurl's upload buffer and the loopback socket buffers, so
 * most of the file is read after the change. */
static void test_multipart_file_that_changes_size(void)
{
    char file_path[64], path[512], key_smuggled[96];
    const char *key = unique_key("c-multipart-grow");
    gw_part part = {.kind = GW_PART_FILE, .name = "upload", .path = file_path};
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char *config = config_with_base("{\"baseURL\": \"%s\", \"timeouts\": {\"attempt\": 20}}");
    gw_client *client = new_client_from_config(config);
    free(config);
    if (client == NULL)
        return;
    options.method = "POST";
    options.path = path;
    options.parts = &part;
    options.part_count = 1;

    step("multipart: a file that grows while it is sent sends only its declared bytes");
    write_file(file_path, 32u << 20);
    snprintf(path, sizeof path, "/multipart/%s/200?grow=%s", key, file_path);
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_STR(gw_result_error_kind_name(result), "invalid_argument");
    CHECK_CONTAINS(gw_result_error_message(result), "file part \"upload\": \"/tmp/gatewire-c-multipart-big-");
    CHECK_CONTAINS(gw_result_error_message(result), "grew while it was sent: 33554432 bytes were declared");
    gw_result_free(result);
    result = NULL;
    snprintf(key_smuggled, sizeof key_smuggled, "%s-smuggled", key);
    CHECK_INT(server_count(client, key_smuggled), 0);
    unlink(file_path);

    step("multipart: a file that shrinks while it is sent fails at once, not at the timeout");
    write_file(file_path, 32u << 20);
    snprintf(path, sizeof path, "/multipart/%s/200?shrink=%s", unique_key("c-multipart-shrink"), file_path);
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_STR(gw_result_error_kind_name(result), "invalid_argument");
    CHECK_CONTAINS(gw_result_error_message(result), "shrank while it was sent: 33554432 bytes were declared");
    gw_result_free(result);
    unlink(file_path);
    gw_client_free(client);
}
