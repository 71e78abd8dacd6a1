/* Connection limits: with "maxConnectionsPerHost": 1, of two calls that each hold the one
 * connection for 1 s, one waits for it, and its attempt's timings say so ("queued"). */
#include "support.h"
#include "tests.h"

typedef struct queued_call {
    gw_client *client;
    int32_t rc;
    double queued;
} queued_call;

/* The attempt's timings.queued, read from the attempts JSON; -1 when absent. */
static double queued_seconds(const gw_result *result)
{
    const char *attempts = gw_result_attempts_json(result);
    const char *found = attempts ? strstr(attempts, "\"queued\":") : NULL;
    return found ? strtod(found + strlen("\"queued\":"), NULL) : -1;
}

static void *send_delayed(void *argument)
{
    queued_call *c = argument;
    gw_result *result = call(c->client, "GET", "/delay/1000", &c->rc);
    c->queued = result ? queued_seconds(result) : -1;
    gw_result_free(result);
    return NULL;
}

void test_connection_limits(void)
{
    char *config = config_with_base("{\"baseURL\": \"%s\", \"maxConnectionsPerHost\": 1, \"retry\": {\"maxRetries\": 0}}");
    gw_client *client = new_client_from_config(config);
    queued_call calls[2] = {{client, -1, -1}, {client, -1, -1}};
    pthread_t threads[2];
    double longer, shorter;
    free(config);
    if (client == NULL)
        return;
    for (int i = 0; i < 2; i++)
        CHECK_INT(pthread_create(&threads[i], NULL, send_delayed, &calls[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(threads[i], NULL);
    CHECK_INT(calls[0].rc, GW_OK);
    CHECK_INT(calls[1].rc, GW_OK);
    longer = calls[0].queued > calls[1].queued ? calls[0].queued : calls[1].queued;
    shorter = calls[0].queued > calls[1].queued ? calls[1].queued : calls[0].queued;
    CHECK(shorter >= 0);
    /* The server held the one connection at least 1 s; the two threads start their calls at
     * nearly the same time (0.8: 200 ms for a loaded machine to start the second). */
    CHECK(longer >= 0.8);
    printf("   queued: %.3f s and %.3f s\n", shorter, longer);
    gw_client_free(client);
}
