/* A translation unit that includes only gatewire.h, compiled as strict C99 and as C++ by
 * the header_compiles_strict test, once as is and once with GW_USE_CALL_OPTIONS_V4 (the
 * 0.x flat gw_call_options). It also expands the _INIT macros, so a field added to an
 * options struct without its macro being updated fails -Wmissing-field-initializers. */
#include "gatewire.h"

int gatewire_header_only(void);

int gatewire_header_only(void)
{
    gw_client_options client_options = GW_CLIENT_OPTIONS_INIT;
    gw_call_options call_options = GW_CALL_OPTIONS_INIT;
    gw_call_options_v4 flat_options = GW_CALL_OPTIONS_V4_INIT;
    gw_plugin plugin = {GW_PLUGIN_VERSION, "p", NULL, NULL, NULL, NULL, NULL, NULL};
    gw_credential_options credential_options = GW_CREDENTIAL_OPTIONS_INIT;
#ifndef GW_USE_CALL_OPTIONS_V4
    gw_body body = GW_BODY_INIT;
    gw_retry_options retry = GW_RETRY_OPTIONS_INIT;
    gw_retry_budget_options retry_budget = GW_RETRY_BUDGET_OPTIONS_INIT;
    gw_circuit_breaker_options circuit_breaker = GW_CIRCUIT_BREAKER_OPTIONS_INIT;
    gw_redirect_options redirects = GW_REDIRECT_OPTIONS_INIT;
    gw_timeout_options timeouts = GW_TIMEOUT_OPTIONS_INIT;
    gw_download_options download = GW_DOWNLOAD_OPTIONS_INIT;
    gw_rate_limit_options rate_limit = GW_RATE_LIMIT_OPTIONS_INIT;
    call_options.body = body;
    call_options.retry = retry;
    call_options.retry_budget = retry_budget;
    call_options.circuit_breaker = circuit_breaker;
    call_options.redirects = redirects;
    call_options.timeouts = timeouts;
    call_options.download = download;
    call_options.rate_limit = rate_limit;
#define GW_HEADER_ONLY_RETRIES call_options.retry.max_retries
#else
#define GW_HEADER_ONLY_RETRIES call_options.max_retries
#endif
    client_options.plugins = &plugin;
    (void)credential_options;
    return (int)(client_options.version + call_options.version + flat_options.version
                 + (uint32_t)GW_HEADER_ONLY_RETRIES);
}
