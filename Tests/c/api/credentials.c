/* Refreshing credentials against the test server: concurrent 401s share one refresh. */
#include "support.h"
#include "tests.h"

/* The refresh: a thread rotates the realm's token with its own client, then answers. */
typedef struct refresh_state {
    char realm[64];
    int fail;
    int calls;
    pthread_mutex_t mutex;
} refresh_state;

typedef struct refresh_job {
    gw_refresh *refresh;
    refresh_state *state;
} refresh_job;

static char *rotate_token(const char *realm)
{
    gw_client *client = new_client();
    char path[128], *text, *start, *end, *token = NULL;
    int32_t rc;
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    snprintf(path, sizeof path, "/auth/%s/rotate", realm);
    options.method = "POST";
    options.path = path;
    rc = gw_call(client, &options, &result);
    text = rc == GW_OK ? body_text(result) : NULL;
    start = text ? strstr(text, "\"token\": \"") : NULL;
    if (start != NULL) {
        start += strlen("\"token\": \"");
        end = strchr(start, '"');
        if (end != NULL) {
            *end = '\0';
            token = strdup(start);
        }
    }
    free(text);
    gw_result_free(result);
    gw_client_free(client);
    return token;
}

/* Waits (at most 10 s) until the server has answered `count` requests of `realm` with 401:
 * a failing refresh answers only then, so every call is waiting on it (none is sent after
 * the failure, which would be entitled to a refresh of its own). */
static void wait_for_rejections(const char *realm, int count)
{
    gw_client *client = new_client();
    char path[128];
    int waited;
    snprintf(path, sizeof path, "/auth/%s/rotations", realm);
    for (waited = 0; waited < 1000; waited++) {
        int32_t rc;
        gw_result *result = call(client, "GET", path, &rc);
        char *text = body_text(result);
        const char *at = text ? strstr(text, "\"rejected\"") : NULL;
        int rejected = -1;
        if (at != NULL)
            sscanf(at, "\"rejected\" : %d", &rejected);
        free(text);
        gw_result_free(result);
        if (rejected >= count)
            break;
        sleep_ms(10);
    }
    gw_client_free(client);
}

static void *refresh_thread(void *argument)
{
    refresh_job *job = argument;
    if (job->state->fail)
        wait_for_rejections(job->state->realm, 20);
    char *token = job->state->fail ? NULL : rotate_token(job->state->realm);
    gw_refresh_complete(job->refresh, token);
    free(token);
    free(job);
    return NULL;
}

static void start_refresh(gw_refresh *refresh, const char *current_token, void *user_data)
{
    refresh_state *state = user_data;
    refresh_job *job = malloc(sizeof *job);
    pthread_t thread;
    (void)current_token;
    pthread_mutex_lock(&state->mutex);
    state->calls++;
    pthread_mutex_unlock(&state->mutex);
    job->refresh = refresh;
    job->state = state;
    pthread_create(&thread, NULL, refresh_thread, job);
    pthread_detach(thread);
}

static void auth_observer(const gw_result *failure, void *user_data)
{
    auth_outcomes *outcomes = user_data;
    pthread_mutex_lock(&outcomes->mutex);
    if (gw_result_status(failure) == 401)
        outcomes->observed++;
    pthread_mutex_unlock(&outcomes->mutex);
}

static void run_refresh_scenario(int fail)
{
    refresh_state state;
    auth_outcomes outcomes;
    gw_credential_options credential_options = GW_CREDENTIAL_OPTIONS_INIT;
    gw_credential *credential = NULL;
    gw_client_options options = GW_CLIENT_OPTIONS_INIT;
    gw_client *client = NULL;
    gw_call_options call_options = GW_CALL_OPTIONS_INIT;
    char path[128], *initial;
    int i;

    memset(&state, 0, sizeof state);
    pthread_mutex_init(&state.mutex, NULL);
    snprintf(state.realm, sizeof state.realm, "%s", unique_key(fail ? "cfail" : "crealm"));
    state.fail = fail;
    initial = rotate_token(state.realm); /* the server's token, which the client does not have */
    free(initial);
    memset(&outcomes, 0, sizeof outcomes);
    latch_init(&outcomes.done);
    pthread_mutex_init(&outcomes.mutex, NULL);

    credential_options.token = "stale";
    credential_options.refresh = start_refresh;
    credential_options.user_data = &state;
    CHECK_INT(gw_credential_new(&credential_options, &credential), GW_OK);
    options.base_url = base_url;
    options.credential = credential;
    CHECK_INT(gw_client_create(&options, &client), GW_OK);
    gw_credential_free(credential); /* the client keeps its reference */
    CHECK_INT(gw_client_add_failure_observer_filtered(client, "{\"statusCodes\": 401}", auth_observer, &outcomes,
                                                      NULL, NULL), GW_OK);
    snprintf(path, sizeof path, "/auth/%s", state.realm);
    call_options.method = "GET";
    call_options.path = path;
    for (i = 0; i < 20; i++)
        CHECK_INT(gw_call_async(client, &call_options, auth_completion, &outcomes, NULL), GW_OK);
    CHECK_INT(latch_wait(&outcomes.done, 20, 30), 20);
    CHECK_INT(state.calls, 1);
    if (fail) {
        CHECK_INT(outcomes.auth, 20);
        CHECK_INT(outcomes.observed, 20);
    } else {
        CHECK_INT(outcomes.ok, 20);
        CHECK_INT(outcomes.observed, 0);
    }
    gw_client_free(client);
    latch_destroy(&outcomes.done);
    pthread_mutex_destroy(&outcomes.mutex);
    pthread_mutex_destroy(&state.mutex);
}

void test_refreshing_credential(void)
{
    gw_credential_options defaults;
    step("gw_credential_options_init: the library's defaults written out");
    memset(&defaults, 0xAB, sizeof defaults);
    CHECK_INT(gw_credential_options_init(&defaults, GW_CREDENTIAL_OPTIONS_VERSION), GW_OK);
    CHECK_INT((int)defaults.version, (int)GW_CREDENTIAL_OPTIONS_VERSION);
    CHECK(defaults.token == NULL);
    CHECK_STR(defaults.header, "Authorization");
    CHECK_STR(defaults.prefix, "Bearer ");
    CHECK_INT(defaults.max_refreshes, 5);
    CHECK(defaults.refresh_interval == 30.0);
    CHECK(defaults.refresh == NULL && defaults.user_data == NULL && defaults.destroy == NULL);
    CHECK_INT(gw_credential_options_init(&defaults, 99), GW_ERROR_VERSION);
    CHECK_INVALID(gw_credential_options_init(NULL, GW_CREDENTIAL_OPTIONS_VERSION));
    step("refreshing credential: 20 concurrent 401s, one refresh");
    run_refresh_scenario(0);
    step("refreshing credential: a failed refresh");
    run_refresh_scenario(1);
}
