/*
 * Global 401 handling in C (RestKit's one-place failure handling, with a token refresh):
 *
 *   refresh_401 BASE_URL          (an httpbin: /bearer, /basic-auth/:user/:password)
 *
 * 1. A refreshing credential with no token: GET /bearer answers 401, the credential asks
 *    its refresh function once (here a thread that "logs in"), and the call replays inside
 *    the same logical call: its attempts show 401 then 200.
 * 2. One global failure observer filtered to 401 ("log in again") and one for no connection.
 *    A wrong basic password (the call's own Authorization, never refreshed) ends as 401, and
 *    the observer sees it once.
 * 3. A second credential whose refresh fails: the call fails with GW_KIND_AUTH, status 401,
 *    and the same observer sees it.
 * Build: cc refresh_401.c $(pkg-config --cflags --libs gatewire) -lpthread
 */
#define _POSIX_C_SOURCE 200809L
#include <gatewire.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *log_in(void *refresh)
{
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL); /* pretend to call the identity provider */
    gw_refresh_complete(refresh, "fresh-token-from-login");
    return NULL;
}

static void refresh_ok(gw_refresh *refresh, const char *current, void *user_data)
{
    pthread_t thread;
    (void)user_data;
    printf("  refresh asked (refused token: %s)\n", current ? "<set>" : "none");
    pthread_create(&thread, NULL, log_in, refresh);
    pthread_detach(thread);
}

static void refresh_fails(gw_refresh *refresh, const char *current, void *user_data)
{
    (void)current;
    (void)user_data;
    printf("  refresh asked: the identity provider refuses\n");
    gw_refresh_complete(refresh, NULL);
}

static void on_401(const gw_result *failure, void *user_data)
{
    (void)user_data;
    printf("  [observer 401] %s %s -> %d (%s): log in again\n", gw_result_method(failure), gw_result_path(failure),
           gw_result_status(failure), gw_result_error_kind_name(failure));
}

static void on_offline(const gw_result *failure, void *user_data)
{
    (void)user_data;
    printf("  [observer no connection] %s\n", gw_result_error_kind_name(failure));
}

static gw_client *client_with(const char *base_url, gw_refresh_fn refresh)
{
    gw_credential_options credential_options = GW_CREDENTIAL_OPTIONS_INIT;
    gw_credential *credential = NULL;
    gw_client_options options = GW_CLIENT_OPTIONS_INIT;
    gw_client *client = NULL;
    credential_options.refresh = refresh;
    if (gw_credential_new(&credential_options, &credential) != GW_OK) return NULL;
    options.base_url = base_url;
    options.credential = credential;
    if (gw_client_create(&options, &client) != GW_OK) printf("%s\n", gw_last_error_message());
    gw_credential_free(credential);
    gw_client_add_failure_observer_filtered(client, "{\"statusCodes\": 401}", on_401, NULL, NULL, NULL);
    gw_client_add_failure_observer_filtered(client, "{\"noResponse\": true}", on_offline, NULL, NULL, NULL);
    return client;
}

static void get(gw_client *client, const char *path, const char *headers_json)
{
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    options.method = "GET";
    options.path = path;
    options.headers_json = headers_json;
    gw_call(client, &options, &result);
    printf("  GET %s: %s, status %d, attempts %s\n", path, gw_result_ok(result) ? "ok" : gw_result_error_kind_name(result),
           gw_result_status(result), gw_result_attempts_json(result));
    gw_result_free(result);
}

int main(int argc, char **argv)
{
    gw_client *client, *failing;
    if (argc != 2) {
        fprintf(stderr, "usage: refresh_401 BASE_URL\n");
        return 2;
    }
    puts("C: 1. a 401, one refresh, the replay inside the same call");
    client = client_with(argv[1], refresh_ok);
    get(client, "/bearer", NULL);
    puts("C: 2. a wrong basic password: the observer sees the 401 once");
    get(client, "/basic-auth/ann/secret", "{\"Authorization\": \"Basic YW5uOndyb25n\"}");
    puts("C: 3. a refresh that fails: kind auth, status 401, the observer sees it");
    failing = client_with(argv[1], refresh_fails);
    get(failing, "/bearer", NULL);
    gw_client_free(failing);
    gw_client_free(client);
    return 0;
}
