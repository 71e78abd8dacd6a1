/*
 * An application that uses Jansson itself, beside Gatewire, in one process (the same
 * libjansson.so). Gatewire builds the trees of large bodies in arenas through Jansson's
 * process-wide allocator hooks (Sources/CGatewireArena/arena.c); this checks the rules it
 * promises the application, through the C ABI, against the test server at $GW_TEST_BASE_URL
 * (run_with_server.py):
 *
 *     test_jansson_sharing shared         the application's own Jansson objects, made with
 *                                         malloc before Gatewire switched the allocator, are
 *                                         freed correctly after; objects it makes later on
 *                                         its threads are plain malloc (json_dumps + free());
 *     test_jansson_sharing own-allocator  an application that installed its own allocator
 *                                         first keeps it: Gatewire then allocates through it
 *                                         (no arenas), and frees all it allocated.
 *
 * Both map a large body (a POST echoed back, about 100 KB) and check the mapped objects.
 * Prints "<passed> passed, <failed> failed"; exits non-zero on any failure.
 */
#define _POSIX_C_SOURCE 200809L

/* Written against the 0.x flat gw_call_options (version 4, policy_json): kept so. */
#define GW_USE_CALL_OPTIONS_V4
#include "gatewire.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;

#define CHECK(cond) check((cond) != 0, __LINE__, #cond)
static void check(int ok, int line, const char *what)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        fprintf(stderr, "test_jansson_sharing.c:%d: failed: %s\n", line, what);
    }
}

/* The application's allocator for own-allocator mode: malloc/free, counted. */
static atomic_long app_mallocs, app_frees;
static void *app_malloc(size_t size)
{
    atomic_fetch_add(&app_mallocs, 1);
    return malloc(size);
}
static void app_free(void *pointer)
{
    if (pointer)
        atomic_fetch_add(&app_frees, 1);
    free(pointer);
}

/* POSTs `count` users to /echo/users and checks the mapped objects (the body comes back
 * under "body"): the last one's text, and the count. */
static void map_large_body(gw_client *client, int count)
{
    size_t size = (size_t)count * 120 + 16, used = 0;
    char *body = malloc(size);
    gw_call_options options = GW_CALL_OPTIONS_INIT;
    gw_result *result = NULL;
    const char *mapped;
    char expected[160];
    used += (size_t)snprintf(body + used, size - used, "[");
    for (int i = 0; i < count; i++)
        used += (size_t)snprintf(body + used, size - used, "%s{\"id\": \"%d\", \"name\": \"User %d\", \"home\": {\"city\": \"C%d\"}}",
                                 i ? "," : "", i, i, i % 7);
    snprintf(body + used, size - used, "]");
    options.method = "POST";
    options.path = "/echo/users";
    options.body_json = body;
    CHECK(gw_call(client, &options, &result) == GW_OK);
    free(body);
    if (result == NULL)
        return;
    CHECK(gw_result_status(result) == 200);
    mapped = gw_result_mapped_json(result);
    snprintf(expected, sizeof expected, "{\"userId\":%d,\"fullName\":\"User %d\",\"home\":{\"cityName\":\"C%d\"}}]",
             count - 1, count - 1, (count - 1) % 7);
    CHECK(mapped != NULL && strstr(mapped, expected) != NULL);
    CHECK(gw_result_mapped_count(result, "body") == count);
    gw_result_free(result);
}

static gw_client *new_client(void)
{
    const char *base = getenv("GW_TEST_BASE_URL");
    char config[1024];
    gw_client *client = NULL;
    snprintf(config, sizeof config,
             "{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 0},"
             " \"mappings\": {\"User\": {\"attributes\": {\"id\": {\"to\": \"userId\", \"type\": \"integer\"},"
             "                                             \"name\": \"fullName\"},"
             "                            \"relationships\": {\"home\": {\"to\": \"home\", \"mapping\": \"Place\"}}},"
             "                \"Place\": {\"attributes\": {\"city\": \"cityName\"}}},"
             " \"responseDescriptors\": [{\"mapping\": \"User\", \"method\": \"POST\", \"pathPattern\": \"/echo/users\","
             "                            \"keyPath\": \"body\"}]}",
             base ? base : "");
    CHECK(base != NULL);
    CHECK(gw_client_new_from_config(config, &client) == GW_OK);
    return client;
}

static void shared(void)
{
    /* Made with malloc before Gatewire's first large body switches the allocator. */
    json_t *before = json_pack("{s:s, s:[i, i, s]}", "made", "before", "list", 1, 2, "three");
    gw_client *client = new_client();
    if (client == NULL)
        return;
    map_large_body(client, 1000);
    map_large_body(client, 3000);
    json_malloc_t m;
    json_free_t f;
    json_get_alloc_funcs(&m, &f);
    CHECK(m != malloc && f != free); /* Gatewire's arena hooks: the path under test was taken */
    /* Still the application's own tree, freed through whatever allocator is installed now. */
    char *text = json_dumps(before, JSON_COMPACT | JSON_SORT_KEYS);
    CHECK(text != NULL && strcmp(text, "{\"list\":[1,2,\"three\"],\"made\":\"before\"}") == 0);
    free(text); /* json_dumps text on the application's thread: malloc'ed, freed with free() */
    json_object_set_new(before, "after", json_string("the switch"));
    json_decref(before);
    json_t *after = json_loads("{\"a\": [1, 2, {\"b\": null}]}", 0, NULL);
    CHECK(after != NULL && json_array_size(json_object_get(after, "a")) == 3);
    json_decref(after);
    gw_client_free(client);
}

static void own_allocator(void)
{
    json_malloc_t m;
    json_free_t f;
    json_set_alloc_funcs(app_malloc, app_free);
    gw_client *client = new_client();
    if (client == NULL)
        return;
    long mallocs_before = atomic_load(&app_mallocs);
    map_large_body(client, 3000);
    /* Gatewire's trees went through the application's allocator, which is still installed. */
    CHECK(atomic_load(&app_mallocs) - mallocs_before > 10000);
    json_get_alloc_funcs(&m, &f);
    CHECK(m == app_malloc && f == app_free);
    gw_client_free(client);
    /* Everything allocated through it was freed through it. */
    CHECK(atomic_load(&app_mallocs) == atomic_load(&app_frees));
}

int main(int argc, char **argv)
{
    alarm(120);
    if (argc == 2 && strcmp(argv[1], "shared") == 0) {
        shared();
    } else if (argc == 2 && strcmp(argv[1], "own-allocator") == 0) {
        own_allocator();
    } else {
        fprintf(stderr, "usage: test_jansson_sharing shared|own-allocator\n");
        return 2;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
