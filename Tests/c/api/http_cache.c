/* The client's HTTP cache against the scripted server's /cacheable/KEY (which counts the
 * requests it saw): a fresh hit sends nothing, a no-cache response is revalidated with a 304,
 * and gw_result_cache says which. */
#include "support.h"
#include "tests.h"

/* GET `path` on `client`; checks that it succeeded with status 200 and returns
 * gw_result_cache's answer, with the attempts JSON copied into `attempts` (size bytes). */
static int32_t cached_call(gw_client *client, const char *path, char *attempts, size_t size)
{
    int32_t rc, where;
    gw_result *result = call(client, "GET", path, &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_status(result), 200);
    where = gw_result_cache(result);
    snprintf(attempts, size, "%s", result ? gw_result_attempts_json(result) : "");
    gw_result_free(result);
    return where;
}

void test_http_cache(void)
{
    char *config = config_with_base("{\"baseURL\": \"%s\", \"cache\": true}");
    gw_client *client = new_client_from_config(config);
    const char *fresh = unique_key("cache-fresh"), *stale = unique_key("cache-stale");
    char path[160], attempts[2048];
    free(config);
    if (client == NULL)
        return;

    step("http_cache: a fresh response is served without a request");
    snprintf(path, sizeof path, "/cacheable/%s?cc=max-age%%3D60", fresh);
    CHECK_INT(cached_call(client, path, attempts, sizeof attempts), GW_CACHE_NETWORK);
    CHECK_INT(count_members(attempts, "status", "200"), 1);
    CHECK_INT(cached_call(client, path, attempts, sizeof attempts), GW_CACHE_HIT);
    CHECK_STR(attempts, "[]");
    CHECK_INT(server_count(client, fresh), 1);

    step("http_cache: a no-cache response is revalidated, a 304 gives the stored one");
    snprintf(path, sizeof path, "/cacheable/%s?cc=no-cache&etag=%%22e1%%22", stale);
    CHECK_INT(cached_call(client, path, attempts, sizeof attempts), GW_CACHE_NETWORK);
    CHECK_INT(cached_call(client, path, attempts, sizeof attempts), GW_CACHE_REVALIDATED);
    CHECK_INT(count_members(attempts, "status", "304"), 1);
    CHECK_INT(server_count(client, stale), 2);
    CHECK_INT(gw_result_cache(NULL), GW_CACHE_NETWORK);
    gw_client_free(client);
}
