/* Times in JSON: one number format in attempts, events and metrics. */
#include "support.h"
#include "tests.h"

/* Non-zero when every real number (a number token with '.', 'e' or 'E') in `json` is the
 * time format's text of its own value; counts them in *reals. Strings are skipped. With
 * `verbose`, a mismatch is printed. */
static int times_in_time_format(const char *json, int *reals, int verbose)
{
    const char *p = json;
    if (json == NULL)
        return 0;
    while (*p) {
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (*p)
                p++;
        } else if (*p == '-' || (*p >= '0' && *p <= '9')) {
            char token[64], expected[64], *e;
            size_t n = strspn(p, "-+0123456789.eE");
            if (n >= sizeof token)
                return 0;
            memcpy(token, p, n);
            token[n] = '\0';
            p += n;
            if (strpbrk(token, ".eE") == NULL)
                continue; /* an integer */
            (*reals)++;
            snprintf(expected, sizeof expected, "%.11g", strtod(token, NULL));
            if ((e = strchr(expected, 'e')) != NULL) { /* Jansson: "e-6", not "e-06"; "e5", not "e+05" */
                char *digits = e + 1, *out = e + 1;
                if (*digits == '-')
                    *out++ = *digits++;
                else if (*digits == '+')
                    digits++;
                while (*digits == '0' && digits[1])
                    digits++;
                memmove(out, digits, strlen(digits) + 1);
            }
            if (strpbrk(expected, ".e") == NULL)
                strcat(expected, ".0");
            if (strcmp(token, expected) != 0) {
                if (verbose)
                    fprintf(stderr, "time format: %s is not %s\n", token, expected);
                return 0;
            }
        } else {
            p++;
        }
    }
    return 1;
}

static char time_events[8192];

static int time_events_bad;

static int time_event_reals;

static pthread_mutex_t time_events_mutex = PTHREAD_MUTEX_INITIALIZER;

static void record_time_event(const gw_event *event, void *user_data)
{
    const char *json = gw_event_json(event);
    (void)user_data;
    pthread_mutex_lock(&time_events_mutex);
    if (!times_in_time_format(json, &time_event_reals, 1))
        time_events_bad++;
    if (json != NULL)
        append_entry(time_events, sizeof time_events, json, "\n");
    pthread_mutex_unlock(&time_events_mutex);
}

void test_times_in_json(void)
{
    gw_client *client;
    gw_result *result;
    uint64_t id = 0;
    int32_t rc;
    int reals = 0;
    char path[128], *metrics = NULL, *config;
    const char *attempts;
    step("times in attempts, events and metrics JSON: one format");

    /* Self-checks of the checker: 17 digits and a C-style exponent are not the format. (It
     * accepts fewer digits, so the delay below pins the 11: a 12-digit initialDelay, without
     * jitter, reads back cut to 11 digits in the attempts and the retry_scheduled event.) */
    CHECK(times_in_time_format("{\"start\":9.945e-6,\"d\":0.25,\"t\":86399.999999,\"z\":0.0,\"n\":1}", &reals, 1));
    CHECK_INT(reals, 4);
    CHECK(!times_in_time_format("{\"elapsed\":6.7199998738942668e-6}", &reals, 0));
    CHECK(!times_in_time_format("{\"elapsed\":6.72e-06}", &reals, 0));

    config = config_with_base("{\"baseURL\": \"%s\", \"retry\": {\"maxRetries\": 1, \"initialDelay\": 0.0123456789123,"
                              " \"jitter\": \"none\"}, \"plugins\": [{\"name\": \"metrics\"}]}");
    client = new_client_from_config(config);
    free(config);
    if (client == NULL)
        return;
    time_events[0] = '\0';
    time_events_bad = 0;
    time_event_reals = 0;
    CHECK_INT(gw_client_add_event_monitor(client, record_time_event, NULL, NULL, &id), GW_OK);
    snprintf(path, sizeof path, "/sequence/%s/503,200", unique_key("times"));
    result = call(client, "GET", path, &rc);
    CHECK_INT(rc, GW_OK);
    CHECK_INT(gw_result_attempt_count(result), 2);

    attempts = gw_result_attempts_json(result);
    reals = 0;
    if (!times_in_time_format(attempts, &reals, 1)) {
        check(0, __FILE__, __LINE__, "the attempts JSON is in the time format");
        fprintf(stderr, "attempts: %s\n", attempts ? attempts : "NULL");
    }
    CHECK(reals >= 2 * 7 + 1); /* per attempt start, duration and 5 timings; one delay */
    CHECK_CONTAINS(attempts, "\"delay\":0.012345678912,"); /* 11 significant digits */

    pthread_mutex_lock(&time_events_mutex);
    CHECK_INT(time_events_bad, 0);
    CHECK(time_event_reals >= 7 + 2 * 5); /* elapsed of 7 events, 2 timings objects */
    CHECK_CONTAINS(time_events, "\"elapsed\":");
    CHECK_CONTAINS(time_events, "\"delay\":0.012345678912,");
    if (time_events_bad)
        fprintf(stderr, "events:\n%s", time_events);
    pthread_mutex_unlock(&time_events_mutex);
    CHECK_INT(gw_client_remove_event_monitor(client, id), GW_OK);

    CHECK_INT(gw_client_metrics_json(client, &metrics), GW_OK);
    reals = 0;
    CHECK(times_in_time_format(metrics, &reals, 1));
    CHECK_INT(reals, 3); /* attempt_time, first_byte_time, max_attempt_time */
    gw_string_free(metrics);
    gw_result_free(result);
    gw_client_free(client);
}
