/*
 * gatewire.h - the C ABI of Gatewire, a plugin-based REST gateway SDK.
 *
 * One shared library (libGatewire.so) serves C, Python (ctypes) and Swift. Its core is
 * Swift; this header is the whole C contract. Conventions (as SQLite and libgit2):
 *
 *  - Every name starts with gw_ / GW_. Handles are opaque pointers.
 *  - Functions that can fail return an int32_t status (GW_OK = 0, else a GW_ERROR_*).
 *    gw_last_error_message() then describes the failure. A NULL pointer or malformed JSON
 *    is reported this way, never a crash. A NULL argument's message names the function
 *    called ("gw_client_new: out_client is NULL"); a bad value's names the field or header
 *    ("max_retries: -5 is out of range ...", "header \"X\": ...").
 *  - Header fields (config "headers", headers_json, gw_request_set_header, credentials,
 *    plugin settings) follow RFC 9110: a name is a token (section 5.1: letters, digits and
 *    !#$%&'*+-.^_`|~) and not one libcurl frames the message or the connection with
 *    (Content-Length, Transfer-Encoding, Connection, Keep-Alive, Proxy-Connection, TE,
 *    Upgrade, Trailer: RFC 9112 section 6, RFC 9110 section 7.6.1); a value has no control
 *    character but HTAB (section 5.5: no CR, LF, NUL, 0x01, 0x0B, DEL). Anything else is refused
 *    where it enters (GW_ERROR_INVALID_ARGUMENT, GW_ERROR_CONFIG, or a call failing with
 *    GW_KIND_INVALID_ARGUMENT / GW_KIND_PLUGIN), and never reaches the wire.
 *  - Secrets: every string the library hands out (results, observers, events, log lines,
 *    error messages) has a URL's userinfo removed and the values of secret header fields
 *    (Authorization, Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key, Api-Key,
 *    X-Auth-Token, X-Access-Token, auth plugins' headers, config "redactHeaders") and query
 *    parameters (api_key, apikey, access_token, token, key, signature, client_secret,
 *    password, secret, the apiKey plugin's, config "redactQuery") replaced by "<redacted>".
 *    The response's own headers and body are passed through as received.
 *  - Strings are UTF-8 and NUL-terminated. A "const char *" the library returns is owned by
 *    the library (valid as documented); a "char *" it returns is the caller's and must be
 *    released with gw_string_free(). Strings passed in are copied before the call returns.
 *  - Options structs begin with a uint32_t version; fill them with their _init function
 *    (or the _INIT macro) so fields can be added without breaking the ABI.
 *  - Callbacks take void *user_data last. Completions, plugins, retry tests and failure
 *    observers run on the client's event-loop thread (one per client) and must not block;
 *    a blocking gw_call() (or gw_queue_wait() with a timeout) from inside one returns
 *    GW_ERROR_WOULD_DEADLOCK.
 *  - Handles: every _free function ignores NULL. Passing a handle that was already freed
 *    (freeing it twice, or any use after its _free) is undefined behaviour, as for
 *    sqlite3_close() on a closed connection: the library cannot detect it and may crash.
 *  - Times are seconds as double.
 *  - Jansson: an application may use the same libjansson.so. Gatewire replaces Jansson's
 *    allocator (json_set_alloc_funcs) on its first response body of 16 KiB or more, only
 *    if it is still malloc/free, so that it can build those bodies' trees in arenas; every
 *    allocation made on the application's threads stays plain malloc/free (json_dumps text
 *    is still freed with free()). An application that installs its own allocator must do
 *    so before creating its first client; Gatewire then keeps it.
 */
#ifndef GATEWIRE_H
#define GATEWIRE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Status codes returned by functions ---------------------------------------------- */
#define GW_OK 0
#define GW_ERROR_INVALID_ARGUMENT 1 /* NULL where a value is required, a bad value, malformed JSON
                                       in gw_call_options (the message gives line and column) */
#define GW_ERROR_CONFIG 2           /* the gateway config is invalid, malformed JSON included; the
                                       message names the field or the line and column */
#define GW_ERROR_CALL_FAILED 3      /* the call ran and failed: the gw_result says why */
#define GW_ERROR_WOULD_DEADLOCK 4   /* a blocking call on the client's own event-loop thread */
#define GW_ERROR_VERSION 5          /* an options struct or plugin has an unsupported version */

/* ---- Why a call failed (gw_result_error_kind); same numbers as Swift's ErrorKind ---- */
#define GW_KIND_NONE 0             /* the call succeeded */
#define GW_KIND_CONNECT 1          /* no connection: refused, unreachable, or a timeout before the
                                      request began to go out */
#define GW_KIND_DNS 2              /* the host name could not be resolved */
#define GW_KIND_TLS 3              /* TLS handshake or certificate verification failed */
#define GW_KIND_TIMEOUT 4          /* the attempt timed out once its request began to go out (on a
                                      new or a kept-alive connection): the server may have seen it */
#define GW_KIND_NETWORK 5          /* reset, send/receive error, empty or partial reply */
#define GW_KIND_HTTP_STATUS 6      /* a response whose status is not accepted (every 4xx, 5xx) */
#define GW_KIND_MAPPING 7          /* a body that a matching descriptor maps, or that a page or
                                      cursor paginator reads, could not be parsed or mapped;
                                      other bodies are not parsed by the call */
#define GW_KIND_CANCELLED 8        /* cancelled by the caller, or the client was freed */
#define GW_KIND_DEADLINE 9         /* the call's overall deadline passed */
#define GW_KIND_INVALID_ARGUMENT 10 /* the call could not be built (route, parameter, body) */
#define GW_KIND_PLUGIN 11          /* a plugin's prepare hook failed, or its process hook failed the call */
#define GW_KIND_AUTH 12            /* a 401 and the refreshing credential could not be refreshed */
#define GW_KIND_CIRCUIT_OPEN 13    /* the host's circuit breaker is open: nothing (more) was sent; the
                                      status is the last attempt's when a retry was refused, else 0 */
#define GW_KIND_PROTOCOL 14        /* the reply broke HTTP (not HTTP at all, malformed status line or
                                      header section); status 0 */
#define GW_KIND_RESPONSE_TOO_LARGE 15 /* the body passed maxResponseBytes (decoded; config, route or
                                         policy_json), or its Content-Length did: aborted there,
                                         never retried; status 0 */
#define GW_KIND_REDIRECT 16        /* a redirect the redirect policy refused (too many hops, https to
                                      http, a body re-sent to another origin, another origin under
                                      "sameOrigin", following off) and no descriptor accepts; the
                                      status and response are the redirect's */

/* ---- What a retry test answers -------------------------------------------------------- */
#define GW_RETRY_USE_POLICY 0 /* let the client's retry policy decide */
#define GW_RETRY_RETRY 1      /* retry (within max_retries), after *delay seconds if set >= 0 */
#define GW_RETRY_STOP 2       /* stop and report this attempt's outcome */

typedef struct gw_client gw_client;   /* a client: config, event loop, plugins, observers */
typedef struct gw_result gw_result;   /* the outcome of one call (success or failure) */
typedef struct gw_call_handle gw_call_handle; /* a started asynchronous call, to cancel it */
typedef struct gw_attempt gw_attempt; /* one attempt's outcome, inside a callback */
typedef struct gw_request gw_request; /* one attempt's request, inside a plugin's prepare */
typedef struct gw_process gw_process; /* a call's final result, inside a plugin's process */
typedef struct gw_credential gw_credential; /* a token refreshed on 401 (see the last section) */

/* ---- Library ----------------------------------------------------------------------------- */

/* The version of this header; the repository's VERSION file is the one source (the
 * version_agrees test checks that every copy matches it). gw_version() gives the library's. */
#define GW_VERSION_MAJOR 0
#define GW_VERSION_MINOR 1
#define GW_VERSION_PATCH 0
#define GW_VERSION_STRING "0.1.0"

/* The library version, "MAJOR.MINOR.PATCH" (GW_VERSION_STRING of the header it was built
 * with). Static storage; never free. Any thread. */
const char *gw_version(void);

/* The message of the most recent gw_ function that failed (returned a GW_ERROR_*) on the
 * calling thread, or "" if none has. Successful calls leave it unchanged. Thread-local; valid
 * until the next failing gw_ call on this thread. Never NULL. */
const char *gw_last_error_message(void);

/* Frees a char * returned by the library. NULL is ignored. */
void gw_string_free(char *string);

/* ---- Clients ---------------------------------------------------------------------------- */

/* A plugin: hooks called for every attempt of every call of a client.
 * prepare:     adapts the attempt's request (headers, URL) before it is sent; hooks run in
 *              registration order. Return 0 to go on, non-zero to fail the call with
 *              GW_KIND_PLUGIN (nothing is sent); give the reason with gw_request_fail.
 *              May be NULL.
 * did_receive: sees each attempt's outcome; hooks run in reverse order (an onion). May be NULL.
 * destroy:     called once with user_data when the client is freed, after its last call
 *              completed: on the loop thread (which then ends). May be NULL.
 * Version 2 adds (read only when version >= 2, so version 1 structs and arrays keep working):
 * will_send:   sees each attempt's request as sent, after every prepare; registration order.
 * process:     sees the call's final result once, before the failure observers and the
 *              completion, and may fail it (gw_process_fail); reverse order (an onion).
 * All hooks run on the client's event-loop thread. The struct is copied at client creation.
 * An array of plugins must use one version throughout (the first element's). */
typedef struct gw_plugin {
    uint32_t version; /* GW_PLUGIN_VERSION */
    const char *name; /* for messages, e.g. "signer"; copied; may be NULL */
    int32_t (*prepare)(gw_request *request, void *user_data);
    void (*did_receive)(const gw_attempt *attempt, void *user_data);
    void (*destroy)(void *user_data);
    void *user_data;
    /* version >= 2 */
    void (*will_send)(const gw_request *request, void *user_data);
    void (*process)(gw_process *process, void *user_data);
} gw_plugin;
#define GW_PLUGIN_VERSION 2u
#define GW_PLUGIN_VERSION_1 1u /* the six fields up to user_data */

/* How to build a client. The config comes from the first non-NULL of config_json (gateway
 * config JSON text) and config_path (a JSON file); base_url, when set too, replaces that
 * config's baseURL (e.g. a server on a free port); base_url alone gives a config with only it. */
typedef struct gw_client_options {
    uint32_t version;          /* GW_CLIENT_OPTIONS_VERSION */
    const char *base_url;      /* e.g. "http://127.0.0.1:8080/api"; copied */
    const char *config_json;   /* gateway config as JSON text; copied */
    const char *config_path;   /* path of a gateway config file; read during the call */
    const gw_plugin *plugins;  /* array of plugin_count plugins (copied), after the config's own */
    size_t plugin_count;
    uint64_t random_seed;      /* seeds retry jitter per call for exact tests; 0 = from the system */
    /* version >= 2 */
    gw_credential *credential; /* a refreshing credential (retained by the client), or NULL */
} gw_client_options;
#define GW_CLIENT_OPTIONS_VERSION 2u
#define GW_CLIENT_OPTIONS_INIT {GW_CLIENT_OPTIONS_VERSION, NULL, NULL, NULL, NULL, 0, 0, NULL}

/* Fills *options with defaults for the given version. Returns GW_ERROR_VERSION for an
 * unknown version, GW_ERROR_INVALID_ARGUMENT for NULL. */
int32_t gw_client_options_init(gw_client_options *options, uint32_t version);

/* Creates a client and starts its event-loop thread. On GW_OK, *out_client is a new client
 * the caller frees with gw_client_free(). Errors: GW_ERROR_INVALID_ARGUMENT (NULL, no config
 * source), GW_ERROR_CONFIG (the message names the field), GW_ERROR_VERSION. */
int32_t gw_client_create(const gw_client_options *options, gw_client **out_client);

/* Shorthand for gw_client_create with only base_url set. */
int32_t gw_client_new(const char *base_url, gw_client **out_client);

/* Shorthand for gw_client_create with only config_json set. */
int32_t gw_client_new_from_config(const char *config_json, gw_client **out_client);

/* Stops the client's event loop and frees it. Calls still running complete with
 * GW_KIND_CANCELLED first (their completions and the observers run). Blocks until the loop
 * thread has ended, unless called on that thread (from a callback). NULL is ignored; a client
 * already freed is undefined behaviour (see "Handles" at the top). */
void gw_client_free(gw_client *client);

/* Validates a gateway config without creating a client. On GW_OK, *out_warnings (if not
 * NULL) receives a JSON array of warning strings, freed with gw_string_free(). On
 * GW_ERROR_CONFIG, gw_last_error_message() is "field.path: why". */
int32_t gw_config_check(const char *config_json, char **out_warnings);

/* ---- Failure observers --------------------------------------------------------------- */

/* Called exactly once for every failed call of the client, after its last attempt and
 * before the call's own completion. `failure` is borrowed: valid only during the callback. */
typedef void (*gw_failure_observer_fn)(const gw_result *failure, void *user_data);

/* Registers an observer. *out_id (may be NULL) receives an id for removal. `destroy` (may
 * be NULL) is called once with user_data: on the removing thread by
 * gw_client_remove_failure_observer, or when the client is freed, on its loop thread after
 * the last call completed. The same holds for event monitors. */
int32_t gw_client_add_failure_observer(gw_client *client, gw_failure_observer_fn observer, void *user_data,
                                       void (*destroy)(void *user_data), uint64_t *out_id);

/* Removes an observer. GW_ERROR_INVALID_ARGUMENT when the id is not registered. */
int32_t gw_client_remove_failure_observer(gw_client *client, uint64_t id);

/* ---- Calls -------------------------------------------------------------------------------- */

/* Asked once per failed attempt whether to retry. Return a GW_RETRY_* verdict; with
 * GW_RETRY_RETRY, *delay (preset to -1 = the policy's delay) may be set in seconds: capped at
 * the policy's maxDelay (an infinite one too), and a delay past the call's deadline fails the
 * call at once with GW_KIND_DEADLINE, as the policy's own delays do. */
typedef int32_t (*gw_retry_test_fn)(const gw_attempt *attempt, double *delay, void *user_data);

/* One call. Either route (+ params_json) or path (+ method). Out-of-range numbers, an
 * unknown method and invalid header fields are GW_ERROR_INVALID_ARGUMENT naming the field. */
typedef struct gw_call_options {
    uint32_t version;          /* GW_CALL_OPTIONS_VERSION */
    const char *method;        /* "GET", "POST", ... (case-insensitive; RFC 9110 section 9);
                                  NULL = "GET"; ignored with a route */
    const char *path;          /* relative to the base URL, e.g. "/users/:id"; ignored with a route */
    const char *route;         /* a route name of the gateway config, or NULL */
    const char *params_json;   /* JSON object of path (":name") and query parameters, or NULL */
    const char *headers_json;  /* JSON object {"Name": "value"} (values: strings, numbers or
                                  booleans; names tokens, values without CR/LF/NUL), or NULL */
    const char *body_json;     /* JSON body text, or NULL; sent with the method asked (GET too);
                                  with HEAD refused: GW_KIND_INVALID_ARGUMENT (RFC 9110 9.3.2) */
    const char *object_type;   /* map body_json through this type's request descriptor; NULL = the
                                  route's objectType if it has one, else body_json is sent as is */
    int32_t max_retries;       /* retries after the first attempt, 0...100; -1 = the route's
                                  (else the client's) policy; anything else is an error. Every
                                  request on the wire is an attempt: libcurl's own re-send on a
                                  kept-alive connection that died is refused (GW_KIND_NETWORK,
                                  sent), and the policy decides whether to send it again */
    double attempt_timeout;    /* seconds per attempt, 0.001...86400; 0 = the client's; anything
                                  else (negative, NaN, infinite) is an error */
    double deadline;           /* seconds for the whole call, 0.001...86400; 0 = the client's;
                                  anything else is an error */
    gw_retry_test_fn retry_test; /* or NULL */
    void *retry_test_user_data;
    /* ---- Resilience, version 2 ---- */
    const char *policy_json;   /* this call's policies, as the gateway config's keys, or NULL:
                                  {"retry": {...}, "retryBudget": {...} | false,
                                   "circuitBreaker": {...} | false, "redirects": {"follow":
                                   "none" | "sameOrigin" | "any", "max": 0...50,
                                   "allowDowngrade": bool, "allowCrossOriginBody": bool} | false,
                                   "maxResponseBytes": n}.
                                  The "retry" and "redirects" fields not given keep the route's
                                  (else the client's) policy; max_retries >= 0 still wins. A bad
                                  value is GW_ERROR_INVALID_ARGUMENT naming the field
                                  ("policy_json.redirects.max: ...").
                                  "maxResponseBytes": the largest decoded body accepted, in
                                  bytes (1...2^62; default the route's, else the config's, else
                                  64 MiB): past it the transfer is aborted and the call fails
                                  with GW_KIND_RESPONSE_TOO_LARGE. Copied during the call. */
} gw_call_options;
#define GW_CALL_OPTIONS_VERSION 2u
#define GW_CALL_OPTIONS_VERSION_1 1u /* still accepted: a v1 struct ends at retry_test_user_data */
#define GW_CALL_OPTIONS_INIT {GW_CALL_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, NULL, -1, 0, 0, NULL, NULL, NULL}

/* Fills *options with defaults (max_retries -1, everything else empty). Version 1 or 2; a
 * version 1 struct is only written up to its last field. */
int32_t gw_call_options_init(gw_call_options *options, uint32_t version);

/* Sends a call and blocks until it completes. *out_result receives the result in every case
 * but an argument error (free it with gw_result_free). Returns GW_OK on success,
 * GW_ERROR_CALL_FAILED when the call failed (see the result), GW_ERROR_WOULD_DEADLOCK when
 * called on the client's event-loop thread (nothing sent, *out_result NULL),
 * GW_ERROR_INVALID_ARGUMENT for NULL or malformed JSON options. Any thread but the loop's. */
int32_t gw_call(gw_client *client, const gw_call_options *options, gw_result **out_result);

/* Receives a finished call's result, which it owns: free it with gw_result_free(). Runs
 * exactly once per call, on the client's event-loop thread. */
typedef void (*gw_completion_fn)(gw_result *result, void *user_data);

/* Starts a call and returns at once. `completion` (required: NULL is GW_ERROR_INVALID_ARGUMENT)
 * runs exactly once when this returns GW_OK (also when the call cannot be built, e.g. an
 * unknown route: then with GW_KIND_INVALID_ARGUMENT); it never runs when this returns an error. If out_call is not NULL it receives a handle for gw_call_cancel(), which
 * the caller frees with gw_call_handle_free() (before or after completion). Any thread. */
int32_t gw_call_async(gw_client *client, const gw_call_options *options, gw_completion_fn completion,
                      void *user_data, gw_call_handle **out_call);

/* Cancels a started call: the attempt in flight or the retry delay stops at once and the
 * completion runs with GW_KIND_CANCELLED (unless the call had finished). Returns at once. */
int32_t gw_call_cancel(gw_call_handle *call);

/* Frees a call handle (does not cancel the call). NULL is ignored. */
void gw_call_handle_free(gw_call_handle *call);

/* ---- Results: every const char * stays valid until gw_result_free ---------------------
 * Any thread may read a result. With a NULL result, numbers are 0, strings NULL (the kind
 * name "none"), and nothing crashes. */

/* 1 when the call succeeded, 0 when it failed (or result is NULL). */
int32_t gw_result_ok(const gw_result *result);
/* The final HTTP status, 0 when no response arrived. */
int32_t gw_result_status(const gw_result *result);
/* GW_KIND_NONE on success, else why the call failed. */
int32_t gw_result_error_kind(const gw_result *result);
/* The kind's name ("none", "connect", "http_status", ...). Static storage. */
const char *gw_result_error_kind_name(const gw_result *result);
/* A message for people ("" on success). Never contains credentials. */
const char *gw_result_error_message(const gw_result *result);
/* The method sent, e.g. "GET". */
const char *gw_result_method(const gw_result *result);
/* The path sent, relative to the base URL, with its query; secret query values redacted
 * (see "Secrets" at the top). */
const char *gw_result_path(const gw_result *result);
/* The final response body, decoded from its Content-Encoding (gzip, ...), and its length in
 * bytes (out_length may be NULL); NULL/0 without a response or with an empty body. Not
 * NUL-terminated: use the length. Exactly as received otherwise: a body that no descriptor
 * maps is not parsed or checked, so invalid JSON on a 2xx without a descriptor is GW_OK
 * here (with a matching descriptor it is GW_KIND_MAPPING). */
const uint8_t *gw_result_body(const gw_result *result, size_t *out_length);
/* The first value of a response header (case-insensitive name), or NULL. */
const char *gw_result_header(const gw_result *result, const char *name);
/* Every response header field in received order, as a JSON array of [name, value] pairs
 * ("[]" without a response). */
const char *gw_result_headers_json(const gw_result *result);
/* The mapped objects as JSON text: an object keyed by descriptor key path ("" for the root);
 * NULL when no descriptor matched (or the body was empty), "{}" when descriptors matched but
 * found nothing at their key paths. */
const char *gw_result_mapped_json(const gw_result *result);
/* The error objects the error descriptors mapped (a JSON array), or NULL. */
const char *gw_result_error_objects_json(const gw_result *result);
/* Times in JSON. Every time in the documents about attempts, timings and events
 * (gw_result_attempts_json, gw_event_json, gw_client_metrics_json) is in seconds, as a JSON
 * number with at most 11 significant digits ("%.11g", exponent without "+" or leading zeros:
 * 0.25, 0.001234, 6.72e-6, 86399.999999): whole microseconds stay exact up to a day (libcurl
 * measures in microseconds); finer digits are rounding noise. Absent times are null. Mapped
 * objects, error objects and metadata are user data and keep every double's 17 digits. */

/* The attempt history as a JSON array of {"attempt", "start", "duration", "status", "error",
 * "curl_code", "message", "timings": {"dns", "connect", "tls", "first_byte", "total"},
 * "bytes_sent", "bytes_received" (decoded body bytes), "delay", "decision", "redirects":
 * [{"status", "url"}]}; times as "Times in JSON" above: "start" counts from the call's start,
 * "delay" is the wait before the next attempt (null after the last). "redirects": the hops the
 * attempt followed, in order: each redirect's status and the URL it led to, redacted (no
 * userinfo, secret query values masked); the attempt's status is the last response's, its
 * timings and bytes_sent sum the hops'.
 * Redirects are followed by the library (never by libcurl) as the config's "redirects" says:
 * up to 10 hops; credentials and secret query parameters dropped on a change of scheme, host
 * or port; https to http and a body re-sent to another origin refused (GW_KIND_REDIRECT). */
const char *gw_result_attempts_json(const gw_result *result);
/* The number of attempts made (0 when the call failed before sending). */
int32_t gw_result_attempt_count(const gw_result *result);
/* Frees a result. NULL is ignored; a result already freed is undefined behaviour (see
 * "Handles" at the top). */
void gw_result_free(gw_result *result);

/* ---- Mapping results and pagination ------------------------------------------
 * Mapped objects are keyed by the descriptors' key paths as written ("" = the whole body;
 * key_path NULL means ""). Every const char * stays valid until gw_result_free; NULL on a
 * failed call or a NULL result. */

/* The JSON text mapped at key_path (one object, or an array of them), or NULL when nothing
 * was mapped there. */
const char *gw_result_mapped_at(const gw_result *result, const char *key_path);
/* The first object mapped at key_path (the first element of an array) as JSON, or NULL. */
const char *gw_result_mapped_first(const gw_result *result, const char *key_path);
/* The number of objects mapped at key_path (an array's length, 1 for one object, 0 for
 * none); with key_path NULL, over every key path. */
int64_t gw_result_mapped_count(const gw_result *result, const char *key_path);
/* The response metadata the mappings saw as "@metadata", as JSON: {"method", "url" (after
 * redirects, the last hop's), "path", "status", "headers": {lower-case name: value},
 * "pathParameters", "query"}, redacted (the url without userinfo; secret header and query values
 * "<redacted>"); NULL when no descriptor matched. */
const char *gw_result_metadata_json(const gw_result *result);

/* gw_paginator_next's status after the last page (not an error; no result). */
#define GW_DONE 100

typedef struct gw_paginator gw_paginator; /* a lazy walk over a route's pages */

/* A paginator over the pages of a call whose route has "pagination" in the gateway config
 * (page numbers, Link rel="next", or a cursor; see the README). options as for gw_call
 * (route required for the pagination; params_json and headers_json apply to every page).
 * No call is made yet. On GW_OK free *out_paginator with gw_paginator_free (before the
 * client). Errors: GW_ERROR_INVALID_ARGUMENT (NULL, malformed options, no pagination). */
int32_t gw_paginator_new(gw_client *client, const gw_call_options *options, gw_paginator **out_paginator);
/* Fetches the next page, blocking. GW_OK: *out_result is the page (free it). GW_ERROR_CALL_FAILED:
 * *out_result is the failure (free it) and the walk ends. GW_DONE: the walk has ended (last
 * page, maxPages, or an earlier failure); *out_result is NULL. GW_ERROR_WOULD_DEADLOCK on the
 * client's event-loop thread; GW_ERROR_INVALID_ARGUMENT for NULL arguments. Each page is one
 * call: the options' retries, attempt timeout and deadline apply per page. One thread at a
 * time per paginator. */
int32_t gw_paginator_next(gw_paginator *paginator, gw_result **out_result);
/* The number of pages fetched so far (failed ones included); 0 for NULL. */
int32_t gw_paginator_page_count(const gw_paginator *paginator);
/* Frees a paginator. NULL is ignored. */
void gw_paginator_free(gw_paginator *paginator);

/* ---- Inside callbacks: an attempt (borrowed, valid during the callback) --------------- */

int32_t gw_attempt_number(const gw_attempt *attempt);     /* 1 for the first attempt */
int32_t gw_attempt_status(const gw_attempt *attempt);     /* 0 when no response arrived */
int32_t gw_attempt_error_kind(const gw_attempt *attempt); /* GW_KIND_NONE when a response arrived */
double gw_attempt_elapsed(const gw_attempt *attempt);     /* seconds since the call started */
/* A response header of this attempt (case-insensitive), or NULL. Valid during the callback. */
const char *gw_attempt_header(const gw_attempt *attempt, const char *name);

/* ---- Inside a plugin's prepare: the attempt's request (borrowed) ---------------------- */

const char *gw_request_method(const gw_request *request); /* valid during the callback */
const char *gw_request_url(const gw_request *request);    /* valid until changed or the callback ends */
/* A header of the request (case-insensitive), or NULL. */
const char *gw_request_header(const gw_request *request, const char *name);
/* Sets (replaces) a header; value NULL removes it. Copies both strings. GW_ERROR_INVALID_ARGUMENT
 * (nothing changes) for a NULL request or name, a name that is not a token (RFC 9110 section
 * 5.1) or is a framing or connection field, or a value with a control character other than
 * HTAB (RFC 9110 section 5.5); see "Header fields" above; the message names the header. */
int32_t gw_request_set_header(gw_request *request, const char *name, const char *value);
/* Replaces the URL (absolute). Copies the string. Returns GW_OK, or GW_ERROR_INVALID_ARGUMENT
 * (gw_last_error_message() set, the URL unchanged) for a NULL request or a url that is NULL or
 * not an absolute http:// or https:// URL. */
int32_t gw_request_set_url(gw_request *request, const char *url);
/* Fails the call from inside a plugin's prepare, with a reason: when the hook returns (whatever
 * it returns) the call fails with GW_KIND_PLUGIN and the message "plugin NAME failed: MESSAGE";
 * nothing is sent. message (NULL = "prepare failed") is copied: the caller keeps and frees its
 * own string. A later call replaces an earlier reason. The event-loop thread, during prepare
 * only: with the gw_request of a will_send hook it is GW_ERROR_INVALID_ARGUMENT, as for NULL.
 * (Returning non-zero without calling it still fails the call: "prepare returned N".) */
int32_t gw_request_fail(gw_request *request, const char *message);

/* ==== Plugins, observers, events and credentials (0.2) ================================== */

/* ---- Inside a plugin's process: the final result (borrowed, valid during the callback) -- */

/* The call's result as it stands (earlier process hooks included). */
const gw_result *gw_process_result(const gw_process *process);
/* Turns the result into a failure of `kind` (0 = GW_KIND_PLUGIN) with `message` (copied),
 * keeping its status, response and attempts: e.g. a 2xx {"ok": false, "error": "..."} body. */
int32_t gw_process_fail(gw_process *process, int32_t kind, const char *message);

/* ---- Plugins in shared objects ----------------------------------------------------------
 * The gateway config's "plugins" array may name a shared object:
 *   {"path": "./libmyplugin.so", "symbol": "gw_plugin_entry", "name": "mine"}
 * A path not starting with "/" is relative to the config file's directory (config_path), or
 * to the current directory for config_json; a load error shows the absolute path tried.
 * It is opened with dlopen(RTLD_NOW | RTLD_LOCAL) when the config is parsed; the symbol
 * (default "gw_plugin_entry") must be a gw_plugin_entry_fn. It is called once per parse with a
 * zeroed gw_plugin to fill (version GW_PLUGIN_VERSION_1 or GW_PLUGIN_VERSION) and returns 0.
 * Link the plugin against libGatewire (-lGatewire) for the gw_request_* functions it calls.
 * A missing file or symbol, a non-zero return or another version is GW_ERROR_CONFIG naming
 * plugins[i]. The object stays loaded for the process; its destroy hook is not called. */
typedef int32_t (*gw_plugin_entry_fn)(gw_plugin *plugin);

/* ---- Failure observers with a filter ------------------------------------------------------
 * filter_json (NULL = every failure): {"statusCodes": 401 | "4xx" | ["401", "5xx"],
 * "noResponse": true (status 0 because the server could not be reached or did not answer:
 * kinds connect, dns, tls, timeout, network, deadline; a call cancelled by the caller or by
 * gw_client_free, or refused before sending (invalid_argument, plugin, circuit_open), does not
 * match it), "kinds": ["connect", "auth", ...],
 * "pathPattern": "/users/:id"}; every criterion given must match. Otherwise as
 * gw_client_add_failure_observer (remove with gw_client_remove_failure_observer). */
int32_t gw_client_add_failure_observer_filtered(gw_client *client, const char *filter_json,
                                                gw_failure_observer_fn observer, void *user_data,
                                                void (*destroy)(void *user_data), uint64_t *out_id);

/* ---- Event monitors -----------------------------------------------------------------------
 * Every call produces: call_started, per attempt attempt_started and attempt_finished (with
 * timings), retry_scheduled before each delay, call_finished once. Runs on the event-loop
 * thread; `event` is borrowed (valid during the callback). */
typedef struct gw_event gw_event;
typedef void (*gw_event_fn)(const gw_event *event, void *user_data);
int32_t gw_client_add_event_monitor(gw_client *client, gw_event_fn monitor, void *user_data,
                                    void (*destroy)(void *user_data), uint64_t *out_id);
int32_t gw_client_remove_event_monitor(gw_client *client, uint64_t id);
/* "call_started", "attempt_started", "attempt_finished", "retry_scheduled", "call_finished". */
const char *gw_event_kind(const gw_event *event);
uint64_t gw_event_call_id(const gw_event *event); /* the same for every event of one call */
int32_t gw_event_attempt(const gw_event *event);  /* 0 for call_started */
int32_t gw_event_status(const gw_event *event);   /* 0 when none */
/* {"event", "call_id", "method", "path", "attempt", "elapsed", "status", "error", "delay",
 * "timings": {"dns", "connect", "tls", "first_byte", "total"} or null, "redirects": the
 * finished attempt's hops as in gw_result_attempts_json, or null}; times as "Times in JSON"
 * (gw_result_attempts_json). Valid during the callback. */
const char *gw_event_json(const gw_event *event);

/* ---- Log lines and contained errors -------------------------------------------------------
 * Where the "log" plugin writes and where contained errors (an observer that failed) are
 * reported: `sink(line, user_data)` from any thread (NULL restores stderr). Process-wide.
 * Lines never contain credentials: the library's one redaction rule applies (see "Secrets"
 * at the top). */
typedef void (*gw_log_fn)(const char *line, void *user_data);
int32_t gw_set_log_sink(gw_log_fn sink, void *user_data);

/* The "metrics" plugin's counters as JSON ({"calls", "failures", "attempts", "retries",
 * "transport_errors", "status_classes": {"2xx": n}, "attempt_time", "first_byte_time",
 * "max_attempt_time"}; times as "Times in JSON" at gw_result_attempts_json), freed with
 * gw_string_free; NULL (and GW_ERROR_INVALID_ARGUMENT) when the client has no metrics plugin. */
int32_t gw_client_metrics_json(gw_client *client, char **out_json);

/* ---- Refreshing credentials ---------------------------------------------------------------
 * A token sent as `header: prefix token` (default "Authorization: Bearer <token>") on every
 * attempt that does not set the header itself. On a 401 the call asks the credential:
 *  - signed with an older token than the current one: replayed at once;
 *  - else one refresh (single flight: every 401 for the same token waits for it); on a new
 *    token each waiting call replays once (inside the same call: its attempts show the 401
 *    and the replay); on failure each fails with GW_KIND_AUTH, status 401 (observers see it);
 *  - a call replays at most once (credentials that keep failing end as the 401), and at most
 *    max_refreshes refreshes run per refresh_interval seconds (past that the 401 stands).
 * The refresh function is called on the event-loop thread and must not block there: it may
 * hand `refresh` to another thread. Whoever holds it calls gw_refresh_complete exactly once. */
typedef struct gw_refresh gw_refresh;
typedef void (*gw_refresh_fn)(gw_refresh *refresh, const char *current_token, void *user_data);

typedef struct gw_credential_options {
    uint32_t version;        /* GW_CREDENTIAL_OPTIONS_VERSION */
    const char *token;       /* the initial token, or NULL (unsigned until the first refresh) */
    const char *header;      /* NULL = "Authorization" */
    const char *prefix;      /* written before the token; NULL = "Bearer " */
    int32_t max_refreshes;   /* refresh budget; 0 = 5 */
    double refresh_interval; /* seconds of the budget's window; 0 = 30 */
    gw_refresh_fn refresh;   /* required */
    void *user_data;
    void (*destroy)(void *user_data); /* when the credential is freed (last reference); may be NULL */
} gw_credential_options;
#define GW_CREDENTIAL_OPTIONS_VERSION 1u
#define GW_CREDENTIAL_OPTIONS_INIT {GW_CREDENTIAL_OPTIONS_VERSION, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL}

/* Creates a credential; set it as gw_client_options.credential (the client keeps a
 * reference) and free yours with gw_credential_free. GW_ERROR_INVALID_ARGUMENT when header is
 * not a token (or a framing field) or prefix + token has a control character other than
 * HTAB (RFC 9110 sections 5.1 and 5.5). */
int32_t gw_credential_new(const gw_credential_options *options, gw_credential **out_credential);
void gw_credential_free(gw_credential *credential); /* NULL is ignored */
/* How many refreshes have been started. */
int32_t gw_credential_refresh_count(const gw_credential *credential);
/* Answers a refresh: the new token (copied), or NULL when it failed. Exactly once per
 * gw_refresh, from any thread, now or later; the handle is freed by this call. A token with
 * a control character other than HTAB (RFC 9110 section 5.5) counts as a failed refresh and returns
 * GW_ERROR_INVALID_ARGUMENT (the handle is freed all the same). */
int32_t gw_refresh_complete(gw_refresh *refresh, const char *token);

/* ==== Completion queues and one-call result reads ============================
 * For bindings that pay for every callback into their runtime (Python's GIL): calls started
 * with a queue instead of a completion function push their results into it from the loop
 * thread (no callback runs), and one gw_queue_wait, which blocks without calling back,
 * returns many finished results at once. Any thread may use a queue; several clients may
 * share one. */

typedef struct gw_queue gw_queue; /* finished results of queued calls, in completion order */

/* Creates an empty queue. On GW_OK free *out_queue with gw_queue_free. */
int32_t gw_queue_new(gw_queue **out_queue);

/* Drops the caller's reference. Calls still running keep the queue alive until they finish;
 * every result not taken with gw_queue_wait (now or pushed later) is freed. NULL is ignored.
 * No thread may be in gw_queue_wait on it. */
void gw_queue_free(gw_queue *queue);

/* As gw_call_async, but the finished call's result (owned by the caller once taken) is
 * pushed into `queue` with `tag` instead of running a completion: exactly once when this
 * returns GW_OK, never when it returns an error. out_call may be NULL (as for gw_call_async).
 * The client and the queue may be freed before the call finishes (the call is then cancelled
 * or its result freed with the queue). Any thread. */
int32_t gw_call_async_queued(gw_client *client, const gw_call_options *options, gw_queue *queue,
                             uint64_t tag, gw_call_handle **out_call);

/* Takes up to `capacity` finished results, oldest first: out_results[i] (the caller frees
 * each with gw_result_free) and out_tags[i] (may be NULL) for i < *out_count. Blocks while
 * the queue is empty: at most timeout_seconds (0 = do not block, < 0 = until a result
 * arrives); *out_count is 0 when the time ran out. Returns GW_ERROR_INVALID_ARGUMENT for NULL
 * queue, out_results or out_count, or a zero capacity; GW_ERROR_WOULD_DEADLOCK (nothing taken)
 * when called with a non-zero timeout on any client's event-loop thread (in a completion,
 * observer, monitor or plugin hook), where waiting would stall the loop (as gw_call refuses);
 * a poll with timeout 0 is allowed there. */
int32_t gw_queue_wait(gw_queue *queue, double timeout_seconds, gw_result **out_results, uint64_t *out_tags,
                      size_t capacity, size_t *out_count);

/* The number of finished results waiting in the queue (0 for NULL). */
size_t gw_queue_count(const gw_queue *queue);

/* What most readers of a result need, in one call (the rest through the gw_result_*
 * functions). body points into the result (as gw_result_body): valid until gw_result_free. */
typedef struct gw_result_fields {
    uint32_t version;       /* GW_RESULT_FIELDS_VERSION, set by the caller */
    int32_t ok;             /* gw_result_ok */
    int32_t status;         /* gw_result_status */
    int32_t error_kind;     /* gw_result_error_kind */
    int32_t attempt_count;  /* gw_result_attempt_count */
    const uint8_t *body;    /* gw_result_body: NULL without a response or with an empty body */
    size_t body_length;
} gw_result_fields;
#define GW_RESULT_FIELDS_VERSION 1u

/* Fills *out_fields (whose version the caller set) from `result`. GW_ERROR_INVALID_ARGUMENT
 * for a NULL result or out_fields, GW_ERROR_VERSION for an unknown version. */
int32_t gw_result_read(const gw_result *result, gw_result_fields *out_fields);

#ifdef __cplusplus
}
#endif

#endif /* GATEWIRE_H */
