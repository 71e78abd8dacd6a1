/* Wrappers for Jansson's function-like macros, which Swift cannot call. */
#ifndef GATEWIRE_CJANSSON_SHIM_H
#define GATEWIRE_CJANSSON_SHIM_H
#include <jansson.h>

static inline json_type gw_json_typeof(const json_t *j) { return j ? json_typeof(j) : JSON_NULL; }
static inline int gw_json_is_true(const json_t *j) { return json_is_true(j); }
/* The JSON_* flag macros (JSON_INDENT, JSON_REAL_PRECISION) are function-like: wrap them.
 * indent 0 = compact; precision = significant digits of reals (17 round-trips every double). */
static inline size_t gw_json_dump_flags(int indent, int precision) {
    return JSON_INDENT(indent) | JSON_REAL_PRECISION(precision) | JSON_ENCODE_ANY | (indent ? 0 : JSON_COMPACT);
}
/* reject_duplicates: a key twice in one object is an error (for configs; bodies take the last).
 * JSON_ALLOW_NUL: "\u0000" in a string value is valid JSON (RFC 8259, section 7), which Jansson
 * refuses without it; every reader of a string here takes its length, not strlen. Jansson
 * still refuses it in an object key (its keys are C strings). */
static inline size_t gw_json_load_flags(int reject_duplicates) {
    return JSON_DECODE_ANY | JSON_ALLOW_NUL | (reject_duplicates ? JSON_REJECT_DUPLICATES : 0);
}

#endif
