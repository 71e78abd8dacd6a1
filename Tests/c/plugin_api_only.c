/* A shared-object plugin written against the gw_plugin_api table (GW_PLUGIN_USE_API),
 * compiled as strict C99 and as C++ by the header_compiles_strict test (the table macros
 * expand to well-formed calls of every kind of function the table holds), and loaded by the
 * installed `gatewire` CLI in deploy_without_toolchain (its prepare sets X-Seen: yes). */
#define GW_PLUGIN_USE_API
#include "gatewire.h"

GW_PLUGIN_API_DEFINE

int32_t gw_plugin_entry(gw_plugin *plugin, const gw_plugin_api *api);

static int32_t prepare(gw_request *request, void *user_data)
{
    (void)user_data;
    if (gw_request_method(request) == NULL)
        return 1;
    if (gw_request_header(request, "X-Seen") == NULL && gw_request_set_header(request, "X-Seen", "yes") != GW_OK)
        return gw_request_fail(request, gw_last_error_message());
    return gw_request_set_url(request, gw_request_url(request));
}

static void did_receive(const gw_attempt *attempt, void *user_data)
{
    (void)user_data;
    (void)(gw_attempt_number(attempt) + gw_attempt_status(attempt) + gw_attempt_error_kind(attempt));
    (void)gw_attempt_elapsed(attempt);
    (void)gw_attempt_header(attempt, "Retry-After");
}

static void process(gw_process *process, void *user_data)
{
    const gw_result *result = gw_process_result(process);
    size_t length = 0;
    (void)user_data;
    if (gw_result_ok(result) && gw_result_body(result, &length) != NULL && gw_result_status(result) == 202)
        gw_process_fail(process, gw_result_error_kind(result), gw_result_error_message(result));
    (void)gw_result_header(result, "Content-Type");
    (void)gw_result_mapped_json(result);
}

int32_t gw_plugin_entry(gw_plugin *plugin, const gw_plugin_api *api)
{
    GW_PLUGIN_API_INIT(api);
    plugin->version = GW_PLUGIN_VERSION;
    plugin->name = "strict";
    plugin->prepare = prepare;
    plugin->did_receive = did_receive;
    plugin->process = process;
    return 0;
}
