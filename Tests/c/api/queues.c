/* Completion queues and gw_result_read. */
#include "support.h"
#include "tests.h"

#define QUEUED 40

/* gw_queue_wait from a completion (the loop thread): a wait is refused at once with
 * GW_ERROR_WOULD_DEADLOCK (it would stall the loop that fills the queue), a poll is allowed. */
typedef struct queue_wait_state {
    latch done;
    gw_queue *queue;
    int32_t waiting_rc, forever_rc, poll_rc;
    double waited;
    char message[512];
} queue_wait_state;

static void wait_in_completion(gw_result *result, void *user_data)
{
    queue_wait_state *state = user_data;
    gw_result *taken[4];
    size_t count = 99;
    double t0 = now_seconds();
    state->waiting_rc = gw_queue_wait(state->queue, 5.0, taken, NULL, 4, &count);
    snprintf(state->message, sizeof state->message, "%s", gw_last_error_message());
    state->forever_rc = gw_queue_wait(state->queue, -1.0, taken, NULL, 4, &count);
    state->waited = now_seconds() - t0;
    state->poll_rc = gw_queue_wait(state->queue, 0, taken, NULL, 4, &count);
    gw_result_free(result);
    latch_count_down(&state->done);
}

void test_queue_wait_on_the_loop_thread(void)
{
    gw_client *client = new_client();
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    static queue_wait_state state;
    step("gw_queue_wait in a completion: refused, not a stalled loop");
    if (client == NULL)
        return;
    latch_init(&state.done);
    CHECK_INT(gw_queue_new(&state.queue), GW_OK);
    options.method = "GET";
    options.path = "/echo";
    CHECK_INT(gw_call_async(client, &options, wait_in_completion, &state, NULL), GW_OK);
    CHECK(latch_wait(&state.done, 1, 10.0));
    CHECK_INT(state.waiting_rc, GW_ERROR_WOULD_DEADLOCK);
    CHECK_INT(state.forever_rc, GW_ERROR_WOULD_DEADLOCK);
    CHECK(state.waited < 1.0);
    CHECK_CONTAINS(state.message, "gw_queue_wait: called on an event-loop thread");
    CHECK_INT(state.poll_rc, GW_OK);
    gw_client_free(client);
    gw_queue_free(state.queue);
    latch_destroy(&state.done);
}

void test_completion_queue(void)
{
    static char paths[QUEUED][32];
    gw_client *client = new_client();
    gw_queue *queue = NULL, *late = NULL;
    gw_result *results[8];
    uint64_t tags[8];
    int seen[QUEUED] = {0};
    size_t count = 99, taken = 0;
    int i, bad_body = 0, bad_status = 0;
    double t0;
    if (client == NULL)
        return;
    CHECK_INVALID(gw_queue_new(NULL));
    CHECK_INT(gw_queue_new(&queue), GW_OK);
    CHECK(queue != NULL);
    CHECK_INT((int)gw_queue_count(queue), 0);
    CHECK_INT((int)gw_queue_count(NULL), 0);
    /* Arguments. */
    CHECK_INVALID(gw_queue_wait(NULL, 0, results, tags, 8, &count));
    CHECK_INVALID(gw_queue_wait(queue, 0, NULL, tags, 8, &count));
    CHECK_INVALID(gw_queue_wait(queue, 0, results, tags, 0, &count));
    CHECK_INVALID(gw_queue_wait(queue, 0, results, tags, 8, NULL));
    {
        gw_call_options options = GW_CALL_OPTIONS_INIT;
        options.method = "GET";
        options.path = "/echo";
        CHECK_INVALID(gw_call_async_queued(client, &options, NULL, 1, NULL));
        CHECK_INVALID(gw_call_async_queued(NULL, &options, queue, 1, NULL));
        CHECK_INVALID(gw_call_async_queued(client, NULL, queue, 1, NULL));
    }
    /* An empty queue: no wait at 0, a bounded wait with a timeout. */
    count = 99;
    CHECK_INT(gw_queue_wait(queue, 0, results, tags, 8, &count), GW_OK);
    CHECK_INT((int)count, 0);
    t0 = now_seconds();
    CHECK_INT(gw_queue_wait(queue, 0.05, results, tags, 8, &count), GW_OK);
    CHECK_INT((int)count, 0);
    CHECK(now_seconds() - t0 >= 0.04);

    /* Many calls, each result exactly once with its tag, taken at most 8 at a time. */
    for (i = 0; i < QUEUED; i++) {
        gw_call_options options = GW_CALL_OPTIONS_INIT;
        gw_call_handle *handle = NULL;
        snprintf(paths[i], sizeof paths[i], "/echo?i=%d", i);
        options.method = "GET";
        options.path = paths[i];
        CHECK_INT(gw_call_async_queued(client, &options, queue, (uint64_t)(1000 + i), i % 2 ? &handle : NULL), GW_OK);
        if (i % 2) {
            CHECK(handle != NULL);
            gw_call_handle_free(handle);
        }
    }
    t0 = now_seconds();
    while (taken < QUEUED && now_seconds() - t0 < 10.0) {
        size_t k;
        CHECK_INT(gw_queue_wait(queue, -1.0, results, tags, 8, &count), GW_OK);
        CHECK(count >= 1 && count <= 8);
        for (k = 0; k < count; k++) {
            gw_result_fields fields;
            int index = (int)tags[k] - 1000;
            memset(&fields, 0, sizeof fields);
            fields.version = GW_RESULT_FIELDS_VERSION;
            CHECK_INT(gw_result_read(results[k], &fields), GW_OK);
            if (index >= 0 && index < QUEUED)
                seen[index]++;
            if (fields.ok != 1 || fields.status != 200 || fields.error_kind != GW_KIND_NONE || fields.attempt_count != 1)
                bad_status++;
            {
                size_t length = 0;
                const uint8_t *body = gw_result_body(results[k], &length);
                if (fields.body != body || fields.body_length != length || length == 0 ||
                    strstr((const char *)fields.body, "\"query\"") == NULL)
                    bad_body++;
            }
            gw_result_free(results[k]);
        }
        taken += count;
    }
    CHECK_INT((int)taken, QUEUED);
    CHECK_INT(bad_status, 0);
    CHECK_INT(bad_body, 0);
    for (i = 0; i < QUEUED; i++)
        check(seen[i] == 1, __FILE__, __LINE__, "tag %d taken %d times", 1000 + i, seen[i]);
    CHECK_INT((int)gw_queue_count(queue), 0);

    /* A failed call arrives as a failure; gw_result_read reports it. */
    {
        gw_call_options options = GW_CALL_OPTIONS_INIT;
        gw_result_fields fields;
        options.route = "no-such-route";
        CHECK_INT(gw_call_async_queued(client, &options, queue, 7, NULL), GW_OK);
        CHECK_INT(gw_queue_wait(queue, 10.0, results, tags, 8, &count), GW_OK);
        CHECK_INT((int)count, 1);
        if (count == 1) {
            memset(&fields, 0, sizeof fields);
            CHECK_INT(gw_result_read(results[0], &fields), GW_ERROR_VERSION);
            fields.version = GW_RESULT_FIELDS_VERSION;
            CHECK_INT(gw_result_read(results[0], &fields), GW_OK);
            CHECK_INT((int)tags[0], 7);
            CHECK_INT(fields.ok, 0);
            CHECK_INT(fields.error_kind, GW_KIND_INVALID_ARGUMENT);
            CHECK_INT(fields.error_kind, gw_result_error_kind(results[0]));
            gw_result_free(results[0]);
        }
        CHECK_INVALID(gw_result_read(NULL, &fields));
    }

    /* Freed with calls in flight and results never taken: the calls finish, nothing leaks
     * or crashes (checked under the sanitizers). */
    CHECK_INT(gw_queue_new(&late), GW_OK);
    for (i = 0; i < 4; i++) {
        gw_call_options options = GW_CALL_OPTIONS_INIT;
        options.method = "GET";
        options.path = i < 2 ? "/echo" : "/delay/50";
        CHECK_INT(gw_call_async_queued(client, &options, late, (uint64_t)i, NULL), GW_OK);
    }
    gw_queue_free(late);
    gw_queue_free(NULL);
    sleep_ms(150);
    gw_queue_free(queue);
    gw_client_free(client);
}

/* gw_queue_set_notify: told once per batch, i.e. when a result lands in a queue that held
 * none; a second result pushed before the first is taken is not announced again. */
static void count_notice(gw_queue *queue, void *user_data)
{
    (void)queue;
    latch_count_down(user_data);
}

static void queue_one(gw_client *client, gw_queue *queue, uint64_t tag)
{
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    options.method = "GET";
    options.path = "/echo";
    CHECK_INT(gw_call_async_queued(client, &options, queue, tag, NULL), GW_OK);
}

void test_queue_notify(void)
{
    gw_client *client = new_client();
    gw_queue *queue = NULL;
    gw_result *results[4];
    size_t count = 0;
    double t0;
    static latch notices;
    step("gw_queue_set_notify: one notice per batch");
    if (client == NULL)
        return;
    latch_init(&notices);
    CHECK_INVALID(gw_queue_set_notify(NULL, count_notice, &notices));
    CHECK_INT(gw_queue_new(&queue), GW_OK);
    CHECK_INT(gw_queue_set_notify(queue, count_notice, &notices), GW_OK);
    queue_one(client, queue, 1);
    CHECK(latch_wait(&notices, 1, 10.0));
    queue_one(client, queue, 2);
    t0 = now_seconds();
    while (gw_queue_count(queue) < 2 && now_seconds() - t0 < 10.0)
        sleep_ms(5);
    CHECK_INT((int)gw_queue_count(queue), 2);
    CHECK_INT(latch_count(&notices), 1);
    CHECK_INT(gw_queue_wait(queue, 0, results, NULL, 4, &count), GW_OK);
    CHECK_INT((int)count, 2);
    gw_result_free(results[0]);
    gw_result_free(results[1]);
    queue_one(client, queue, 3);
    CHECK(latch_wait(&notices, 2, 10.0));
    CHECK_INT(gw_queue_wait(queue, 5.0, results, NULL, 4, &count), GW_OK);
    CHECK_INT((int)count, 1);
    gw_result_free(results[0]);
    CHECK_INT(gw_queue_set_notify(queue, NULL, NULL), GW_OK);
    queue_one(client, queue, 4);
    CHECK_INT(gw_queue_wait(queue, 5.0, results, NULL, 4, &count), GW_OK);
    CHECK_INT((int)count, 1);
    gw_result_free(results[0]);
    CHECK_INT(latch_count(&notices), 2);
    gw_client_free(client);
    gw_queue_free(queue);
    latch_destroy(&notices);
}
