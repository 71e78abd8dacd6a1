/* Redirects: which are followed, what each hop keeps, the events. */
#include "support.h"
#include "tests.h"

static char redirect_events[1024];

static void record_redirect_event(const gw_event *event, void *user_data)
{
    (void)user_data;
    if (strcmp(gw_event_kind(event), "attempt_finished") == 0)
        snprintf(redirect_events, sizeof redirect_events, "%s", gw_event_json(event));
}

/* Redirects through the C ABI: policy_json "redirects" (checked, naming the field), the hops
 * in the attempts JSON and gw_event_json (redacted URLs), the last hop's URL in the metadata,
 * and a refusal's kind, status and Location. The shared cases cover the origin rules. */
void test_redirects(void)
{
    char *config = config_with_base(
        "{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 0}, \"mappings\": {\"E\": {\"attributes\": {\"path\": \"path\"}}},"
        " \"responseDescriptors\": [{\"mapping\": \"E\", \"pathPattern\": \"/redirect/:n\"}]}");
    gw_client *client = new_client_from_config(config);
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char expected[512];
    uint64_t id = 0;
    free(config);
    if (client == NULL)
        return;

    options.path = "/redirect/2?access_token=C-SECRET";
    options.policy_json = "{\"redirects\": {\"max\": 51}}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK(result == NULL);
    CHECK_STR(gw_last_error_message(), "policy_json.redirects.max: 51 is out of range 0...50");
    options.policy_json = "{\"redirects\": {\"follow\": \"all\"}}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "policy_json.redirects.follow: unknown value \"all\"");

    CHECK_INT(gw_client_add_event_monitor(client, record_redirect_event, NULL, NULL, &id), GW_OK);
    options.policy_json = NULL;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    snprintf(expected, sizeof expected, "\"redirects\":[{\"status\":302,\"url\":\"%s/redirect/1\"},"
             "{\"status\":302,\"url\":\"%s/redirect/0\"}]", base_url, base_url);
    CHECK_CONTAINS(gw_result_attempts_json(result), expected);
    CHECK_CONTAINS(redirect_events, expected);
    snprintf(expected, sizeof expected, "\"url\":\"%s/redirect/0\"", base_url);
    CHECK_CONTAINS(gw_result_metadata_json(result), expected);
    CHECK_MEMBER(gw_result_mapped_first(result, ""), "path", "\"/redirect/0\"");
    gw_result_free(result);
    CHECK_INT(gw_client_remove_event_monitor(client, id), GW_OK);

    options.policy_json = "{\"redirects\": false}";
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_REDIRECT);
    CHECK_STR(gw_result_error_kind_name(result), "redirect");
    CHECK_INT(gw_result_status(result), 302);
    CHECK_STR(gw_result_header(result, "Location"), "/redirect/1");
    snprintf(expected, sizeof expected, "redirect not followed: 302 to %s/redirect/1: following redirects is off", base_url);
    CHECK_CONTAINS(gw_result_error_message(result), expected);
    CHECK_CONTAINS(gw_result_attempts_json(result), "\"redirects\":[]");
    gw_result_free(result);
    gw_client_free(client);
}
