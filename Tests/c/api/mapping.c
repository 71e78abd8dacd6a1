/* Response mapping through descriptors: gw_result_mapped_json and friends. */
#include "support.h"
#include "tests.h"

void test_mapping(void)
{
    char *config = config_with_base(
        "{\"baseURL\": \"%s\","
        " \"mappings\": {\"Charge\": {\"attributes\": {"
        "   \"id\": \"id\","
        "   \"amount\": {\"to\": \"amount\", \"type\": \"integer\"},"
        "   \"created\": {\"to\": \"createdAt\", \"type\": \"date\", \"dateFormat\": \"epochSeconds\"},"
        "   \"source.last4\": {\"to\": \"last4\", \"type\": \"string\"}}}},"
        " \"responseDescriptors\": [{\"mapping\": \"Charge\", \"method\": \"GET\","
        "   \"pathPattern\": \"/fixture/:name\", \"statusCodes\": \"2xx\"}]}");
    gw_client *client;
    gw_result *result;
    const char *mapped;
    int32_t rc;
    client = new_client_from_config(config);
    free(config);
    if (client == NULL)
        return;
    /* Tests/fixtures/real/stripe-charge.json: a real Stripe charge (amount 1061, card 4242). */
    result = call(client, "GET", "/fixture/stripe-charge.json", &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    mapped = gw_result_mapped_json(result);
    printf("   mapped: %s\n", mapped ? mapped : "NULL");
    CHECK(mapped != NULL && mapped[0] == '{');
    CHECK_MEMBER(mapped, "", "{");
    CHECK_MEMBER(mapped, "id", "\"ch_198c152iMoKf4jyWWYvyqjTX\"");
    CHECK_MEMBER(mapped, "amount", "1061");
    CHECK(!has_member(mapped, "amount", "\"1061\"")); /* an integer, not a string */
    CHECK_MEMBER(mapped, "last4", "\"4242\"");
    CHECK_MEMBER(mapped, "createdAt", "\"2016-10-25T20:59:27"); /* 1477429167 s, UTC */
    CHECK(!has_member(mapped, "object", "\"charge\"")); /* unmapped keys are not copied */
    gw_result_free(result);

    /* A path no descriptor matches: the call succeeds, nothing is mapped. */
    result = call(client, "GET", "/echo", &rc);
    CHECK_INT(rc, GW_OK);
    CHECK(gw_result_mapped_json(result) == NULL);
    gw_result_free(result);
    gw_client_free(client);
}
