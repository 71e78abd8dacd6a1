/* A translation unit that includes only gatewire.h, compiled as strict C99 and as C++ by
 * the header_compiles_strict test. It also expands the _INIT macros, so a field added to an
 * options struct without its macro being updated fails -Wmissing-field-initializers. */
#include "gatewire.h"

int gatewire_header_only(void);

int gatewire_header_only(void)
{
    gw_client_options client_options = GW_CLIENT_OPTIONS_INIT;
    gw_call_options call_options = GW_CALL_OPTIONS_INIT;
    gw_plugin plugin = {GW_PLUGIN_VERSION, "p", NULL, NULL, NULL, NULL, NULL, NULL};
    gw_credential_options credential_options = GW_CREDENTIAL_OPTIONS_INIT;
    client_options.plugins = &plugin;
    (void)credential_options;
    return (int)(client_options.version + call_options.version + (uint32_t)call_options.max_retries);
}
