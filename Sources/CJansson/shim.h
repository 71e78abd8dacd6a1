/* Wrappers for Jansson's function-like macros, which Swift cannot call. */
#ifndef GATEWIRE_CJANSSON_SHIM_H
#define GATEWIRE_CJANSSON_SHIM_H
#include <jansson.h>

static inline json_type gw_json_typeof(const json_t *j) { return j ? json_typeof(j) : JSON_NULL; }
static inline int gw_json_is_true(const json_t *j) { return json_is_true(j); }
/* The JSON_* flag macros combine into size_t; give Swift typed constants. */
static inline size_t gw_json_compact_flags(void) { return JSON_COMPACT | JSON_ENCODE_ANY; }
static inline size_t gw_json_pretty_flags(void) { return JSON_INDENT(2) | JSON_ENCODE_ANY; }
static inline size_t gw_json_load_flags(void) { return JSON_DECODE_ANY; }

#endif
