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
/* reject_duplicates: a key twice in one object is an error (for configs; bodies take the last). */
static inline size_t gw_json_load_flags(int reject_duplicates) {
    return JSON_DECODE_ANY | (reject_duplicates ? JSON_REJECT_DUPLICATES : 0);
}

/* A quick check before a body is parsed only in case someone asks for it: 1 when `s` is JSON
 * that json_loadb(JSON_DECODE_ANY) surely accepts, 0 when it is invalid *or* this check is
 * unsure (integers of 19+ digits, reals that could overflow, nesting past 512): the caller
 * then parses with Jansson, which has the final say and the error message. It follows
 * Jansson's lexer: whitespace is space, tab, LF, CR; strings reject control characters,
 * invalid or overlong UTF-8, surrogates, \u0000 and unpaired \u surrogates. */
static inline int gw_json_scan_string(const unsigned char *s, size_t n, size_t *pos) {
    size_t i = *pos + 1;
    while (i < n) {
        unsigned char c = s[i];
        if (c == '"') { *pos = i + 1; return 1; }
        if (c < 0x20) return 0;
        if (c == '\\') {
            if (++i >= n) return 0;
            c = s[i];
            if (c == 'u') {
                unsigned v = 0, w = 0;
                for (int k = 1; k <= 4; k++) {
                    if (i + k >= n) return 0;
                    unsigned char h = s[i + k];
                    unsigned d = (h >= '0' && h <= '9') ? (unsigned)(h - '0') : (h >= 'a' && h <= 'f') ? (unsigned)(h - 'a' + 10)
                               : (h >= 'A' && h <= 'F') ? (unsigned)(h - 'A' + 10) : 16u;
                    if (d == 16u) return 0;
                    v = v << 4 | d;
                }
                i += 5;
                if (v == 0 || (v >= 0xDC00 && v <= 0xDFFF)) return 0;
                if (v >= 0xD800 && v <= 0xDBFF) {
                    if (i + 6 > n || s[i] != '\\' || s[i + 1] != 'u') return 0;
                    for (int k = 2; k <= 5; k++) {
                        unsigned char h = s[i + k];
                        unsigned d = (h >= '0' && h <= '9') ? (unsigned)(h - '0') : (h >= 'a' && h <= 'f') ? (unsigned)(h - 'a' + 10)
                                   : (h >= 'A' && h <= 'F') ? (unsigned)(h - 'A' + 10) : 16u;
                        if (d == 16u) return 0;
                        w = w << 4 | d;
                    }
                    if (w < 0xDC00 || w > 0xDFFF) return 0;
                    i += 6;
                }
                continue;
            }
            if (c != '"' && c != '\\' && c != '/' && c != 'b' && c != 'f' && c != 'n' && c != 'r' && c != 't') return 0;
            i++;
            continue;
        }
        if (c < 0x80) { i++; continue; }
        /* UTF-8 as Jansson's utf8_check_first/utf8_check_full: no overlongs, no surrogates, <= U+10FFFF. */
        size_t size;
        unsigned v;
        if (c >= 0xC2 && c <= 0xDF) { size = 2; v = c & 0x1F; }
        else if (c >= 0xE0 && c <= 0xEF) { size = 3; v = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { size = 4; v = c & 0x07; }
        else return 0;
        if (i + size > n) return 0;
        for (size_t k = 1; k < size; k++) {
            unsigned char d = s[i + k];
            if (d < 0x80 || d > 0xBF) return 0;
            v = v << 6 | (d & 0x3F);
        }
        if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
        if ((size == 2 && v < 0x80) || (size == 3 && v < 0x800) || (size == 4 && v < 0x10000)) return 0;
        i += size;
    }
    return 0;
}

static inline int gw_json_scan_number(const unsigned char *s, size_t n, size_t *pos) {
    size_t i = *pos, digits = 0;
    if (s[i] == '-') i++;
    if (i >= n) return 0;
    if (s[i] == '0') {
        i++;
        if (i < n && s[i] >= '0' && s[i] <= '9') return 0;
        digits = 1;
    } else if (s[i] >= '1' && s[i] <= '9') {
        while (i < n && s[i] >= '0' && s[i] <= '9') { i++; digits++; }
    } else {
        return 0;
    }
    int real = 0;
    if (i < n && s[i] == '.') {
        real = 1;
        i++;
        if (i >= n || s[i] < '0' || s[i] > '9') return 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        real = 1;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        size_t exponent = 0;
        if (i >= n || s[i] < '0' || s[i] > '9') return 0;
        while (i < n && s[i] >= '0' && s[i] <= '9') { i++; exponent++; }
        if (exponent > 2) return 0;  /* unsure: could overflow a double */
    }
    if (real ? digits > 100 : digits > 18) return 0;  /* unsure: too big integer, real overflow */
    *pos = i;
    return 1;
}

static inline int gw_json_surely_valid(const unsigned char *s, size_t n) {
    enum { max_depth = 512 };
    unsigned char stack[max_depth];
    int depth = 0;
    size_t i = 0;
#define GW_JSON_WS while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++
value:
    GW_JSON_WS;
    if (i >= n) return 0;
    switch (s[i]) {
    case '{':
        if (depth == max_depth) return 0;
        stack[depth++] = '}';
        i++;
        GW_JSON_WS;
        if (i < n && s[i] == '}') { depth--; i++; goto after; }
        goto key;
    case '[':
        if (depth == max_depth) return 0;
        stack[depth++] = ']';
        i++;
        GW_JSON_WS;
        if (i < n && s[i] == ']') { depth--; i++; goto after; }
        goto value;
    case '"':
        if (!gw_json_scan_string(s, n, &i)) return 0;
        goto after;
    case 't':
        if (n - i < 4 || s[i + 1] != 'r' || s[i + 2] != 'u' || s[i + 3] != 'e') return 0;
        i += 4;
        goto after;
    case 'f':
        if (n - i < 5 || s[i + 1] != 'a' || s[i + 2] != 'l' || s[i + 3] != 's' || s[i + 4] != 'e') return 0;
        i += 5;
        goto after;
    case 'n':
        if (n - i < 4 || s[i + 1] != 'u' || s[i + 2] != 'l' || s[i + 3] != 'l') return 0;
        i += 4;
        goto after;
    default:
        if (!gw_json_scan_number(s, n, &i)) return 0;
        goto after;
    }
key:
    if (i >= n || s[i] != '"' || !gw_json_scan_string(s, n, &i)) return 0;
    GW_JSON_WS;
    if (i >= n || s[i] != ':') return 0;
    i++;
    goto value;
after:
    GW_JSON_WS;
    if (depth == 0) return i == n;
    if (i >= n) return 0;
    if (s[i] == ',') {
        i++;
        if (stack[depth - 1] == '}') { GW_JSON_WS; goto key; }
        goto value;
    }
    if (s[i] != stack[depth - 1]) return 0;
    depth--;
    i++;
    goto after;
#undef GW_JSON_WS
}

#endif
