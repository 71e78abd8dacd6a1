/* Cancellation, callbacks and freeing: cancel, blocking calls in callbacks, free with calls in flight or from a callback, destroy callbacks. */
#include "support.h"
#include "tests.h"

typedef struct async_state {
    latch done;
    int completions;
    int kind;
    int status;
    int32_t nested_rc;
    int32_t check_rc;
    char check_message[512];
    int nested_result_is_null;
    gw_client *client;
} async_state;

static void record_completion(gw_result *result, void *user_data)
{
    async_state *state = user_data;
    pthread_mutex_lock(&state->done.mutex);
    state->completions++;
    state->kind = gw_result_error_kind(result);
    state->status = gw_result_status(result);
    pthread_mutex_unlock(&state->done.mutex);
    gw_result_free(result);
    latch_count_down(&state->done);
}

void test_cancel(void)
{
    static async_state state;
    gw_client *client = new_client();
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_call_handle *handle = NULL;
    double t0, elapsed;
    if (client == NULL)
        return;
    latch_init(&state.done);
    options.method = "GET";
    options.path = "/delay/5000";
    t0 = now_seconds();
    CHECK_INT(gw_call_async(client, &options, record_completion, &state, &handle), GW_OK);
    CHECK(handle != NULL);
    sleep_ms(200); /* let the attempt reach the server */
    CHECK_INT(gw_call_cancel(handle), GW_OK);
    CHECK_INT(latch_wait(&state.done, 1, 3.0), 1);
    elapsed = now_seconds() - t0;
    printf("   cancelled /delay/5000 completed after %.3f s\n", elapsed);
    CHECK(elapsed < 2.0);
    CHECK_INT(state.kind, GW_KIND_CANCELLED);
    CHECK_INT(state.status, 0);
    CHECK_INT(gw_call_cancel(handle), GW_OK); /* cancelling a finished call is harmless */
    sleep_ms(100);
    CHECK_INT(latch_count(&state.done), 1);
    gw_call_handle_free(handle);
    gw_client_free(client);
}

static void nested_completion(gw_result *result, void *user_data)
{
    async_state *state = user_data;
    static int marker;
    gw_result *nested = (gw_result *)&marker; /* must be reset to NULL */
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    options.method = "GET";
    options.path = "/echo";
    state->check_rc = gw_client_check_blocking(state->client);
    snprintf(state->check_message, sizeof state->check_message, "%s", gw_last_error_message());
    state->nested_rc = gw_call(state->client, &options, &nested);
    state->nested_result_is_null = nested == NULL;
    if (nested != NULL && nested != (gw_result *)&marker)
        gw_result_free(nested);
    gw_result_free(result);
    latch_count_down(&state->done);
}

void test_blocking_call_in_callback(void)
{
    static async_state state;
    gw_client *client = new_client();
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    if (client == NULL)
        return;
    latch_init(&state.done);
    state.client = client;
    state.nested_rc = -1;
    state.check_rc = -1;
    /* Off the loop thread a binding may block; NULL is an argument error. */
    CHECK_INT(gw_client_check_blocking(client), GW_OK);
    CHECK_INVALID(gw_client_check_blocking(NULL));
    options.method = "GET";
    options.path = "/echo";
    CHECK_INT(gw_call_async(client, &options, nested_completion, &state, NULL), GW_OK);
    CHECK_INT(latch_wait(&state.done, 1, 10.0), 1);
    /* gw_client_check_blocking says what gw_call then does, with the same rule. */
    CHECK_INT(state.check_rc, GW_ERROR_WOULD_DEADLOCK);
    CHECK_CONTAINS(state.check_message, "gw_client_check_blocking: called on the client's event-loop thread");
    CHECK_INT(state.nested_rc, GW_ERROR_WOULD_DEADLOCK);
    CHECK(state.nested_result_is_null);
    gw_client_free(client);
}

void test_free_with_call_in_flight(void)
{
    static async_state state;
    static observer_state observer = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, 0};
    gw_client *client = new_client();
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_call_handle *handle = NULL;
    double t0, elapsed;
    if (client == NULL)
        return;
    latch_init(&state.done);
    CHECK_INT(gw_client_add_failure_observer(client, count_failure, &observer, count_destroy, NULL), GW_OK);
    options.method = "GET";
    options.path = "/delay/5000";
    CHECK_INT(gw_call_async(client, &options, record_completion, &state, &handle), GW_OK);
    sleep_ms(200);
    t0 = now_seconds();
    gw_client_free(client); /* blocks until the loop ended: the completion has run */
    elapsed = now_seconds() - t0;
    printf("   gw_client_free with /delay/5000 in flight took %.3f s\n", elapsed);
    CHECK(elapsed < 2.0);
    CHECK_INT(latch_count(&state.done), 1);
    CHECK_INT(state.kind, GW_KIND_CANCELLED);
    CHECK_INT(observed(&observer, NULL, NULL), 1);
    CHECK_INT(destroyed(&observer), 1);
    sleep_ms(200);
    CHECK_INT(latch_count(&state.done), 1); /* exactly once */
    gw_call_handle_free(handle);           /* a handle outlives its client */
}

static void free_from_completion(gw_result *result, void *user_data)
{
    async_state *state = user_data;
    state->kind = gw_result_error_kind(result);
    gw_result_free(result);
    gw_client_free(state->client); /* on the loop thread: must not join itself */
    latch_count_down(&state->done);
}

void test_free_from_callback(void)
{
    static async_state state;
    gw_client *client = new_client();
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    if (client == NULL)
        return;
    latch_init(&state.done);
    state.client = client;
    state.kind = -1;
    options.method = "GET";
    options.path = "/echo";
    CHECK_INT(gw_call_async(client, &options, free_from_completion, &state, NULL), GW_OK);
    CHECK_INT(latch_wait(&state.done, 1, 10.0), 1);
    CHECK_INT(state.kind, GW_KIND_NONE);
    sleep_ms(100); /* the detached loop thread winds down */
}

static int null_id_destroyed;

static void count_null_id_destroy(void *user_data) { (void)user_data; __atomic_add_fetch(&null_id_destroyed, 1, __ATOMIC_SEQ_CST); }

static void ignore_failure(const gw_result *failure, void *user_data) { (void)failure; (void)user_data; }

static void ignore_event(const gw_event *event, void *user_data) { (void)event; (void)user_data; }

void test_destroy_without_out_id(void)
{
    gw_client *client = new_client();
    null_id_destroyed = 0;
    CHECK_INT(gw_client_add_failure_observer(client, ignore_failure, NULL, count_null_id_destroy, NULL), GW_OK);
    CHECK_INT(gw_client_add_failure_observer_filtered(client, "{\"statusCodes\": 401}", ignore_failure, NULL,
                                                      count_null_id_destroy, NULL), GW_OK);
    CHECK_INT(gw_client_add_event_monitor(client, ignore_event, NULL, count_null_id_destroy, NULL), GW_OK);
    gw_client_free(client);
    CHECK_INT(__atomic_load_n(&null_id_destroyed, __ATOMIC_SEQ_CST), 3);
}
