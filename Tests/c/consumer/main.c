/* The smallest Gatewire consumer: link the installed library and print its version.
 * With a base URL (e.g. the test server's), it also sends GET /headers through the library
 * and prints the status and the body received, "status 200 body {...}"; any failure prints
 * the error and exits 1. */
#include <gatewire.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    printf("gatewire %s\n", gw_version());
    if (argc < 2)
        return 0;
    gw_client *client = NULL;
    if (gw_client_new(argv[1], &client) != GW_OK) {
        fprintf(stderr, "gw_client_new: %s\n", gw_last_error_message());
        return 1;
    }
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    options.path = "/headers";
    gw_result *result = NULL;
    int32_t code = gw_call(client, &options, &result);
    int status = 1;
    if (code == GW_OK) {
        size_t length = 0;
        const uint8_t *body = gw_result_body(result, &length);
        printf("status %d body %.*s\n", (int)gw_result_status(result), (int)length, (const char *)body);
        status = 0;
    } else {
        fprintf(stderr, "gw_call: %d %s\n", (int)code,
                result != NULL ? gw_result_error_message(result) : gw_last_error_message());
    }
    gw_result_free(result);
    gw_client_free(client);
    return status;
}
