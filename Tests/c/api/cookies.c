/* The client's cookie jar against a real httpbin: a cookie set by one call is sent by the
 * next, gw_client_cookies_json lists it, and a client without "cookies" keeps none. */
#include "support.h"
#include "tests.h"

/* A client for httpbin whose config adds `extra` (e.g. ", \"cookies\": true"). */
static gw_client *httpbin_client(const char *extra)
{
    char config[512];
    snprintf(config, sizeof config, "{\"baseURL\": \"%s\"%s}", httpbin_url, extra);
    return new_client_from_config(config);
}

/* The body httpbin's /cookies answers: the cookies it received. */
static char *cookies_seen(gw_client *client)
{
    int32_t rc;
    gw_result *result = call(client, "GET", "/cookies", &rc);
    char *text;
    CHECK_INT(rc, GW_OK);
    text = result ? body_text(result) : NULL;
    gw_result_free(result);
    return text;
}

void test_httpbin_cookie_jar(void)
{
    gw_client *client;
    gw_result *result;
    char *json = NULL, *seen;
    int32_t rc;

    step("httpbin_cookie_jar: a jar keeps the cookie and sends it back");
    client = httpbin_client(", \"cookies\": true");
    if (client == NULL)
        return;
    result = call(client, "GET", "/cookies/set?k=v", &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_status(result), 200); /* the 302 to /cookies, followed */
    gw_result_free(result);
    seen = cookies_seen(client);
    CHECK_MEMBER(seen, "k", "\"v\"");
    free(seen);
    CHECK_INT(gw_client_cookies_json(client, &json), GW_OK);
    CHECK_MEMBER(json, "name", "\"k\"");
    CHECK_MEMBER(json, "value", "\"v\"");
    CHECK_MEMBER(json, "domain", "\"127.0.0.1\"");
    CHECK_MEMBER(json, "expires", "0");
    CHECK_INT(count_members(json, "name", "\"k\""), 1);
    gw_string_free(json);
    gw_client_free(client);

    step("httpbin_cookie_jar: without one nothing is kept");
    client = httpbin_client("");
    if (client == NULL)
        return;
    result = call(client, "GET", "/cookies/set?k=v", &rc);
    CHECK_INT(rc, GW_OK);
    gw_result_free(result);
    seen = cookies_seen(client);
    CHECK_CONTAINS(seen, "\"cookies\": {}");
    free(seen);
    CHECK_INT(gw_client_cookies_json(client, &json), GW_OK);
    CHECK_STR(json, "[]");
    gw_string_free(json);
    CHECK_INVALID(gw_client_cookies_json(client, NULL));
    CHECK_INVALID(gw_client_cookies_json(NULL, &json));
    gw_client_free(client);
}
