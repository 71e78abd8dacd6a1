/* Routes and request descriptors. */
#include "support.h"
#include "tests.h"

void test_routes(void)
{
    char *config = config_with_base(
        "{\"baseURL\": \"%s\","
        " \"routes\": {\"item\": {\"method\": \"GET\", \"pathPattern\": \"/echo/items/:id\"},"
        "   \"createUser\": {\"method\": \"POST\", \"pathPattern\": \"/echo/users\", \"objectType\": \"User\"}},"
        " \"mappings\": {\"User\": {\"attributes\": {\"full_name\": \"name\", \"email\": \"email\"}}},"
        " \"requestDescriptors\": [{\"objectType\": \"User\", \"mapping\": \"User\", \"rootKeyPath\": \"user\"}]}");
    gw_client *client = new_client_from_config(config);
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    char *body;
    free(config);
    if (client == NULL)
        return;

    /* Path parameters are percent-encoded (RFC 3986); the others become the query. */
    options.route = "item";
    options.method = "DELETE"; /* ignored with a route */
    options.params_json = "{\"id\": \"a b/c\", \"q\": \"x\"}";
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    CHECK_STR(gw_result_method(result), "GET");
    CHECK_CONTAINS(gw_result_path(result), "/echo/items/a%20b%2Fc");
    body = body_text(result);
    CHECK_MEMBER(body, "path", "\"/echo/items/a%20b%2Fc\"");
    CHECK_MEMBER(body, "q", "\"x\"");
    free(body);
    gw_result_free(result);

    /* object_type NULL: the route's objectType maps body_json through its request descriptor. */
    options.route = "createUser";
    options.params_json = NULL;
    options.body_json = "{\"name\": \"Ada Lovelace\", \"email\": \"ada@example.org\"}";
    result = NULL;
    CHECK_INT(gw_call(client, &options, &result), GW_OK);
    body = body_text(result);
    CHECK_MEMBER(body, "user", "{");
    CHECK_MEMBER(body, "full_name", "\"Ada Lovelace\"");
    CHECK_MEMBER(body, "email", "\"ada@example.org\"");
    free(body);
    gw_result_free(result);

    /* An unknown route cannot be built: an error result, nothing sent. */
    options.route = "nope";
    options.body_json = NULL;
    result = NULL;
    CHECK_INT(gw_call(client, &options, &result), GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_INVALID_ARGUMENT);
    CHECK_INT(gw_result_attempt_count(result), 0);
    printf("   unknown route: \"%s\"\n", gw_result_error_message(result));
    gw_result_free(result);
    gw_client_free(client);
}
