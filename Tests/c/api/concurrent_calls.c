/* Concurrent asynchronous calls: gw_call_async from many threads, each with its own body. */
#include "support.h"
#include "tests.h"

#define CONCURRENT 20

typedef struct echo_call {
    int index;
    int completions;
    int status;
    int body_has_index;
    int on_caller_thread;
    latch *done;
} echo_call;

static void echo_completion(gw_result *result, void *user_data)
{
    echo_call *c = user_data;
    char *body = body_text(result);
    char value[32];
    snprintf(value, sizeof value, "\"%d\"", c->index);
    pthread_mutex_lock(&c->done->mutex);
    c->completions++;
    c->status = gw_result_status(result);
    c->body_has_index = has_member(body, "i", value);
    c->on_caller_thread = pthread_equal(pthread_self(), main_thread);
    pthread_mutex_unlock(&c->done->mutex);
    free(body);
    gw_result_free(result);
    latch_count_down(c->done);
}

void test_concurrent_async(void)
{
    /* Static: a late completion after a timed-out wait must not write to a dead frame. */
    static echo_call calls[CONCURRENT];
    static latch done;
    static char paths[CONCURRENT][32];
    gw_client *client = new_client();
    int i, reached, started = 0;
    double t0;
    if (client == NULL)
        return;
    latch_init(&done);
    t0 = now_seconds();
    for (i = 0; i < CONCURRENT; i++) {
        gw_call_options options = GW_CALL_OPTIONS_INIT;
        gw_call_handle *handle = NULL;
        calls[i].index = i;
        calls[i].done = &done;
        snprintf(paths[i], sizeof paths[i], "/echo?i=%d", i);
        options.method = "GET";
        options.path = paths[i];
        /* Half keep a handle (freed at once: freeing does not cancel), half pass NULL. */
        if (gw_call_async(client, &options, echo_completion, &calls[i], i % 2 ? &handle : NULL) == GW_OK)
            started++;
        if (i % 2) {
            CHECK(handle != NULL);
            gw_call_handle_free(handle);
        }
    }
    CHECK_INT(started, CONCURRENT);
    reached = latch_wait(&done, CONCURRENT, 10.0);
    CHECK_INT(reached, CONCURRENT);
    printf("   %d async calls completed in %.3f s\n", reached, now_seconds() - t0);
    sleep_ms(100); /* room for a (wrong) second completion */
    pthread_mutex_lock(&done.mutex);
    for (i = 0; i < CONCURRENT; i++) {
        check(calls[i].completions == 1, __FILE__, __LINE__, "call %d completed %d times", i,
              calls[i].completions);
        check(calls[i].status == 200, __FILE__, __LINE__, "call %d status %d", i, calls[i].status);
        check(calls[i].body_has_index, __FILE__, __LINE__, "call %d: body has its own i", i);
        check(!calls[i].on_caller_thread, __FILE__, __LINE__, "call %d completed on the loop thread", i);
    }
    pthread_mutex_unlock(&done.mutex);
    gw_client_free(client);
    if (reached == CONCURRENT)
        latch_destroy(&done);
}
