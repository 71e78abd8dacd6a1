/* Config errors: malformed configs are GW_ERROR_CONFIG naming the field. */
#include "support.h"
#include "tests.h"

void test_config_errors(void)
{
    gw_client *client = NULL;
    char *warnings = NULL;
    char *config;
    const char *bad_field = "{\"baseURL\":\"http://127.0.0.1:1\",\"retry\":{\"maxRetries\":-1}}";
    const char *malformed = "{\"baseURL\": \"http://x\",\n \"retry\": {\"maxRetries\": }\n}";

    CHECK_INT(gw_client_new_from_config(malformed, &client), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "line");
    printf("   malformed config (client): \"%s\"\n", gw_last_error_message());
    CHECK_INT(gw_config_check(malformed, &warnings), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "line");

    CHECK_INT(gw_config_check(bad_field, &warnings), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "retry.maxRetries");
    printf("   gw_config_check(maxRetries -1): \"%s\"\n", gw_last_error_message());
    CHECK_INT(gw_client_new_from_config(bad_field, &client), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "retry.maxRetries");

    /* The shortest absolute URL with a one-letter host is a valid base URL. */
    CHECK_INT(gw_config_check("{\"baseURL\":\"http://x\"}", NULL), GW_OK);
    CHECK_INT(gw_config_check("{\"baseURL\":\"http://x\",\"retry\":{\"maxRetries\":-1}}", NULL), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "retry.maxRetries");
    CHECK_INT(gw_config_check("{\"baseURL\":\"http://\"}", NULL), GW_ERROR_CONFIG);
    CHECK_CONTAINS(gw_last_error_message(), "baseURL");

    config = config_with_base("{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 2}}");
    warnings = NULL;
    CHECK_INT(gw_config_check(config, &warnings), GW_OK);
    CHECK(warnings != NULL && warnings[0] == '[');
    printf("   gw_config_check(valid) warnings: %s\n", warnings ? warnings : "NULL");
    gw_string_free(warnings);
    CHECK_INT(gw_config_check(config, NULL), GW_OK);
    free(config);
}
