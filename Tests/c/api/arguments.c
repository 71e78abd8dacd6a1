/* Numbers and text at the ABI's edge: an infinite gw_queue_wait waits as a negative one does;
 * every other out-of-range number (a size_t above SIZE_MAX / 2, NaN, an infinity, a negative
 * count) is GW_ERROR_INVALID_ARGUMENT naming the field, never a stopped process or a wrapped
 * value; text that C would cut short at a NUL (JSON's "\u0000") is refused, naming the field. */
#include "support.h"
#include "tests.h"

#include <stdint.h>

#define NUL_REASON " (C ends a string at its first NUL, so the rest would be lost)"

void test_queue_wait_without_limit(void)
{
    static const double waits[] = {INFINITY, -INFINITY, 1e300};
    static const char *const names[] = {"INFINITY", "-INFINITY", "1e300"};
    gw_client *client = new_client();
    gw_queue *queue = NULL;
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *results[2];
    uint64_t tags[2];
    size_t count = 99;
    int i;
    if (client == NULL)
        return;
    CHECK_INT(gw_queue_new(&queue), GW_OK);
    options.method = "GET";
    options.path = "/delay/100"; /* the queue is empty when each wait starts */
    for (i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "gw_queue_wait(%s) waits for the result", names[i]);
        step(name);
        CHECK_INT(gw_call_async_queued(client, &options, queue, (uint64_t)i + 1, NULL), GW_OK);
        CHECK_INT(gw_queue_wait(queue, waits[i], results, tags, 2, &count), GW_OK);
        CHECK_INT(count, 1);
        if (count == 1) {
            CHECK_INT(tags[0], i + 1);
            CHECK_INT(gw_result_status(results[0]), 200);
            gw_result_free(results[0]);
        }
    }
    step("gw_queue_wait: NaN and capacities out of range");
    count = 99;
    CHECK_INT(gw_queue_wait(queue, NAN, results, tags, 2, &count), GW_ERROR_INVALID_ARGUMENT);
    CHECK_INT(count, 0);
    CHECK_STR(gw_last_error_message(),
              "gw_queue_wait: timeout_seconds is NaN (0 = do not wait, < 0 or infinity = no limit)");
    CHECK_INT(gw_queue_wait(queue, 0, results, tags, SIZE_MAX, &count), GW_ERROR_INVALID_ARGUMENT);
    CHECK_STR(gw_last_error_message(),
              "gw_queue_wait: capacity: 18446744073709551615 is out of range (1...9223372036854775807)");
    CHECK_INT(gw_queue_wait(queue, 0, results, tags, 0, &count), GW_ERROR_INVALID_ARGUMENT);
    CHECK_STR(gw_last_error_message(), "gw_queue_wait: capacity: 0 is out of range (1...9223372036854775807)");
    gw_queue_free(queue);
    gw_client_free(client);
}

static void refuse_refresh(gw_refresh *refresh, const char *current_token, void *user_data)
{
    (void)current_token;
    (void)user_data;
    gw_refresh_complete(refresh, NULL);
}

/* gw_call with options, which must be refused with `message` before anything is sent. */
static void check_refused(gw_client *client, const gw_call_options *options, const char *message)
{
    gw_result *result = NULL;
    CHECK_INT(gw_call(client, options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK(result == NULL);
    CHECK_STR(gw_last_error_message(), message);
    gw_result_free(result);
}

void test_numbers_out_of_range(void)
{
    static const char byte[] = "x";
    gw_client *client = new_client();
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_part part = {.kind = GW_PART_BYTES, .name = "a", .bytes = byte, .length = 1};
    char path[128];
    const char *key;
    if (client == NULL)
        return;
    key = unique_key("arguments");
    snprintf(path, sizeof path, "/sequence/%s/200", key);
    options.method = "POST";
    options.path = path;

    step("size_t fields above SIZE_MAX / 2");
    options.body = byte;
    options.body_length = SIZE_MAX;
    check_refused(client, &options, "body_length: 18446744073709551615 is out of range (0...9223372036854775807)");
    options.body_length = (size_t)INT64_MAX + 1;
    check_refused(client, &options, "body_length: 9223372036854775808 is out of range (0...9223372036854775807)");
    options.body = NULL;
    options.body_length = 0;
    options.parts = &part;
    options.part_count = SIZE_MAX;
    check_refused(client, &options, "part_count: 18446744073709551615 is out of range (0...9223372036854775807)");
    options.part_count = 1;
    part.length = SIZE_MAX;
    check_refused(client, &options, "parts[0].length: 18446744073709551615 is out of range (0...9223372036854775807)");
    options.parts = NULL;
    options.part_count = 0;

    step("integers and doubles at their limits");
    options.max_retries = INT32_MIN;
    check_refused(client, &options,
                  "max_retries: -2147483648 is out of range (-1 = the route's or client's policy, or 0...100 retries)");
    options.max_retries = INT32_MAX;
    check_refused(client, &options,
                  "max_retries: 2147483647 is out of range (-1 = the route's or client's policy, or 0...100 retries)");
    options.max_retries = -1;
    options.attempt_timeout = INFINITY;
    check_refused(client, &options, "attempt_timeout: inf is out of range (0 = the client's, or 0.001...86400 seconds)");
    options.attempt_timeout = 0;
    options.deadline = -INFINITY;
    check_refused(client, &options, "deadline: -inf is out of range (0 = the client's, or 0.001...86400 seconds)");
    options.deadline = 0;
    options.download_max_bytes = INT64_MIN;
    check_refused(client, &options, "download_max_bytes: -9223372036854775808 is negative (0 = no limit)");
    options.download_max_bytes = 0;
    CHECK_INT(server_count(client, key), 0);

    step("gw_client_options.plugin_count above SIZE_MAX / 2");
    {
        gw_client_options settings = GW_CLIENT_OPTIONS_INIT;
        gw_plugin plugin = {0};
        gw_client *other = NULL;
        settings.base_url = base_url;
        settings.plugins = &plugin;
        settings.plugin_count = SIZE_MAX;
        CHECK_INT(gw_client_create(&settings, &other), GW_ERROR_INVALID_ARGUMENT);
        CHECK(other == NULL);
        CHECK_STR(gw_last_error_message(),
                  "gw_client_create: plugin_count: 18446744073709551615 is out of range (0...9223372036854775807)");
    }

    step("gw_credential_options: negative, NaN and infinite numbers");
    {
        gw_credential_options settings = GW_CREDENTIAL_OPTIONS_INIT;
        gw_credential *credential = NULL;
        settings.refresh = refuse_refresh;
        settings.max_refreshes = -1;
        CHECK_INT(gw_credential_new(&settings, &credential), GW_ERROR_INVALID_ARGUMENT);
        CHECK_STR(gw_last_error_message(), "gw_credential_new: max_refreshes: -1 is out of range (0 = the default, or more)");
        settings.max_refreshes = 0;
        settings.refresh_interval = NAN;
        CHECK_INT(gw_credential_new(&settings, &credential), GW_ERROR_INVALID_ARGUMENT);
        CHECK_STR(gw_last_error_message(),
                  "gw_credential_new: refresh_interval: nan is out of range (0 = the default, or seconds up to infinity)");
        settings.refresh_interval = INFINITY; /* a budget for the credential's life */
        CHECK_INT(gw_credential_new(&settings, &credential), GW_OK);
        gw_credential_free(credential);
    }
    gw_client_free(client);
}

void test_text_with_nul(void)
{
    static const struct {
        const char *config; /* "%s": the test server's base URL */
        const char *message;
    } configs[] = {
        {"{\"baseURL\": \"%s\", \"cookies\": {\"file\": \"jar\\u0000.txt\"}}",
         "cookies.file: the path contains NUL at byte 3" NUL_REASON},
        {"{\"baseURL\": \"%s\", \"cache\": {\"directory\": \"cache\\u0000\"}}",
         "cache.directory: the path contains NUL at byte 5" NUL_REASON},
        {"{\"baseURL\": \"%s\", \"caFile\": \"ca\\u0000.pem\"}", "caFile: the path contains NUL at byte 2" NUL_REASON},
        {"{\"baseURL\": \"%s\", \"plugins\": [{\"path\": \"./lib\\u0000.so\"}]}",
         "plugins[0].path: the path contains NUL at byte 5" NUL_REASON},
    };
    gw_client *client = NULL;
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    size_t i;
    step("config paths with NUL: GW_ERROR_CONFIG naming the field");
    for (i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        char *config = config_with_base(configs[i].config);
        CHECK_INT(gw_client_new_from_config(config, &client), GW_ERROR_CONFIG);
        CHECK(client == NULL);
        CHECK_STR(gw_last_error_message(), configs[i].message);
        free(config);
    }

    step("a message that quotes a caller's NUL keeps the rest of it");
    client = new_client();
    if (client == NULL)
        return;
    options.method = "GET";
    options.path = "/echo";
    options.policy_json = "{\"redirects\": {\"follow\": \"no\\u0000ne\"}}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK_STR(gw_last_error_message(), "policy_json.redirects.follow: unknown value \"no\\0ne\" (expected one of: "
                                       "\"none\", \"sameOrigin\", \"any\")");
    gw_client_free(client);
}
