/*
 * The shared case files' runners (test_mapping_cases.c, test_resilience_cases.c) read only the
 * keys they know; a misspelt key would check nothing, so each runner reports every other key,
 * before any call, as
 *
 *     case "NAME": unknown key "PATH"
 *
 * on stderr (PATH dotted from the case, e.g. expect.stauts or calls[0].expect.atempts), the
 * same text as the Swift and Python runners.
 */
#ifndef GW_TEST_CASE_KEYS_H
#define GW_TEST_CASE_KEYS_H

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* Reports the keys of `object` (nothing if it is not an object) missing from `known` (a
 * NULL-terminated list), each as PREFIX + key; returns how many it reported. */
static int report_unknown_keys(json_t *object, const char *const *known, const char *case_name, const char *prefix)
{
    const char *key;
    json_t *value;
    int unknown = 0;
    json_object_foreach(object, key, value) {
        const char *const *name = known;
        (void)value;
        while (*name != NULL && strcmp(*name, key) != 0)
            name++;
        if (*name == NULL) {
            fprintf(stderr, "case \"%s\": unknown key \"%s%s\"\n", case_name, prefix, key);
            unknown++;
        }
    }
    return unknown;
}

#endif
