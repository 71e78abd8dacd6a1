/* Failure observers: once per failed call, filtered by status or no response. */
#include "support.h"
#include "tests.h"

/* A port on 127.0.0.1 that nothing listens on: bound by us, then closed. */
static int closed_port(void)
{
    struct sockaddr_in address;
    socklen_t length = sizeof address;
    int port = 0;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&address, sizeof address) == 0 &&
        getsockname(fd, (struct sockaddr *)&address, &length) == 0)
        port = ntohs(address.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

void test_failure_observer(void)
{
    static observer_state state = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0};
    static observer_state refused = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0};
    gw_client *client = new_client();
    gw_client *dead;
    gw_result *result;
    uint64_t id = 0, refused_id = 0;
    int32_t rc;
    int status = -1, kind = -1;
    char dead_config[256];
    if (client == NULL)
        return;

    CHECK_INT(gw_client_add_failure_observer(client, count_failure, &state, count_destroy, &id), GW_OK);
    result = call(client, "GET", "/status/404", &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_status(result), 404);
    gw_result_free(result);
    /* Observers run before the call's own completion, so before gw_call returns. */
    CHECK_INT(observed(&state, &status, &kind), 1);
    CHECK_INT(status, 404);
    CHECK_INT(kind, GW_KIND_HTTP_STATUS);

    result = call(client, "GET", "/echo", &rc); /* a success is not observed */
    CHECK_INT(rc, GW_OK);
    gw_result_free(result);
    CHECK_INT(observed(&state, NULL, NULL), 1);

    result = call(client, "GET", "/status/400", &rc);
    gw_result_free(result);
    CHECK_INT(observed(&state, NULL, NULL), 2);

    /* Removing the observer stops notifications and calls its destroy once. */
    CHECK_INT(gw_client_remove_failure_observer(client, id), GW_OK);
    CHECK_INT(destroyed(&state), 1);
    result = call(client, "GET", "/status/404", &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    gw_result_free(result);
    CHECK_INT(observed(&state, NULL, NULL), 2);
    CHECK_INT(gw_client_remove_failure_observer(client, id), GW_ERROR_INVALID_ARGUMENT);
    gw_client_free(client);
    CHECK_INT(destroyed(&state), 1); /* not again at free */

    /* Connection refused, retried by a fast policy: still one notification per call. */
    snprintf(dead_config, sizeof dead_config,
             "{\"baseURL\": \"http://127.0.0.1:%d\", " FAST_RETRY "}", closed_port());
    dead = new_client_from_config(dead_config);
    if (dead == NULL)
        return;
    CHECK_INT(gw_client_add_failure_observer(dead, count_failure, &refused, count_destroy, &refused_id), GW_OK);
    result = call(dead, "GET", "/echo", &rc);
    CHECK_INT(rc, GW_ERROR_CALL_FAILED);
    CHECK_INT(gw_result_error_kind(result), GW_KIND_CONNECT);
    CHECK_STR(gw_result_error_kind_name(result), "connect");
    CHECK_INT(gw_result_status(result), 0);
    {
        size_t length = 12345;
        CHECK(gw_result_body(result, &length) == NULL);
        CHECK_INT(length, 0);
        CHECK_STR(gw_result_headers_json(result), "[]"); /* no response */
    }
    printf("   connection refused: %d attempts, \"%s\"\n", (int)gw_result_attempt_count(result),
           gw_result_error_message(result));
    CHECK(gw_result_attempt_count(result) >= 1);
    gw_result_free(result);
    CHECK_INT(observed(&refused, &status, &kind), 1);
    CHECK_INT(status, 0);
    CHECK_INT(kind, GW_KIND_CONNECT);
    gw_client_free(dead);
    CHECK_INT(destroyed(&refused), 1); /* destroy runs when the client is freed */
}

void test_filtered_observers(void)
{
    int unauthorized[2] = {0, 0}, offline[2] = {0, 0};
    char url[64];
    gw_client *clients[2];
    gw_result *result;
    int32_t rc;
    int i;
    step("filtered observers: 401 and no connection");
    snprintf(url, sizeof url, "http://127.0.0.1:%d", closed_port());
    clients[0] = new_client();
    CHECK_INT(gw_client_new(url, &clients[1]), GW_OK);
    for (i = 0; i < 2; i++) {
        CHECK_INT(gw_client_add_failure_observer_filtered(clients[i], "{\"statusCodes\": [401]}", count_status,
                                                          unauthorized, NULL, NULL), GW_OK);
        CHECK_INT(gw_client_add_failure_observer_filtered(clients[i], "{\"noResponse\": true}", count_status,
                                                          offline, NULL, NULL), GW_OK);
        gw_result_free(call(clients[i], "GET", "/status/401", &rc));
        gw_result_free(call(clients[i], "GET", "/status/500", &rc));
        gw_client_free(clients[i]);
    }
    CHECK_INT(unauthorized[1], 1);
    CHECK_INT(unauthorized[0], 0);
    CHECK_INT(offline[0], 2);
    CHECK_INT(offline[1], 0);
    CHECK_INT(gw_client_add_failure_observer_filtered(NULL, NULL, count_status, NULL, NULL, NULL),
              GW_ERROR_INVALID_ARGUMENT);
    clients[0] = new_client();
    CHECK_INT(gw_client_add_failure_observer_filtered(clients[0], "{\"kinds\": [\"nope\"]}", count_status, NULL,
                                                      NULL, NULL), GW_ERROR_INVALID_ARGUMENT);
    CHECK_CONTAINS(gw_last_error_message(), "unknown error kind");
    result = call(clients[0], "GET", "/echo", &rc);
    gw_result_free(result);
    gw_client_free(clients[0]);
}
