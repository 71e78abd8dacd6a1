/**
 * @file gatewire.h
 * @brief The C ABI of Gatewire, a plugin-based REST gateway SDK.
 *
 * One shared library (libGatewire.so) serves C, Python (ctypes) and Swift. Its core is
 * Swift; this header is the whole C contract. It is grouped by object: the conventions, the
 * status codes, the handles, then the library, plugins, client, call options, call, result,
 * attempts, failure observers, event monitors, completion queues, paginators and
 * credentials, each with its types and functions in the order of its life (create, use, free).
 * The plugins come before the client because gw_client_options holds them.
 */
#ifndef GATEWIRE_H
#define GATEWIRE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup gw_conventions Conventions
 * @brief The rules every function of this header follows.
 *
 * Conventions (as SQLite and libgit2):
 *
 *  - Every name starts with gw_ / GW_. Handles are opaque pointers.
 *  - Functions that can fail return an int32_t status (GW_OK = 0, else a GW_ERROR_* code).
 *    gw_last_error_message() then describes the failure. A NULL pointer or malformed JSON
 *    is reported this way, never a crash. A NULL argument's message names the function
 *    called ("gw_client_new: out_client is NULL"); a bad value's names the field or header
 *    ("retry.max_retries: -5 is out of range ...", "header \"X\": ...").
 *  - Header fields (config "headers", headers_json, gw_request_set_header, credentials,
 *    plugin settings) follow RFC 9110: a name is a token (section 5.1: letters, digits and
 *    `` !#$%&'*+-.^_`|~ ``) and not one libcurl frames the message or the connection with
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
 *    password, secret, the apiKey plugin's, config "redactQuery") replaced by `"<redacted>"`.
 *    The response's own headers and body are passed through as received.
 *  - Strings are UTF-8 and NUL-terminated. A "const char *" the library returns is owned by
 *    the library (valid as documented); a "char *" it returns is the caller's and must be
 *    released with gw_string_free(). Strings passed in are copied before the call returns.
 *  - Options structs begin with a uint32_t version; fill them with their `_init` function
 *    (or the `_INIT` macro) so fields can be added without breaking the ABI.
 *  - Callbacks take void *user_data last. Completions, plugins, retry tests and failure
 *    observers run on the client's event-loop thread (one per client) and must not block;
 *    a blocking gw_call() (or gw_queue_wait() with a timeout) from inside one returns
 *    GW_ERROR_WOULD_DEADLOCK.
 *  - Handles: every `_free` function ignores NULL. Passing a handle that was already freed
 *    (freeing it twice, or any use after its `_free`) is undefined behaviour, as for
 *    sqlite3_close() on a closed connection: the library cannot detect it and may crash.
 *  - Times are seconds as double.
 *  - Numbers passed in have the ranges their documentation gives. A value outside its range
 *    (a negative count, NaN, an infinity where none is allowed, a size_t above SIZE_MAX / 2,
 *    which no buffer can have) is GW_ERROR_INVALID_ARGUMENT naming the field; no number is
 *    ever wrapped, truncated or clamped silently, and none can stop the process.
 *  - Jansson: an application may use the same libjansson.so. Gatewire replaces Jansson's
 *    allocator (json_set_alloc_funcs) on its first response body of 16 KiB or more, only
 *    if it is still malloc/free, so that it can build those bodies' trees in arenas; every
 *    allocation made on the application's threads stays plain malloc/free (json_dumps text
 *    is still freed with free()). An application that installs its own allocator must do
 *    so before creating its first client; Gatewire then keeps it.
 */

/**
 * @defgroup gw_status Status codes, failure kinds and retry verdicts
 * @brief What a function returns, why a call failed, and what a retry test answers.
 * @{
 */

/**
 * @name Status codes returned by functions
 * GW_OK, a GW_ERROR_* code (gw_last_error_message() describes it), or GW_DONE.
 * @{
 */
#define GW_OK 0                     /**< success */
#define GW_ERROR_INVALID_ARGUMENT 1 /**< NULL where a value is required, a bad value, malformed JSON
                                         in gw_call_options (the message gives line and column) */
#define GW_ERROR_CONFIG 2           /**< the gateway config is invalid, malformed JSON included; the
                                         message names the field or the line and column */
#define GW_ERROR_CALL_FAILED 3      /**< the call ran and failed: the gw_result says why */
#define GW_ERROR_WOULD_DEADLOCK 4   /**< a blocking call on the client's own event-loop thread */
#define GW_ERROR_VERSION 5          /**< an options struct or plugin has an unsupported version */
#define GW_DONE 100                 /**< not an error: gw_paginator_next after the last page (no
                                         result); gw_result_mapped_walk when its visitor stopped */
/** @} */

/**
 * @name Why a call failed
 * gw_result_error_kind() and gw_attempt_error_kind(); same numbers as Swift's ErrorKind.
 * @{
 */
#define GW_KIND_NONE 0              /**< the call succeeded */
#define GW_KIND_CONNECT 1           /**< no connection: refused, unreachable, or a timeout before the
                                         request began to go out */
#define GW_KIND_DNS 2               /**< the host name could not be resolved */
#define GW_KIND_TLS 3               /**< TLS handshake or certificate verification failed */
#define GW_KIND_TIMEOUT 4           /**< the attempt timed out once its request began to go out (on a
                                         new or a kept-alive connection): the server may have seen it */
#define GW_KIND_NETWORK 5           /**< reset, send/receive error, empty or partial reply */
#define GW_KIND_HTTP_STATUS 6       /**< a response whose status is not accepted (every 4xx, 5xx) */
#define GW_KIND_MAPPING 7           /**< a body that a matching descriptor maps, or that a page or
                                         cursor paginator reads, could not be parsed or mapped;
                                         other bodies are not parsed by the call */
#define GW_KIND_CANCELLED 8         /**< cancelled by the caller, or the client was freed */
#define GW_KIND_DEADLINE 9          /**< the call's overall deadline passed */
#define GW_KIND_INVALID_ARGUMENT 10 /**< the call could not be built (route, parameter, body) */
#define GW_KIND_PLUGIN 11           /**< a plugin's prepare hook failed, or its process hook failed
                                         the call */
#define GW_KIND_AUTH 12             /**< a 401 and the refreshing credential could not be refreshed */
#define GW_KIND_CIRCUIT_OPEN 13     /**< the host's circuit breaker is open: nothing (more) was sent;
                                         the status is the last attempt's when a retry was refused,
                                         else 0 */
#define GW_KIND_PROTOCOL 14         /**< the reply broke HTTP (not HTTP at all, malformed status line
                                         or header section); status 0 */
#define GW_KIND_RESPONSE_TOO_LARGE 15 /**< the body passed maxResponseBytes (decoded; config, route or
                                           gw_call_options.max_response_bytes), or its Content-Length did: aborted there,
                                           never retried; status 0 */
#define GW_KIND_REDIRECT 16         /**< a redirect the redirect policy refused (too many hops, https
                                         to http, a body re-sent to another origin, another origin
                                         under "sameOrigin", following off) and no descriptor accepts;
                                         the status and response are the redirect's */
#define GW_KIND_RATE_LIMITED 17     /**< the host's or route's rateLimit refused the attempt: waiting
                                         for its slot (or for a Retry-After pause to end) was off
                                         ("wait": false) or would pass the deadline; nothing (more)
                                         was sent; gw_result_retry_after says when a slot frees */
/** @} */

/**
 * @name What a retry test answers
 * The return value of a gw_retry_test_fn.
 * @{
 */
#define GW_RETRY_USE_POLICY 0 /**< let the client's retry policy decide */
#define GW_RETRY_RETRY 1      /**< retry (within the policy's max_retries), after *delay seconds if set >= 0 */
#define GW_RETRY_STOP 2       /**< stop and report this attempt's outcome */
/** @} */

/** @} */

/**
 * @defgroup gw_handles Handles
 * @brief The opaque objects, declared here together so that every section can name them.
 *
 * Each is created, used and freed by the functions of its own section; the borrowed ones
 * (gw_attempt, gw_request, gw_process, gw_event) live only during a callback. See "Handles"
 * in @ref gw_conventions.
 * @{
 */
typedef struct gw_client gw_client;           /**< a client: config, event loop, plugins, observers */
typedef struct gw_call_handle gw_call_handle; /**< a started asynchronous call, to cancel it */
typedef struct gw_result gw_result;           /**< the outcome of one call (success or failure) */
typedef struct gw_attempt gw_attempt;         /**< one attempt's outcome, inside a callback */
typedef struct gw_request gw_request;         /**< one attempt's request, inside a plugin's prepare
                                                   (or will_send) */
typedef struct gw_process gw_process;         /**< a call's final result, inside a plugin's process */
typedef struct gw_event gw_event;             /**< one event of a call, inside an event monitor */
typedef struct gw_queue gw_queue;             /**< finished results of queued calls, in completion
                                                   order */
typedef struct gw_paginator gw_paginator;     /**< a lazy walk over a route's pages */
typedef struct gw_credential gw_credential;   /**< a token refreshed on 401 (@ref gw_credentials) */
typedef struct gw_refresh gw_refresh;         /**< one refresh a credential asked for, answered once
                                                   with gw_refresh_complete */
/** @} */

/**
 * @defgroup gw_library Library
 * @brief The version, the last error's message, freeing strings, and where log lines go.
 * @{
 */

/**
 * @name Header version
 * The version of this header; the repository's VERSION file is the one source (the
 * version_agrees test checks that every copy matches it). gw_version() gives the library's.
 * @{
 */
#define GW_VERSION_MAJOR 0 /**< MAJOR of GW_VERSION_STRING */
#define GW_VERSION_MINOR 1 /**< MINOR of GW_VERSION_STRING */
#define GW_VERSION_PATCH 0 /**< PATCH of GW_VERSION_STRING */
#define GW_VERSION_STRING "0.1.0" /**< "MAJOR.MINOR.PATCH" */
/** @} */

/**
 * The library version (GW_VERSION_STRING of the header it was built with).
 *
 * Any thread.
 * @return "MAJOR.MINOR.PATCH"; static storage, never free.
 */
const char *gw_version(void);

/**
 * The message of the most recent gw_ function that failed (returned a GW_ERROR_* code) on the
 * calling thread.
 *
 * Successful calls leave it unchanged. Thread-local.
 * @return the message, or "" if none has failed; never NULL. Valid until the next failing
 *         gw_ call on this thread.
 */
const char *gw_last_error_message(void);

/**
 * Frees a char * returned by the library.
 * @param string what a gw_ function handed out as char *; NULL is ignored.
 */
void gw_string_free(char *string);

/**
 * Receives one log line or contained error.
 *
 * Called from any thread. Lines never contain credentials: the library's one redaction rule
 * applies (see "Secrets" in @ref gw_conventions).
 * @param line the line (UTF-8, NUL-terminated), borrowed: valid during the call.
 * @param user_data as given to gw_set_log_sink().
 */
typedef void (*gw_log_fn)(const char *line, void *user_data);

/**
 * Sets where the "log" plugin writes and where contained errors (an observer that failed)
 * are reported: `sink(line, user_data)` from any thread. Process-wide.
 * @param sink the function, or NULL to restore stderr.
 * @param user_data passed to every call of sink.
 * @return GW_OK.
 */
int32_t gw_set_log_sink(gw_log_fn sink, void *user_data);

/** @} */

/**
 * @defgroup gw_plugins Plugins
 * @brief Hooks called for every attempt of every call of a client, and the request and
 *        result views they receive.
 *
 * All hooks run on the client's event-loop thread. A plugin is given to a client at its
 * creation (gw_client_options.plugins) or named by the gateway config's "plugins" array,
 * which may load it from a shared object (gw_plugin_entry_fn).
 *
 * A plugin in a shared object is written against the function table its entry receives
 * (gw_plugin_api), as an SQLite loadable extension is, and is not linked against libGatewire:
 * it then loads into any host of the C ABI, C and Python programs on libGatewire as the
 * `gatewire` CLI (which has its own core inside and must not get a second one):
 *
 * @code
 * #define GW_PLUGIN_USE_API       // before the include: gw_request_* etc. go through the table
 * #include "gatewire.h"
 * GW_PLUGIN_API_DEFINE            // once per shared object, at file scope
 *
 * static int32_t prepare(gw_request *request, void *user_data) {
 *     (void)user_data;
 *     return gw_request_set_header(request, "X-Signed", "yes");
 * }
 * int32_t gw_plugin_entry(gw_plugin *plugin, const gw_plugin_api *api) {
 *     GW_PLUGIN_API_INIT(api);    // returns GW_ERROR_VERSION from the entry for a too old host
 *     plugin->version = GW_PLUGIN_VERSION;
 *     plugin->name = "signer";
 *     plugin->prepare = prepare;
 *     return 0;
 * }
 * @endcode
 *
 * Build it with `cc -shared -fPIC $(pkg-config --cflags gatewire) -o libsigner.so signer.c`
 * (no -lGatewire). Other source files of the same object define GW_PLUGIN_USE_API and include
 * the header too, without GW_PLUGIN_API_DEFINE.
 * @{
 */

/**
 * A plugin: hooks called for every attempt of every call of a client.
 *
 * Version 2 adds will_send and process (read only when version >= 2, so version 1 structs
 * and arrays keep working). Version 3 has the fields of version 2; filled by a shared
 * object's entry, it says the plugin calls Gatewire through the gw_plugin_api table only
 * (see gw_plugin_entry_fn). All hooks run on the client's event-loop thread. The struct is
 * copied at client creation. An array of plugins must use one version throughout (the first
 * element's).
 */
typedef struct gw_plugin {
    uint32_t version; /**< GW_PLUGIN_VERSION, GW_PLUGIN_VERSION_2 or GW_PLUGIN_VERSION_1 */
    const char *name; /**< for messages, e.g. "signer"; copied; may be NULL */
    int32_t (*prepare)(gw_request *request, void *user_data);
    /**< adapts the attempt's request (headers, URL) before it is sent; hooks run in
         registration order. Return 0 to go on, non-zero to fail the call with GW_KIND_PLUGIN
         (nothing is sent); give the reason with gw_request_fail. May be NULL. */
    void (*did_receive)(const gw_attempt *attempt, void *user_data);
    /**< sees each attempt's outcome; hooks run in reverse order (an onion). May be NULL. */
    void (*destroy)(void *user_data);
    /**< called once with user_data when the client is freed, after its last call completed:
         on the loop thread (which then ends). May be NULL. */
    void *user_data; /**< passed to every hook */
    void (*will_send)(const gw_request *request, void *user_data);
    /**< version >= 2: sees each attempt's request as sent, after every prepare; registration
         order. */
    void (*process)(gw_process *process, void *user_data);
    /**< version >= 2: sees the call's final result once, before the failure observers and the
         completion, and may fail it (gw_process_fail); reverse order (an onion). */
} gw_plugin;
#define GW_PLUGIN_VERSION 3u   /**< the version of gw_plugin this header declares */
#define GW_PLUGIN_VERSION_2 2u /**< the fields of version 3; from a shared object, one linked
                                    against libGatewire (see gw_plugin_entry_fn) */
#define GW_PLUGIN_VERSION_1 1u /**< the six fields up to user_data */

/**
 * The functions a plugin's hooks may call, handed to a shared object's entry point so that
 * the object need not link libGatewire (each member is the gw_* function of the same name,
 * of the host that loaded the plugin; documented below and in @ref gw_result and
 * @ref gw_attempts).
 *
 * Later versions only append members: a plugin built against version N reads the members of
 * version N and checks `version >= N` (GW_PLUGIN_API_INIT does). The table is the host's,
 * valid for the life of the process; read it from any thread.
 */
typedef struct gw_plugin_api {
    uint32_t version; /**< GW_PLUGIN_API_VERSION of the host */
    const char *(*last_error_message)(void); /**< gw_last_error_message */
    const char *(*request_method)(const gw_request *request); /**< gw_request_method */
    const char *(*request_url)(const gw_request *request); /**< gw_request_url */
    const char *(*request_header)(const gw_request *request, const char *name); /**< gw_request_header */
    int32_t (*request_set_header)(gw_request *request, const char *name, const char *value); /**< gw_request_set_header */
    int32_t (*request_set_url)(gw_request *request, const char *url); /**< gw_request_set_url */
    int32_t (*request_fail)(gw_request *request, const char *message); /**< gw_request_fail */
    int32_t (*attempt_number)(const gw_attempt *attempt); /**< gw_attempt_number */
    int32_t (*attempt_status)(const gw_attempt *attempt); /**< gw_attempt_status */
    int32_t (*attempt_error_kind)(const gw_attempt *attempt); /**< gw_attempt_error_kind */
    double (*attempt_elapsed)(const gw_attempt *attempt); /**< gw_attempt_elapsed */
    const char *(*attempt_header)(const gw_attempt *attempt, const char *name); /**< gw_attempt_header */
    const gw_result *(*process_result)(const gw_process *process); /**< gw_process_result */
    int32_t (*process_fail)(gw_process *process, int32_t kind, const char *message); /**< gw_process_fail */
    int32_t (*result_ok)(const gw_result *result); /**< gw_result_ok */
    int32_t (*result_status)(const gw_result *result); /**< gw_result_status */
    int32_t (*result_error_kind)(const gw_result *result); /**< gw_result_error_kind */
    const char *(*result_error_message)(const gw_result *result); /**< gw_result_error_message */
    const char *(*result_header)(const gw_result *result, const char *name); /**< gw_result_header */
    const uint8_t *(*result_body)(const gw_result *result, size_t *out_length); /**< gw_result_body */
    const char *(*result_mapped_json)(const gw_result *result); /**< gw_result_mapped_json */
    int32_t (*process_fail_with_errors)(gw_process *process, int32_t kind, const char *message,
                                        const char *errors_json);
    /**< version >= 2: gw_process_fail_with_errors */
} gw_plugin_api;
#define GW_PLUGIN_API_VERSION 2u /**< the version of gw_plugin_api this header declares */
#define GW_PLUGIN_API_VERSION_1 1u /**< the members up to result_mapped_json */

/**
 * The entry point of a plugin in a shared object.
 *
 * The gateway config's "plugins" array may name a shared object:
 * `{"path": "./libmyplugin.so", "symbol": "gw_plugin_entry", "name": "mine"}`.
 * A path not starting with "/" is relative to the config file's directory (config_path), or
 * to the current directory for config_json; a load error shows the absolute path tried.
 * The object is opened with dlopen(RTLD_NOW | RTLD_LOCAL) when a client is made from the
 * config (gw_client_create and its shorthands; gw_config_check and `gatewire check` load it
 * too, to report it); the symbol (default "gw_plugin_entry") must be a gw_plugin_entry_fn. It
 * is called once per client with a zeroed gw_plugin to fill and the host's table, and returns
 * 0. A missing file or symbol, a non-zero return or an unsupported version is GW_ERROR_CONFIG
 * naming plugins[i] (the `gatewire` CLI: exit status 1). The object stays loaded for the
 * process; its destroy hook is not called.
 *
 * The version it fills says how the plugin reaches Gatewire:
 *  - GW_PLUGIN_VERSION (3): through `api` only (GW_PLUGIN_USE_API); the object is not linked
 *    against libGatewire. Every host loads it.
 *  - GW_PLUGIN_VERSION_2 or _1, from an entry of one argument `(gw_plugin *plugin)` that
 *    ignores `api`: the object is linked against libGatewire (-lGatewire) and calls its
 *    gw_* functions. libGatewire loads it (the object's libGatewire is the one already in the
 *    process); the `gatewire` CLI refuses it with a config error, as that would bring a second
 *    core and Swift runtime into the process: rebuild it for version 3.
 * In Swift, a program on the `Gatewire` product loads no shared object (a config error naming
 * plugins[i].path): pass the plugin to Client(config:plugins:).
 * @param plugin a zeroed gw_plugin to fill.
 * @param api the host's function table (never NULL); keep the pointer (GW_PLUGIN_API_INIT).
 * @return 0 on success.
 */
typedef int32_t (*gw_plugin_entry_fn)(gw_plugin *plugin, const gw_plugin_api *api);

/**
 * @name Inside a plugin's prepare: the attempt's request
 * The gw_request is borrowed: valid during the callback. A NULL request gives NULL.
 * @{
 */

/**
 * The request's method.
 * @param request the borrowed request.
 * @return e.g. "GET"; valid during the callback.
 */
const char *gw_request_method(const gw_request *request);

/**
 * The request's URL.
 * @param request the borrowed request.
 * @return the absolute URL; valid until changed or the callback ends.
 */
const char *gw_request_url(const gw_request *request);

/**
 * A header of the request.
 * @param request the borrowed request.
 * @param name the header name (case-insensitive).
 * @return its value, or NULL; valid during the callback.
 */
const char *gw_request_header(const gw_request *request, const char *name);

/**
 * Sets (replaces) a header; value NULL removes it. Copies both strings.
 * @param request the borrowed request.
 * @param name the header name: a token (RFC 9110 section 5.1), not a framing or connection
 *        field.
 * @param value the value, without a control character other than HTAB (RFC 9110 section
 *        5.5); NULL removes the header.
 * @return GW_OK, or GW_ERROR_INVALID_ARGUMENT (nothing changes) for a NULL request or name, a
 *         name that is not a token (RFC 9110 section 5.1) or is a framing or connection field,
 *         or a value with a control character other than HTAB (RFC 9110 section 5.5); see
 *         "Header fields" in @ref gw_conventions; the message names the header.
 */
int32_t gw_request_set_header(gw_request *request, const char *name, const char *value);

/**
 * Replaces the URL (absolute). Copies the string.
 * @param request the borrowed request.
 * @param url an absolute http:// or https:// URL.
 * @return GW_OK, or GW_ERROR_INVALID_ARGUMENT (gw_last_error_message() set, the URL unchanged)
 *         for a NULL request or a url that is NULL or not an absolute http:// or https:// URL.
 */
int32_t gw_request_set_url(gw_request *request, const char *url);

/**
 * Fails the call from inside a plugin's prepare, with a reason: when the hook returns
 * (whatever it returns) the call fails with GW_KIND_PLUGIN and the message
 * "plugin NAME failed: MESSAGE"; nothing is sent.
 *
 * A later call replaces an earlier reason. The event-loop thread, during prepare only.
 * (Returning non-zero without calling it still fails the call: "prepare returned N".)
 * @param request the prepare hook's request.
 * @param message the reason (NULL = "prepare failed"); copied: the caller keeps and frees its
 *        own string.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for a NULL request or the gw_request of a will_send
 *         hook.
 */
int32_t gw_request_fail(gw_request *request, const char *message);

/** @} */

/**
 * @name Inside a plugin's process: the final result
 * The gw_process is borrowed: valid during the callback.
 * @{
 */

/**
 * The call's result as it stands (earlier process hooks included).
 * @param process the borrowed process view.
 * @return the result, borrowed: valid during the callback; NULL for a NULL process.
 */
const gw_result *gw_process_result(const gw_process *process);

/**
 * Turns the result into a failure of `kind` with `message`, keeping its status, response and
 * attempts: e.g. a 2xx {"ok": false, "error": "..."} body.
 * @param process the borrowed process view.
 * @param kind a GW_KIND_* value; 0 = GW_KIND_PLUGIN.
 * @param message the failure's message (copied); NULL = "a plugin failed the call".
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for a NULL process or an unknown kind.
 */
int32_t gw_process_fail(gw_process *process, int32_t kind, const char *message);

/**
 * As gw_process_fail, with error objects: the failure's gw_result_error_objects_json becomes
 * `errors_json`, as an error descriptor's mapped objects reach the caller, the failure
 * observers (once per call) and the Python binding's CallError.error_objects. E.g. a 200
 * {"errors": [...]} (GraphQL) turned into a failure with those errors.
 *
 * The failure is final: process hooks run once per call, after the retry policy decided.
 * The event-loop thread, during process only.
 * @param process the borrowed process view.
 * @param kind a GW_KIND_* value; 0 = GW_KIND_PLUGIN.
 * @param message the failure's message (copied); NULL = "a plugin failed the call".
 * @param errors_json a JSON array (UTF-8 text, copied; any elements); NULL = no error
 *        objects for a success, and a failure's own kept (as gw_process_fail).
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT (the result unchanged, gw_last_error_message()
 *         says why) for a NULL process, an unknown kind, or errors_json that is not JSON or
 *         not an array.
 */
int32_t gw_process_fail_with_errors(gw_process *process, int32_t kind, const char *message, const char *errors_json);

/** @} */

/** @} */

/**
 * @defgroup gw_client Client
 * @brief A client: the gateway config, an event-loop thread, plugins and observers.
 * @{
 */

/**
 * How to build a client.
 *
 * The config comes from config_json (gateway config JSON text) or config_path (a JSON file),
 * not both; base_url, when set too, replaces that config's baseURL (e.g. a server on a free
 * port); base_url alone gives a config with only it.
 */
typedef struct gw_client_options {
    uint32_t version;          /**< GW_CLIENT_OPTIONS_VERSION */
    const char *base_url;      /**< e.g. "http://127.0.0.1:8080/api"; copied */
    const char *config_json;   /**< gateway config as JSON text; copied */
    const char *config_path;   /**< path of a gateway config file; read during the call */
    const gw_plugin *plugins;  /**< array of plugin_count plugins (copied), after the config's own */
    size_t plugin_count;       /**< the number of plugins, at most SIZE_MAX / 2 */
    uint64_t random_seed;      /**< seeds retry jitter per call for exact tests; 0 = from the system */
    gw_credential *credential; /**< version >= 2: a refreshing credential (retained by the
                                    client), or NULL */
} gw_client_options;
#define GW_CLIENT_OPTIONS_VERSION 2u /**< the version of gw_client_options this header declares */
/** gw_client_options with its defaults, for an initialiser. */
#define GW_CLIENT_OPTIONS_INIT {GW_CLIENT_OPTIONS_VERSION, NULL, NULL, NULL, NULL, 0, 0, NULL}

/**
 * Fills *options with defaults for the given version.
 * @param options the struct to fill.
 * @param version 1 or GW_CLIENT_OPTIONS_VERSION.
 * @return GW_OK; GW_ERROR_VERSION for an unknown version, GW_ERROR_INVALID_ARGUMENT for NULL.
 */
int32_t gw_client_options_init(gw_client_options *options, uint32_t version);

/**
 * Validates a gateway config without creating a client. A shared-object plugin it names is
 * loaded and its entry called, as gw_client_create would (gw_plugin_entry_fn): checking a
 * config runs the code of its plugins, so check an untrusted config with
 * `gatewire check --no-load-plugins`, which lists them without loading them.
 * @param config_json the gateway config as JSON text.
 * @param out_warnings if not NULL, receives on GW_OK a JSON array of warning strings, freed
 *        with gw_string_free().
 * @return GW_OK; GW_ERROR_CONFIG, where gw_last_error_message() is "field.path: why";
 *         GW_ERROR_INVALID_ARGUMENT for a NULL config_json.
 */
int32_t gw_config_check(const char *config_json, char **out_warnings);

/**
 * Makes a gateway config from an OpenAPI 3.0 or 3.1 document, JSON or YAML (`gatewire import
 * openapi`; every rule, approximation and report code in docs/openapi.md). Reads the document
 * and the files its `$ref`s name (relative to its folder); nothing else, no network.
 * @param document_path the document's file.
 * @param server the index of the document's `servers` entry that gives baseURL, or -1 for the
 *        first.
 * @param out_config receives on GW_OK the config as JSON text (keys sorted, two spaces of
 *        indentation, ended by a newline: the same document gives the same bytes), freed with
 *        gw_string_free(); NULL otherwise.
 * @param out_report if not NULL, receives on GW_OK what the config cannot express as JSON Lines
 *        (one {"pointer", "reason", "message"} object per line; "" when nothing), freed with
 *        gw_string_free().
 * @return GW_OK; GW_ERROR_CONFIG when the document cannot be imported (unreadable, not OpenAPI
 *         3.0/3.1, invalid JSON or YAML, a dangling or cyclic $ref, a cyclic allOf, no such
 *         server), where gw_last_error_message() is "DOCUMENT#/json/pointer: why" or
 *         "DOCUMENT: line L, column C: why"; GW_ERROR_INVALID_ARGUMENT for a NULL document_path
 *         or out_config, or a server below -1.
 */
int32_t gw_config_from_openapi(const char *document_path, int32_t server, char **out_config, char **out_report);

/**
 * Creates a client and starts its event-loop thread.
 * @param options how to build it (copied).
 * @param out_client on GW_OK, a new client the caller frees with gw_client_free().
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT (NULL, no config source, both config_json and
 *         config_path), GW_ERROR_CONFIG (the message names the field), GW_ERROR_VERSION.
 */
int32_t gw_client_create(const gw_client_options *options, gw_client **out_client);

/**
 * An alias of gw_client_create with only base_url set (the same implementation, errors and
 * ownership); new code should prefer gw_client_create, which every setting reaches.
 * @param base_url e.g. "http://127.0.0.1:8080/api"; copied.
 * @param out_client as for gw_client_create.
 * @return as gw_client_create; a NULL base_url is GW_ERROR_INVALID_ARGUMENT.
 */
int32_t gw_client_new(const char *base_url, gw_client **out_client);

/**
 * An alias of gw_client_create with only config_json set (the same implementation, errors
 * and ownership); new code should prefer gw_client_create, which every setting reaches.
 * @param config_json gateway config as JSON text; copied.
 * @param out_client as for gw_client_create.
 * @return as gw_client_create; a NULL config_json is GW_ERROR_INVALID_ARGUMENT.
 */
int32_t gw_client_new_from_config(const char *config_json, gw_client **out_client);

/**
 * The "metrics" plugin's counters as JSON.
 *
 * {"calls", "failures", "attempts", "retries", "transport_errors", "status_classes":
 * {"2xx": n}, "attempt_time", "first_byte_time", "max_attempt_time"}; times as "Times in
 * JSON" at gw_result_attempts_json.
 * @param client the client.
 * @param out_json receives the JSON text, freed with gw_string_free; NULL on an error.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT (and *out_json NULL) when the client has no
 *         metrics plugin, or for a NULL argument.
 */
int32_t gw_client_metrics_json(gw_client *client, char **out_json);

/**
 * The cookies in the client's jar (the gateway config's "cookies": true, or {"file": PATH}
 * to load the jar when the client is made and write it when it is freed) as JSON.
 *
 * An array of {"domain", "include_subdomains", "path", "secure", "http_only", "expires",
 * "name", "value"}, as libcurl's cookie engine holds them (expired ones left out);
 * "expires" in seconds since the Unix epoch, 0 for a session cookie. The values are secrets:
 * nothing in the library logs them (Cookie and Set-Cookie are redacted everywhere).
 *
 * Any thread; reads the jar on the client's event-loop thread (a short wait from another
 * thread, none from a callback).
 * @param client the client.
 * @param out_json receives the JSON text, freed with gw_string_free; "[]" when the client
 *        has no jar; NULL on an error.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for a NULL argument.
 */
int32_t gw_client_cookies_json(gw_client *client, char **out_json);

/**
 * What the config's "sharedState" Redis holds under its keyPrefix, whichever process wrote
 * it: a JSON array of objects, sorted by key, times in seconds from Redis's clock:
 * {"type": "circuit_breaker", "host", "policy", "state": "closed", "outcomes", "failures"}
 * (or "state": "open", "for"; "half_open", "trial"), {"type": "rate_limit", "scope", "name",
 * "policy", "ahead"}, {"type": "pause", "scope", "name", "policy", "for"} (docs/fleet.md).
 * Durations are rounded to the millisecond. Of a "redisCluster" every primary is read (each
 * holds its own slots' keys) and the objects merged. The `gatewire state` command prints the
 * same objects one a line.
 *
 * Blocks until Redis answers (at most the store's "timeout"; each primary of a cluster);
 * not from a callback.
 * @param client the client.
 * @param out_json receives the JSON text, freed with gw_string_free; NULL on an error.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for a NULL argument or a config without
 *         "sharedState"; GW_ERROR_WOULD_DEADLOCK on the client's loop
 *         thread; GW_ERROR_CALL_FAILED when Redis does not answer in time
 *         (gw_last_error_message says why).
 */
int32_t gw_client_shared_state_json(gw_client *client, char **out_json);

/**
 * Whether the calling thread may block until a call of this client completes: the rule
 * gw_call and gw_paginator_next apply, for bindings that wait on a completion of their own
 * (e.g. a future resolved by gw_call_async's completion).
 *
 * Any thread.
 * @param client the client.
 * @return GW_OK; GW_ERROR_WOULD_DEADLOCK on the client's event-loop thread (in a completion,
 *         plugin hook, retry test, observer or monitor), where the completion waited for
 *         could never run; GW_ERROR_INVALID_ARGUMENT for NULL.
 */
int32_t gw_client_check_blocking(gw_client *client);

/**
 * Stops the client's event loop and frees it.
 *
 * Calls still running complete with GW_KIND_CANCELLED first (their completions and the
 * observers run). Blocks until the loop thread has ended, unless called on that thread (from
 * a callback).
 * @param client the client; NULL is ignored; a client already freed is undefined behaviour
 *        (see "Handles" in @ref gw_conventions).
 */
void gw_client_free(gw_client *client);

/** @} */

/**
 * @defgroup gw_call_options Call options
 * @brief What one call sends, and the policies it is carried out with: gw_call_options and its
 *        nested structs, each with its own initialiser (as libgit2's git_clone_options).
 * @{
 */

/**
 * Asked once per failed attempt whether to retry.
 *
 * Runs on the client's event-loop thread.
 * @param attempt the failed attempt, borrowed: valid during the callback.
 * @param delay preset to -1 (= the policy's delay); with GW_RETRY_RETRY it may be set in
 *        seconds: capped at the policy's maxDelay (an infinite one too), and a delay past the
 *        call's deadline fails the call at once with GW_KIND_DEADLINE, as the policy's own
 *        delays do; a negative one or NaN keeps the policy's delay.
 * @param user_data gw_retry_options.test_user_data (gw_call_options_v4.retry_test_user_data).
 * @return a GW_RETRY_* verdict.
 */
typedef int32_t (*gw_retry_test_fn)(const gw_attempt *attempt, double *delay, void *user_data);

/**
 * @name What a multipart part carries
 * The value of gw_part.kind.
 * @{
 */
#define GW_PART_FIELD 0 /**< a form field: value, a NUL-terminated UTF-8 text */
#define GW_PART_FILE 1  /**< a file read from disk while it is sent: path */
#define GW_PART_BYTES 2 /**< bytes held by the caller: bytes + length */
/** @} */

/**
 * One part of a multipart/form-data body (RFC 7578), as a line of curl's -F: an array of them
 * in gw_body.parts (gw_call_options_v4.parts), written as a literal with designated initialisers, e.g.
 * `gw_part parts[] = {{.kind = GW_PART_FIELD, .name = "title", .value = "Q3"},
 *                     {.kind = GW_PART_FILE, .name = "report", .path = "q3.pdf"}};`.
 * An array rather than a builder handle: the parts are read during the call only, like every
 * other option, so there is nothing to create, free or get wrong in between.
 *
 * Every string is copied during the call (gw_call_async: before it returns). A file part's
 * file is opened and checked before anything is sent (one that cannot be read, or is not a
 * regular file, fails the call with GW_KIND_INVALID_ARGUMENT naming the part and the path), and each attempt and each
 * 307/308 redirect reads it again from its first byte while sending, in libcurl's chunks: a
 * file of any size keeps memory flat. A file that cannot be read by then fails the attempt
 * with GW_KIND_INVALID_ARGUMENT, which is never retried.
 */
typedef struct gw_part {
    int32_t kind;             /**< GW_PART_FIELD, GW_PART_FILE or GW_PART_BYTES; another value
                                   is GW_ERROR_INVALID_ARGUMENT */
    const char *name;         /**< the field name, required (libcurl escapes `"`, CR and LF) */
    const char *value;        /**< GW_PART_FIELD: the text, required; ignored otherwise */
    const void *bytes;        /**< GW_PART_BYTES: length bytes (NULL only with length 0) */
    size_t length;            /**< GW_PART_BYTES: the number of bytes, at most SIZE_MAX / 2 */
    const char *path;         /**< GW_PART_FILE: the file's path, required */
    const char *filename;     /**< the filename parameter; NULL = a file's path's last
                                   component, none for the other kinds */
    const char *content_type; /**< the part's Content-Type; NULL = libcurl's guess from the
                                   extension of the filename, else of a file's path (gif, jpg,
                                   jpeg, png, svg, txt, htm, html, pdf, xml), else
                                   application/octet-stream for a file, none for a field or
                                   bytes */
} gw_part;

/**
 * How far one attempt's transfer has got: a report to gw_call_options.on_progress.
 *
 * Bytes as libcurl counts them (CURLOPT_XFERINFOFUNCTION): the request body sent, and the
 * response body received before any Content-Encoding is decoded. Each attempt (and each
 * redirect hop within it) counts from 0.
 */
typedef struct gw_progress {
    int64_t bytes_sent;       /**< request body bytes sent so far */
    int64_t bytes_to_send;    /**< the request body's size, or -1 while unknown */
    int64_t bytes_received;   /**< response body bytes received so far */
    int64_t bytes_to_receive; /**< the response's Content-Length, or -1 while unknown (none yet,
                                   or chunked) */
    int32_t attempt;          /**< the attempt, 1, 2, ... */
    int32_t is_final;         /**< 1 for the attempt's last report (exactly one per attempt, just
                                   before its attempt_finished event): its counts are final,
                                   and when the transfer completed each total equals its count;
                                   else 0 */
} gw_progress;

/**
 * Sees a call's progress: while bytes move, at most ten reports a second per attempt
 * (throttled on the monotonic clock), then one final report per attempt.
 *
 * Runs on the client's event-loop thread and must not block (it holds up every call of the
 * client). A call without it never turns libcurl's progress meter on.
 * @param progress the report, borrowed: valid during the callback.
 * @param user_data gw_call_options.on_progress_user_data.
 */
typedef void (*gw_progress_fn)(const gw_progress *progress, void *user_data);

/**
 * @name What a chunk consumer answers
 * The return value of a gw_chunk_fn.
 * @{
 */
#define GW_CHUNK_CONTINUE 0 /**< the chunk was taken */
#define GW_CHUNK_PAUSE 1    /**< not taken: the transfer pauses (the loop does not block) until
                                 gw_call_resume_body(), which hands the same chunk again */
#define GW_CHUNK_STOP 2     /**< not taken: the call fails with GW_KIND_CANCELLED */
/** @} */

/**
 * Takes the next chunk of a streamed body (gw_download_options.on_chunk).
 *
 * Runs on the client's event-loop thread, in order, once per decoded chunk (at most 100 KiB,
 * the transfer's receive buffer); must not block (return GW_CHUNK_PAUSE instead). Such a
 * body is decoded by Gatewire, which offers "Accept-Encoding: deflate, gzip" only, so a
 * pause holds at most one network read and one chunk whatever the compression ratio.
 * @param data the chunk, borrowed: valid during the callback only (copy what you keep).
 * @param length its bytes (more than 0).
 * @param user_data gw_download_options.on_chunk_user_data.
 * @return a GW_CHUNK_* answer.
 */
typedef int32_t (*gw_chunk_fn)(const uint8_t *data, size_t length, void *user_data);

/**
 * @name Keeping a policy's value
 * @{
 */
#define GW_KEEP (-1) /**< in a number or flag of gw_retry_options and gw_redirect_options: keep
                          the value of the policy the call starts from (the route's, else the
                          client's); in gw_retry_budget_options, gw_circuit_breaker_options and
                          gw_rate_limit_options, which replace the whole policy as the config's
                          keys do: the default.
                          The field is then read as a key absent from the config's object. */
/** @} */

/**
 * @name Retry jitter
 * The value of gw_retry_options.jitter: the config's `retry.jitter` words.
 * @{
 */
#define GW_JITTER_KEEP 0         /**< keep the policy's jitter */
#define GW_JITTER_NONE 1         /**< "none": the computed delay as is */
#define GW_JITTER_FULL 2         /**< "full": uniform in [0, delay] (AWS "full jitter") */
#define GW_JITTER_EQUAL 3        /**< "equal": delay / 2 plus uniform in [0, delay / 2] */
#define GW_JITTER_DECORRELATED 4 /**< "decorrelated": uniform in [initial_delay, 3 x the previous
                                      delay], capped at max_delay */
/** @} */

/**
 * This call's retry policy, field by field over the route's (else the client's): the
 * config's `retry` object as C fields (docs/config.md "retry"). Each field that is not
 * GW_KEEP (GW_JITTER_KEEP, NULL) replaces that one value; the others stay, so a route that
 * retries only 502 after 0.2 s still does when only max_retries is set.
 *
 * The fields are read by the config's own `retry` reader, so their ranges (the core's
 * CallLimits) and messages are the config's and policy_json's, naming the C field:
 * `retry.max_retries: 150 is out of range 0...100` (GW_ERROR_INVALID_ARGUMENT). A NaN or
 * infinite time is refused too (`retry.max_delay: inf is not a finite number`).
 * Fill it with GW_RETRY_OPTIONS_INIT or gw_retry_options_init(); gw_call_options_init and
 * GW_CALL_OPTIONS_INIT do so for gw_call_options.retry.
 */
typedef struct gw_retry_options {
    uint32_t version;        /**< GW_RETRY_OPTIONS_VERSION; another value is GW_ERROR_VERSION */
    int32_t max_retries;     /**< retries after the first attempt, 0...100 (0 = one attempt);
                                  GW_KEEP = the policy's count (`maxRetries`) */
    double initial_delay;    /**< seconds before the first retry, before jitter, 0...86400;
                                  GW_KEEP = the policy's (`initialDelay`, default 0.5) */
    double multiplier;       /**< the factor each further delay grows by, 1...1000; GW_KEEP =
                                  the policy's (`multiplier`, default 2) */
    double max_delay;        /**< the longest computed delay, seconds, 0...86400; GW_KEEP = the
                                  policy's (`maxDelay`, default 30) */
    int32_t jitter;          /**< a GW_JITTER_* value; GW_JITTER_KEEP = the policy's (default
                                  "full"); another value is GW_ERROR_INVALID_ARGUMENT */
    const int32_t *status_codes; /**< the statuses retried (each 100...599), status_code_count of
                                      them, copied during the call; NULL = the policy's
                                      (`statusCodes`, default 408 429 500 502 503 504); a
                                      non-NULL array with count 0 retries no status */
    size_t status_code_count;    /**< the number of status_codes, at most SIZE_MAX / 2; more than
                                      0 with status_codes NULL is GW_ERROR_INVALID_ARGUMENT */
    const char *const *methods;  /**< the methods retried after the request may have reached the
                                      server (names, case-insensitive), method_count of them;
                                      NULL = the policy's (`methods`, default the idempotent
                                      ones of RFC 9110 section 9.2.2) */
    size_t method_count;         /**< the number of methods, as status_code_count */
    double max_retry_after;  /**< the longest Retry-After honoured, seconds, 0...86400 (a longer
                                  one stops the retries); GW_KEEP = the policy's (default 60) */
    int32_t idempotency_key; /**< 1: a POST or PATCH without an Idempotency-Key gets one (kept
                                  across its attempts); 0: not; GW_KEEP = the policy's (default 0);
                                  another value is GW_ERROR_INVALID_ARGUMENT */
    int32_t retry_non_idempotent; /**< 1: retry every method after sending, POST and PATCH
                                       included; 0: not; GW_KEEP = the policy's (default 0) */
    gw_retry_test_fn test;   /**< asked once per failed attempt whether to retry, or NULL */
    void *test_user_data;    /**< passed to test */
} gw_retry_options;
#define GW_RETRY_OPTIONS_VERSION 1u /**< the version of gw_retry_options this header declares */
/** gw_retry_options keeping every value of the policy, for an initialiser. */
#define GW_RETRY_OPTIONS_INIT {GW_RETRY_OPTIONS_VERSION, GW_KEEP, GW_KEEP, GW_KEEP, GW_KEEP, GW_JITTER_KEEP, \
                               NULL, 0, NULL, 0, GW_KEEP, GW_KEEP, GW_KEEP, NULL, NULL}

/**
 * Fills *options as GW_RETRY_OPTIONS_INIT.
 * @param options the struct to fill.
 * @param version GW_RETRY_OPTIONS_VERSION.
 * @return GW_OK; GW_ERROR_VERSION for another version, GW_ERROR_INVALID_ARGUMENT for NULL.
 */
int32_t gw_retry_options_init(gw_retry_options *options, uint32_t version);

/**
 * @name Whether a call overrides a retry budget or circuit breaker
 * The value of gw_retry_budget_options.mode and gw_circuit_breaker_options.mode.
 * @{
 */
#define GW_POLICY_KEEP 0 /**< keep the route's (else the client's) */
#define GW_POLICY_OFF 1  /**< none for this call (the config's `false`) */
#define GW_POLICY_ON 2   /**< this call's own, from the struct's fields (the config's object) */
/** @} */

/**
 * This call's retry budget (a token bucket per host that stops retries when too many
 * fail, gRPC's retry throttling): the config's `retryBudget` as C fields. With GW_POLICY_ON
 * the fields replace the whole budget, as the config's object does: a field left GW_KEEP
 * takes the default. Read by the config's reader (ranges and messages as the config's,
 * naming the C field). Fill it with GW_RETRY_BUDGET_OPTIONS_INIT or
 * gw_retry_budget_options_init().
 */
typedef struct gw_retry_budget_options {
    uint32_t version;  /**< GW_RETRY_BUDGET_OPTIONS_VERSION; another value is GW_ERROR_VERSION */
    int32_t mode;      /**< a GW_POLICY_* value; another is GW_ERROR_INVALID_ARGUMENT */
    double max_tokens; /**< the bucket's size in tokens, 1...1000; GW_KEEP = 10 (`maxTokens`) */
    double token_ratio; /**< tokens a success gives back, 0.001...1000; GW_KEEP = 0.1
                             (`tokenRatio`) */
} gw_retry_budget_options;
#define GW_RETRY_BUDGET_OPTIONS_VERSION 1u /**< the version of gw_retry_budget_options this header declares */
/** gw_retry_budget_options keeping the route's or client's budget, for an initialiser. */
#define GW_RETRY_BUDGET_OPTIONS_INIT {GW_RETRY_BUDGET_OPTIONS_VERSION, GW_POLICY_KEEP, GW_KEEP, GW_KEEP}

/**
 * Fills *options as GW_RETRY_BUDGET_OPTIONS_INIT.
 * @param options the struct to fill.
 * @param version GW_RETRY_BUDGET_OPTIONS_VERSION.
 * @return GW_OK; GW_ERROR_VERSION for another version, GW_ERROR_INVALID_ARGUMENT for NULL.
 */
int32_t gw_retry_budget_options_init(gw_retry_budget_options *options, uint32_t version);

/**
 * This call's circuit breaker (per host: open after too many failures, refusing calls for
 * break_duration): the config's `circuitBreaker` as C fields. With GW_POLICY_ON the fields
 * replace the whole breaker, as the config's object does: a field left GW_KEEP (NULL for
 * status_codes) takes the default. Read by the config's reader (ranges and messages as the
 * config's, naming the C field). Fill it with GW_CIRCUIT_BREAKER_OPTIONS_INIT or
 * gw_circuit_breaker_options_init().
 */
typedef struct gw_circuit_breaker_options {
    uint32_t version;           /**< GW_CIRCUIT_BREAKER_OPTIONS_VERSION; another value is
                                     GW_ERROR_VERSION */
    int32_t mode;               /**< a GW_POLICY_* value; another is GW_ERROR_INVALID_ARGUMENT */
    double failure_ratio;       /**< the share of failed calls that opens it, 0...1; GW_KEEP =
                                     0.1 (`failureRatio`) */
    int32_t minimum_throughput; /**< calls in the window before it may open, 1...100000;
                                     GW_KEEP = 100 (`minimumThroughput`) */
    double sampling_duration;   /**< the window, seconds, 0.001...86400; GW_KEEP = 30 */
    double break_duration;      /**< how long it stays open, seconds, 0.001...86400; GW_KEEP = 5 */
    const int32_t *status_codes; /**< the statuses that count as failures (each 100...599),
                                      status_code_count of them, copied; NULL = the default
                                      (`statusCodes`: 500 and up, 408, 429) */
    size_t status_code_count;   /**< the number of status_codes, at most SIZE_MAX / 2; more than
                                     0 with status_codes NULL is GW_ERROR_INVALID_ARGUMENT */
} gw_circuit_breaker_options;
#define GW_CIRCUIT_BREAKER_OPTIONS_VERSION 1u /**< the version of gw_circuit_breaker_options this header declares */
/** gw_circuit_breaker_options keeping the route's or client's breaker, for an initialiser. */
#define GW_CIRCUIT_BREAKER_OPTIONS_INIT {GW_CIRCUIT_BREAKER_OPTIONS_VERSION, GW_POLICY_KEEP, GW_KEEP, GW_KEEP, \
                                         GW_KEEP, GW_KEEP, NULL, 0}

/**
 * Fills *options as GW_CIRCUIT_BREAKER_OPTIONS_INIT.
 * @param options the struct to fill.
 * @param version GW_CIRCUIT_BREAKER_OPTIONS_VERSION.
 * @return GW_OK; GW_ERROR_VERSION for another version, GW_ERROR_INVALID_ARGUMENT for NULL.
 */
int32_t gw_circuit_breaker_options_init(gw_circuit_breaker_options *options, uint32_t version);

/**
 * @name Which limit a call's rate limit counts
 * The value of gw_rate_limit_options.scope: the config's `rateLimit.scope` words.
 * @{
 */
#define GW_RATE_LIMIT_SCOPE_KEEP 0  /**< the default, "host" */
#define GW_RATE_LIMIT_SCOPE_HOST 1  /**< "host": every call to the host (`host[:port]`) */
#define GW_RATE_LIMIT_SCOPE_ROUTE 2 /**< "route": every call of the route (a call by path
                                         counts under its host) */
/** @} */

/**
 * This call's rate limit (GCRA: requests every per seconds, with burst more at once after a
 * quiet time; docs/config.md `rateLimit`): the config's `rateLimit` as C fields. With
 * GW_POLICY_ON the fields replace the whole limit, as the config's object does: a field left
 * GW_KEEP takes the default. A call over the limit waits for its slot (wait) or fails at once
 * with GW_KIND_RATE_LIMITED, nothing sent, gw_result_retry_after() saying when a slot frees.
 * Read by the config's reader (ranges and messages as the config's, naming the C field:
 * `rate_limit.requests: 0 is out of range 1...1000000`). Fill it with
 * GW_RATE_LIMIT_OPTIONS_INIT or gw_rate_limit_options_init().
 */
typedef struct gw_rate_limit_options {
    uint32_t version;  /**< GW_RATE_LIMIT_OPTIONS_VERSION; another value is GW_ERROR_VERSION */
    int32_t mode;      /**< a GW_POLICY_* value; another is GW_ERROR_INVALID_ARGUMENT */
    int32_t requests;  /**< attempts allowed every per seconds, 1...1000000; GW_KEEP = no rate
                            (only the Retry-After pauses; `requests` absent) */
    double per;        /**< the span requests are counted over, seconds, 0.001...86400; GW_KEEP = 1 */
    int32_t burst;     /**< attempts allowed at once beyond the even spacing, 0...1000000;
                            GW_KEEP = 0 */
    int32_t scope;     /**< a GW_RATE_LIMIT_SCOPE_* value; another is GW_ERROR_INVALID_ARGUMENT */
    int32_t wait;      /**< 1: a call over the limit waits for its slot (within its deadline);
                            0: it fails at once; GW_KEEP = 1 */
    int32_t pause_on_retry_after; /**< 1: a 429 or 503 with Retry-After (RFC 9110 section
                                       10.2.3) pauses the host or route; 0: not; GW_KEEP = 1 */
    double max_pause;  /**< the longest such pause, seconds, 0...86400; GW_KEEP = 60 */
} gw_rate_limit_options;
#define GW_RATE_LIMIT_OPTIONS_VERSION 1u /**< the version of gw_rate_limit_options this header declares */
/** gw_rate_limit_options keeping the route's or client's limit, for an initialiser. */
#define GW_RATE_LIMIT_OPTIONS_INIT {GW_RATE_LIMIT_OPTIONS_VERSION, GW_POLICY_KEEP, GW_KEEP, GW_KEEP, GW_KEEP, \
                                    GW_RATE_LIMIT_SCOPE_KEEP, GW_KEEP, GW_KEEP, GW_KEEP}

/**
 * Fills *options as GW_RATE_LIMIT_OPTIONS_INIT.
 * @param options the struct to fill.
 * @param version GW_RATE_LIMIT_OPTIONS_VERSION.
 * @return GW_OK; GW_ERROR_VERSION for another version, GW_ERROR_INVALID_ARGUMENT for NULL.
 */
int32_t gw_rate_limit_options_init(gw_rate_limit_options *options, uint32_t version);

/**
 * @name Which redirects a call follows
 * The value of gw_redirect_options.follow: the config's `redirects.follow` words.
 * @{
 */
#define GW_FOLLOW_KEEP 0        /**< keep the policy's (default "any") */
#define GW_FOLLOW_NONE 1        /**< "none": a redirect is refused (GW_KIND_REDIRECT) */
#define GW_FOLLOW_SAME_ORIGIN 2 /**< "sameOrigin": only to the same scheme, host and port
                                     (RFC 6454) */
#define GW_FOLLOW_ANY 3         /**< "any": any http(s) target, within the rules below */
/** @} */

/**
 * This call's redirect policy, field by field over the route's (else the client's): the
 * config's `redirects` object as C fields (README "Redirects"; the rules of RFC 9110 section
 * 15.4 the library applies are there). Each field that is not GW_KEEP (GW_FOLLOW_KEEP)
 * replaces that one value. Read by the config's `redirects` reader: ranges and messages as
 * the config's and policy_json's, naming the C field (`redirects.max: 51 is out of range
 * 0...50`). Fill it with GW_REDIRECT_OPTIONS_INIT or gw_redirect_options_init().
 */
typedef struct gw_redirect_options {
    uint32_t version;      /**< GW_REDIRECT_OPTIONS_VERSION; another value is GW_ERROR_VERSION */
    int32_t follow;        /**< a GW_FOLLOW_* value; another is GW_ERROR_INVALID_ARGUMENT */
    int32_t max;           /**< hops followed per attempt at most, 0...50; GW_KEEP = the
                                policy's (`max`, default 10) */
    int32_t allow_downgrade; /**< 1: follow an https URL's redirect to http (credentials
                                  dropped, the body in clear text); 0: refuse it; GW_KEEP = the
                                  policy's (default 0) */
    int32_t allow_cross_origin_body; /**< 1: follow a 307 or 308 that re-sends the body to
                                          another origin; 0: refuse it; GW_KEEP = the policy's
                                          (default 0) */
} gw_redirect_options;
#define GW_REDIRECT_OPTIONS_VERSION 1u /**< the version of gw_redirect_options this header declares */
/** gw_redirect_options keeping every value of the policy, for an initialiser. */
#define GW_REDIRECT_OPTIONS_INIT {GW_REDIRECT_OPTIONS_VERSION, GW_FOLLOW_KEEP, GW_KEEP, GW_KEEP, GW_KEEP}

/**
 * Fills *options as GW_REDIRECT_OPTIONS_INIT.
 * @param options the struct to fill.
 * @param version GW_REDIRECT_OPTIONS_VERSION.
 * @return GW_OK; GW_ERROR_VERSION for another version, GW_ERROR_INVALID_ARGUMENT for NULL.
 */
int32_t gw_redirect_options_init(gw_redirect_options *options, uint32_t version);

/**
 * This call's time limits, each over the client's (the config's `timeouts`): 0 keeps the
 * client's; otherwise 0.001...86400 seconds (the core's CallLimits: one millisecond,
 * libcurl's resolution, to a day). Another value (negative, NaN, infinite) is
 * GW_ERROR_INVALID_ARGUMENT naming the field: `timeouts.deadline: 100000.0 is out of range
 * (0 = the client's, or 0.001...86400 seconds)`. Fill it with GW_TIMEOUT_OPTIONS_INIT or
 * gw_timeout_options_init().
 */
typedef struct gw_timeout_options {
    uint32_t version; /**< GW_TIMEOUT_OPTIONS_VERSION; another value is GW_ERROR_VERSION */
    double connect;   /**< seconds to get a connection, per attempt (client default 10) */
    double attempt;   /**< seconds per attempt, connect included (client default 30); past it
                           the attempt fails with GW_KIND_TIMEOUT (or GW_KIND_CONNECT) */
    double deadline;  /**< seconds for the whole call, every attempt and delay included (client
                           default none); past it the call fails with GW_KIND_DEADLINE */
} gw_timeout_options;
#define GW_TIMEOUT_OPTIONS_VERSION 1u /**< the version of gw_timeout_options this header declares */
/** gw_timeout_options keeping the client's limits, for an initialiser. */
#define GW_TIMEOUT_OPTIONS_INIT {GW_TIMEOUT_OPTIONS_VERSION, 0, 0, 0}

/**
 * Fills *options as GW_TIMEOUT_OPTIONS_INIT.
 * @param options the struct to fill.
 * @param version GW_TIMEOUT_OPTIONS_VERSION.
 * @return GW_OK; GW_ERROR_VERSION for another version, GW_ERROR_INVALID_ARGUMENT for NULL.
 */
int32_t gw_timeout_options_init(gw_timeout_options *options, uint32_t version);

/**
 * @name What a call's body is
 * The value of gw_body.kind.
 * @{
 */
#define GW_BODY_NONE 0      /**< no body */
#define GW_BODY_JSON 1      /**< json */
#define GW_BODY_BYTES 2     /**< bytes + length, sent with content_type */
#define GW_BODY_FORM 3      /**< form_json, application/x-www-form-urlencoded */
#define GW_BODY_MULTIPART 4 /**< parts + part_count, multipart/form-data (RFC 7578), after the
                                 fields of form_json or of an object json, if one is set */
/** @} */

/**
 * A call's one body: kind says which it is and which fields are read, so that a call cannot
 * carry two. A field that kind does not read must be NULL (0): one set anyway is
 * GW_ERROR_INVALID_ARGUMENT naming it (`body.form_json: not read for GW_BODY_JSON (set
 * body.kind to the body you send)`), never ignored. Every pointer is copied during the call
 * (gw_call_async: before it returns). A body on HEAD fails the call with
 * GW_KIND_INVALID_ARGUMENT (RFC 9110 section 9.3.2); any other method sends it (GET too).
 * Fill it with GW_BODY_INIT or gw_body_init().
 */
typedef struct gw_body {
    uint32_t version;          /**< GW_BODY_VERSION; another value is GW_ERROR_VERSION */
    int32_t kind;              /**< a GW_BODY_* value; another is GW_ERROR_INVALID_ARGUMENT */
    const char *json;
    /**< GW_BODY_JSON: the JSON text, required; mapped through the request descriptor of the
         call's object_type (else the route's objectType), else sent as is.
         GW_BODY_MULTIPART: an object whose fields mapped by that descriptor come first
         (named as a form names them: "user[name]", "user[tags][]"), or NULL; it needs an
         object type. Malformed JSON is GW_ERROR_INVALID_ARGUMENT with line and column. */
    const void *bytes;         /**< GW_BODY_BYTES: length bytes (NULL only with length 0) */
    size_t length;             /**< GW_BODY_BYTES: the number of bytes (0 = an empty body), at
                                    most SIZE_MAX / 2 */
    const char *content_type;  /**< GW_BODY_BYTES: its Content-Type, e.g. "image/png"; NULL =
                                    "application/octet-stream"; a "Content-Type" of
                                    headers_json or of the config wins over both */
    const char *form_json;
    /**< GW_BODY_FORM: the fields, required, as a JSON object in order: values strings,
         numbers (their JSON text), booleans or arrays of them (the name repeated,
         `ids=1&ids=2`), encoded as the WHATWG URL standard's form serializer (space "+",
         every byte outside RFC 3986's unreserved set "%XX"). GW_BODY_MULTIPART: fields sent
         first as text parts, or NULL (at most one of form_json and json). */
    const gw_part *parts;      /**< GW_BODY_MULTIPART: part_count parts in order (gw_part); libcurl
                                    writes the Content-Type ("multipart/form-data;
                                    boundary=..."): one of headers_json or the config is not sent */
    size_t part_count;         /**< GW_BODY_MULTIPART: the number of parts, at most SIZE_MAX / 2
                                    (more than 0 with parts NULL is GW_ERROR_INVALID_ARGUMENT) */
} gw_body;
#define GW_BODY_VERSION 1u /**< the version of gw_body this header declares */
/** gw_body with no body, for an initialiser. */
#define GW_BODY_INIT {GW_BODY_VERSION, GW_BODY_NONE, NULL, NULL, 0, NULL, NULL, NULL, 0}

/**
 * Fills *body as GW_BODY_INIT.
 * @param body the struct to fill.
 * @param version GW_BODY_VERSION.
 * @return GW_OK; GW_ERROR_VERSION for another version, GW_ERROR_INVALID_ARGUMENT for NULL.
 */
int32_t gw_body_init(gw_body *body, uint32_t version);

/**
 * Where the body of a 2xx response goes instead of the result: a file (path) or a consumer
 * (on_chunk), at most one (else GW_ERROR_INVALID_ARGUMENT); neither keeps it in the result.
 *
 * path: written to a temporary file in the same folder (".NAME.PID-RANDOM.part") and renamed
 * onto the path when the call succeeds (not fsync'd), removed when it fails: the path appears
 * (or is replaced) only then, whole. A folder that takes no new file fails the call before
 * anything is sent (GW_KIND_INVALID_ARGUMENT naming the path). A replaced file keeps its
 * permission bits; a new one gets 0666 less the umask. A retry after a partial 200 body
 * resumes it with Range and If-Range (RFC 9110 sections 14.2 and 13.1.5) when that response
 * had a strong ETag or a Last-Modified at least a second before its Date, and no content
 * coding: a 200 starts the file again, a 206 is appended only when it continues the file
 * exactly (same validator, Content-Range from the file's end to the declared length, exactly
 * those bytes); any other 206 drops the partial file and fails the attempt
 * (GW_KIND_PROTOCOL), which the retry policy may send again from byte 0. Without a validator
 * a retry starts the file again.
 *
 * on_chunk: the body in chunks (gw_chunk_fn). A call whose consumer took a chunk is never
 * retried (its chunks cannot be taken back): the attempt's failure ends it. Back-pressure:
 * return GW_CHUNK_PAUSE and call gw_call_resume_body() (a call started with gw_call_async)
 * when ready.
 *
 * Either way bodies of other statuses (a 5xx that is retried, a 4xx) are kept in the result
 * as without it, within maxResponseBytes, and mapped; a streamed body is not mapped
 * (gw_result_body is empty; "bytes_received" of gw_result_attempts_json counts it).
 * maxResponseBytes does not limit it: max_bytes does. Fill it with GW_DOWNLOAD_OPTIONS_INIT
 * or gw_download_options_init().
 */
typedef struct gw_download_options {
    uint32_t version;          /**< GW_DOWNLOAD_OPTIONS_VERSION; another value is GW_ERROR_VERSION */
    const char *path;          /**< the file's path (copied during the call), or NULL */
    gw_chunk_fn on_chunk;      /**< the consumer, or NULL */
    void *on_chunk_user_data;  /**< passed to on_chunk */
    int64_t max_bytes;         /**< the largest streamed body accepted, in bytes (past it:
                                    GW_KIND_RESPONSE_TOO_LARGE); 0 = no limit; negative is
                                    GW_ERROR_INVALID_ARGUMENT */
} gw_download_options;
#define GW_DOWNLOAD_OPTIONS_VERSION 1u /**< the version of gw_download_options this header declares */
/** gw_download_options keeping the body in the result, for an initialiser. */
#define GW_DOWNLOAD_OPTIONS_INIT {GW_DOWNLOAD_OPTIONS_VERSION, NULL, NULL, NULL, 0}

/**
 * Fills *options as GW_DOWNLOAD_OPTIONS_INIT.
 * @param options the struct to fill.
 * @param version GW_DOWNLOAD_OPTIONS_VERSION.
 * @return GW_OK; GW_ERROR_VERSION for another version, GW_ERROR_INVALID_ARGUMENT for NULL.
 */
int32_t gw_download_options_init(gw_download_options *options, uint32_t version);

/**
 * The version 1-4 layout of gw_call_options. Deprecated: the 0.x flat layout, read when
 * version <= 4, kept for programs written against it (and the Python binding). New code uses
 * gw_call_options (version 5 and later), whose nested structs type what policy_json carried as text.
 *
 * A program that uses these fields through the name gw_call_options keeps compiling by
 * defining GW_USE_CALL_OPTIONS_V4 before including this header: gw_call_options,
 * GW_CALL_OPTIONS_VERSION and GW_CALL_OPTIONS_INIT then name this layout, version 4 and its
 * initialiser (the functions read the version first, so both layouts reach the same entry
 * points). Without it, give gw_call a `(const gw_call_options *)&options` of this type.
 *
 * Out-of-range numbers, an unknown method and invalid header fields are
 * GW_ERROR_INVALID_ARGUMENT naming the field.
 */
typedef struct gw_call_options_v4 {
    uint32_t version;          /**< GW_CALL_OPTIONS_VERSION_4 (or _3, _2 or _1) */
    const char *method;        /**< as gw_call_options.method */
    const char *path;          /**< as gw_call_options.path */
    const char *route;         /**< as gw_call_options.route */
    const char *params_json;   /**< as gw_call_options.params_json */
    const char *headers_json;  /**< as gw_call_options.headers_json */
    const char *body_json;     /**< as gw_body.json of GW_BODY_JSON, or NULL */
    const char *object_type;   /**< as gw_call_options.object_type */
    int32_t max_retries;       /**< retries after the first attempt, 0...100; -1 = keep the
                                    count; anything else is an error. The retry policy is the
                                    route's, else the client's, with policy_json's "retry" fields
                                    laid over it; max_retries >= 0 then replaces only its count
                                    (over policy_json's "retry.maxRetries" too). Every request on
                                    the wire is an attempt: libcurl's own re-send on a kept-alive
                                    connection that died is refused (GW_KIND_NETWORK, sent), and
                                    the policy decides whether to send it again */
    double attempt_timeout;    /**< as gw_timeout_options.attempt (0 = the client's) */
    double deadline;           /**< as gw_timeout_options.deadline (0 = the client's) */
    gw_retry_test_fn retry_test; /**< as gw_retry_options.test */
    void *retry_test_user_data;  /**< passed to retry_test */
    const char *policy_json;
    /**< version >= 2: this call's policies, as the gateway config's keys, or NULL:
         `{"retry": {...}, "retryBudget": {...} | false, "circuitBreaker": {...} | false,
         "rateLimit": {...} | false, "redirects": {"follow": "none" | "sameOrigin" | "any", "max": 0...50,
         "allowDowngrade": bool, "allowCrossOriginBody": bool} | false, "maxResponseBytes": n}`:
         what gw_retry_options, gw_retry_budget_options, gw_circuit_breaker_options,
         gw_rate_limit_options, gw_redirect_options and gw_call_options.max_response_bytes set, read by the same
         readers. A bad value is GW_ERROR_INVALID_ARGUMENT naming the field
         ("policy_json.redirects.max: ..."). Copied during the call. */
    const void *body;          /**< version >= 3: as gw_body.bytes of GW_BODY_BYTES. At most one of
                                    body_json, body and form_json may be set (else
                                    GW_ERROR_INVALID_ARGUMENT naming them) */
    size_t body_length;        /**< version >= 3: as gw_body.length */
    const char *content_type;  /**< version >= 3: as gw_body.content_type */
    const char *form_json;     /**< version >= 3: as gw_body.form_json of GW_BODY_FORM */
    const gw_part *parts;      /**< version >= 4: as gw_body.parts of GW_BODY_MULTIPART, after
                                    form_json's fields or body_json's mapped object; with body
                                    or a body_json of no object type GW_ERROR_INVALID_ARGUMENT */
    size_t part_count;         /**< version >= 4: as gw_body.part_count */
    gw_progress_fn on_progress; /**< version >= 4: as gw_call_options.on_progress */
    void *on_progress_user_data; /**< version >= 4: passed to on_progress */
    const char *download_path; /**< version >= 4: as gw_download_options.path */
    gw_chunk_fn on_chunk;      /**< version >= 4: as gw_download_options.on_chunk */
    void *on_chunk_user_data;  /**< version >= 4: passed to on_chunk */
    int64_t download_max_bytes; /**< version >= 4: as gw_download_options.max_bytes */
} gw_call_options_v4;
#define GW_CALL_OPTIONS_VERSION_4 4u /**< still accepted: the gw_call_options_v4 layout */
#define GW_CALL_OPTIONS_VERSION_3 3u /**< still accepted: a gw_call_options_v4 that ends at form_json */
#define GW_CALL_OPTIONS_VERSION_2 2u /**< still accepted: a gw_call_options_v4 that ends at policy_json */
#define GW_CALL_OPTIONS_VERSION_1 1u /**< still accepted: a gw_call_options_v4 that ends at
                                          retry_test_user_data */
/** gw_call_options_v4 with its defaults (max_retries -1), for an initialiser. */
#define GW_CALL_OPTIONS_V4_INIT {GW_CALL_OPTIONS_VERSION_4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, -1, 0, 0, \
                                 NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0}

#ifdef GW_USE_CALL_OPTIONS_V4
typedef gw_call_options_v4 gw_call_options; /**< the 0.x flat layout, by request */
#define GW_CALL_OPTIONS_VERSION GW_CALL_OPTIONS_VERSION_4 /**< version 4, by request */
#define GW_CALL_OPTIONS_INIT GW_CALL_OPTIONS_V4_INIT      /**< version 4's, by request */
#else
/**
 * One call: what it sends (target, parameters, headers, body), and how it is carried out
 * (the retry, retry budget, circuit breaker, rate limit, redirect and time policies laid
 * over the route's and client's, the response size limit, where a body goes, progress, the
 * trace parent). Either route (+ params_json) or path (+ method).
 *
 * Each nested struct has its version and its own initialiser; GW_CALL_OPTIONS_INIT and
 * gw_call_options_init() fill them all. JSON stays JSON only where it is a payload
 * (params_json, headers_json, body.json, body.form_json). Out-of-range numbers, an unknown
 * method and invalid header fields are GW_ERROR_INVALID_ARGUMENT naming the field
 * (`retry.max_retries: ...`, `timeouts.deadline: ...`).
 */
typedef struct gw_call_options {
    uint32_t version;          /**< GW_CALL_OPTIONS_VERSION (7; 6 ends at tracestate, 5 at
                                    on_progress_user_data); 1...4 are gw_call_options_v4 */
    const char *method;        /**< "GET", "POST", ... (case-insensitive; RFC 9110 section 9);
                                    NULL = "GET"; ignored with a route */
    const char *path;          /**< relative to the base URL, e.g. "/users/:id"; ignored with a
                                    route. NULL with object_type: the route of that type and
                                    method */
    const char *route;         /**< a route name of the gateway config, or NULL */
    const char *object_type;   /**< map body.json through this type's request descriptor; NULL =
                                    the route's objectType if it has one, else body.json is sent
                                    as is */
    const char *params_json;   /**< JSON object of path (":name") and query parameters, or NULL:
                                    values are strings, numbers (their JSON text) or booleans
                                    (true/false); an array of them is a query parameter of
                                    several values, written in the config's "arrayParameters"
                                    style (ids=1&ids=2 by default) */
    const char *headers_json;  /**< JSON object {"Name": "value"} (values: strings, numbers or
                                    booleans; names tokens, values without CR/LF/NUL), or NULL */
    gw_body body;              /**< the body, GW_BODY_NONE by default */
    gw_retry_options retry;    /**< the retry policy's fields to replace; every request on the
                                    wire is an attempt: libcurl's own re-send on a kept-alive
                                    connection that died is refused (GW_KIND_NETWORK, sent), and
                                    the policy decides whether to send it again */
    gw_retry_budget_options retry_budget;       /**< the retry budget, kept by default */
    gw_circuit_breaker_options circuit_breaker; /**< the circuit breaker, kept by default */
    gw_redirect_options redirects;              /**< the redirect policy's fields to replace */
    gw_timeout_options timeouts;                /**< the time limits to replace */
    int64_t max_response_bytes;
    /**< the largest decoded body accepted, in bytes, 1...2^62; 0 = the route's, else the
         config's `maxResponseBytes` (default 64 MiB): past it the transfer is aborted and the
         call fails with GW_KIND_RESPONSE_TOO_LARGE. Read by the config's reader (message
         `max_response_bytes: -1 is out of range 1...4611686018427387904`). */
    gw_download_options download; /**< where a 2xx body goes instead of the result */
    gw_progress_fn on_progress;   /**< sees each attempt's upload and download progress
                                       (gw_progress_fn), or NULL (the default) for none */
    void *on_progress_user_data;  /**< passed to on_progress */
    gw_rate_limit_options rate_limit; /**< version >= 6: the rate limit, kept by default */
    const char *traceparent;
    /**< version >= 6: the parent of the call's spans, a W3C Trace Context Level 1
         `traceparent` value (`00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`, lower
         case, section 3.2), or NULL: the call's span is its child and each attempt sends a
         `traceparent` of its own span under it (the sampled flag honoured), or the value as
         given when telemetry is off (docs/telemetry.md). One the specification calls
         invalid (upper case, all-zero ids, version ff) is GW_ERROR_INVALID_ARGUMENT naming
         the field. Copied during the call. */
    const char *tracestate;
    /**< version >= 6: the parent's `tracestate` (W3C Trace Context section 3.3), sent as
         given with every attempt, or NULL; printable ASCII only (else
         GW_ERROR_INVALID_ARGUMENT), and only with traceparent. Copied during the call. */
    const char *policy_json;
    /**< version >= 7: the policies as the gateway config's keys in JSON text, or NULL (the
         default): the keys and readers of gw_call_options_v4.policy_json, for a binding whose
         policies are JSON-shaped already (the Python one's `policy=` dict). Read first; the
         typed structs (retry, retry_budget, circuit_breaker, rate_limit, redirects,
         max_response_bytes) are then laid over it field by field, so `retry.max_retries`
         replaces only the count of a "retry" given here. A bad value is
         GW_ERROR_INVALID_ARGUMENT naming the field ("policy_json.retry.maxRetries: ...").
         Copied during the call. */
} gw_call_options;
#define GW_CALL_OPTIONS_VERSION 7u /**< the version of gw_call_options this header declares */
#define GW_CALL_OPTIONS_VERSION_6 6u /**< still accepted: a gw_call_options that ends at
                                          tracestate */
#define GW_CALL_OPTIONS_VERSION_5 5u /**< still accepted: a gw_call_options that ends at
                                          on_progress_user_data */
/** gw_call_options with its defaults (every policy kept, no body), for an initialiser. */
#define GW_CALL_OPTIONS_INIT {GW_CALL_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, GW_BODY_INIT, \
                              GW_RETRY_OPTIONS_INIT, GW_RETRY_BUDGET_OPTIONS_INIT, \
                              GW_CIRCUIT_BREAKER_OPTIONS_INIT, GW_REDIRECT_OPTIONS_INIT, \
                              GW_TIMEOUT_OPTIONS_INIT, 0, GW_DOWNLOAD_OPTIONS_INIT, NULL, NULL, \
                              GW_RATE_LIMIT_OPTIONS_INIT, NULL, NULL, NULL}
#endif

/**
 * Fills *options with defaults: for GW_CALL_OPTIONS_VERSION as GW_CALL_OPTIONS_INIT (every
 * nested struct filled by its own initialiser), for 6 the same up to tracestate, for 5 up to
 * on_progress_user_data; for 1...4 the gw_call_options_v4 layout (max_retries -1, everything
 * else empty), written only up to that version's last field.
 * @param options the struct to fill (a gw_call_options_v4 for versions 1...4).
 * @param version 1...7.
 * @return GW_OK; GW_ERROR_VERSION for another version, GW_ERROR_INVALID_ARGUMENT for NULL.
 */
int32_t gw_call_options_init(gw_call_options *options, uint32_t version);

/** @} */

/**
 * @defgroup gw_call Calls
 * @brief Sending a call: blocking, or started with a completion and cancelled by its handle.
 *
 * A call started with a completion queue instead is in @ref gw_queue.
 * @{
 */

/**
 * Sends a call and blocks until it completes.
 *
 * Any thread but the loop's.
 * @param client the client.
 * @param options the call; read during the call.
 * @param out_result receives the result in every case but an argument error (free it with
 *        gw_result_free); NULL with GW_ERROR_WOULD_DEADLOCK.
 * @return GW_OK on success, GW_ERROR_CALL_FAILED when the call failed (see the result),
 *         GW_ERROR_WOULD_DEADLOCK when called on the client's event-loop thread (nothing sent,
 *         *out_result NULL), GW_ERROR_INVALID_ARGUMENT for NULL or malformed JSON options.
 */
int32_t gw_call(gw_client *client, const gw_call_options *options, gw_result **out_result);

/**
 * Receives a finished call's result.
 *
 * Runs exactly once per call, on the client's event-loop thread.
 * @param result the result, which it owns: free it with gw_result_free().
 * @param user_data as given to gw_call_async.
 */
typedef void (*gw_completion_fn)(gw_result *result, void *user_data);

/**
 * Starts a call and returns at once.
 *
 * Any thread.
 * @param client the client.
 * @param options the call; read before this returns.
 * @param completion required (NULL is GW_ERROR_INVALID_ARGUMENT); runs exactly once when this
 *        returns GW_OK (also when the call cannot be built, e.g. an unknown route: then with
 *        GW_KIND_INVALID_ARGUMENT); it never runs when this returns an error.
 * @param user_data passed to completion.
 * @param out_call if not NULL, receives a handle for gw_call_cancel(), which the caller frees
 *        with gw_call_handle_free() (before or after completion).
 * @return GW_OK, or GW_ERROR_INVALID_ARGUMENT.
 */
int32_t gw_call_async(gw_client *client, const gw_call_options *options, gw_completion_fn completion,
                      void *user_data, gw_call_handle **out_call);

/**
 * Cancels a started call: the attempt in flight or the retry delay stops at once and the
 * completion runs with GW_KIND_CANCELLED (unless the call had finished). Returns at once.
 * @param call the handle from gw_call_async or gw_call_async_queued.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for NULL.
 */
int32_t gw_call_cancel(gw_call_handle *call);

/**
 * Lets a call whose on_chunk consumer answered GW_CHUNK_PAUSE take bytes again: the
 * consumer gets the chunk it refused, then the rest, on the event-loop thread. Returns at
 * once; nothing when the call is not paused or has finished.
 *
 * Any thread.
 * @param call the handle from gw_call_async or gw_call_async_queued.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for NULL.
 */
int32_t gw_call_resume_body(gw_call_handle *call);

/**
 * Frees a call handle (does not cancel the call).
 * @param call the handle; NULL is ignored.
 */
void gw_call_handle_free(gw_call_handle *call);

/** @} */

/**
 * @defgroup gw_result Results
 * @brief The outcome of one call: status, failure, body, headers, mapped objects, attempts.
 *
 * Every const char * stays valid until gw_result_free. Any thread may read a result. With a
 * NULL result, numbers are 0, strings NULL (the kind name "none"), and nothing crashes.
 * @{
 */

/**
 * Whether the call succeeded.
 * @param result the result.
 * @return 1 when the call succeeded, 0 when it failed (or result is NULL).
 */
int32_t gw_result_ok(const gw_result *result);

/**
 * The final HTTP status.
 * @param result the result.
 * @return the status, 0 when no response arrived.
 */
int32_t gw_result_status(const gw_result *result);

#define GW_CACHE_NETWORK 0     /**< gw_result_cache: the response came from the network (or the call failed) */
#define GW_CACHE_HIT 1         /**< gw_result_cache: a fresh stored response; no request was sent, no attempt */
#define GW_CACHE_REVALIDATED 2 /**< gw_result_cache: a stored response the server confirmed with a 304 */

/**
 * Where a successful call's response came from: the client's HTTP cache (the gateway
 * config's "cache", RFC 9111) or the network. A hit has no attempt; a revalidated response's
 * last attempt has status 304 while gw_result_status gives the stored status. Either is
 * mapped as the stored response was.
 *
 * Any thread.
 * @param result the result.
 * @return GW_CACHE_HIT, GW_CACHE_REVALIDATED, or GW_CACHE_NETWORK (also for a failed call
 *         and NULL).
 */
int32_t gw_result_cache(const gw_result *result);

/**
 * Why the call failed.
 * @param result the result.
 * @return GW_KIND_NONE on success, else a GW_KIND_* value.
 */
int32_t gw_result_error_kind(const gw_result *result);

/**
 * The name of the failure kind.
 * @param result the result.
 * @return "none", "connect", "http_status", ...; static storage.
 */
const char *gw_result_error_kind_name(const gw_result *result);

/**
 * A message for people. Never contains credentials.
 * @param result the result.
 * @return the message ("" on success).
 */
const char *gw_result_error_message(const gw_result *result);

/**
 * The method sent.
 * @param result the result.
 * @return e.g. "GET".
 */
const char *gw_result_method(const gw_result *result);

/**
 * The path sent, relative to the base URL, with its query; secret query values redacted
 * (see "Secrets" in @ref gw_conventions).
 * @param result the result.
 * @return the path.
 */
const char *gw_result_path(const gw_result *result);

/**
 * The absolute URL a success's final response came from: the call's URL, or after redirects
 * the last hop's (requests' and httpx's Response.url); secret query values and userinfo
 * redacted as in gw_result_path.
 * @param result the result.
 * @return the URL (owned by the result, valid until gw_result_free), or NULL for a failure or
 *         a NULL result.
 */
const char *gw_result_url(const gw_result *result);

/**
 * The final response body, decoded from its Content-Encoding (gzip, ...).
 *
 * Not NUL-terminated: use the length. Exactly as received otherwise: a body that no
 * descriptor maps is not parsed or checked, so invalid JSON on a 2xx without a descriptor is
 * GW_OK here (with a matching descriptor it is GW_KIND_MAPPING).
 * @param result the result.
 * @param out_length receives its length in bytes (may be NULL); 0 without a response or with
 *        an empty body.
 * @return the body; NULL without a response or with an empty body.
 */
const uint8_t *gw_result_body(const gw_result *result, size_t *out_length);

/**
 * The first value of a response header.
 * @param result the result.
 * @param name the header name (case-insensitive).
 * @return the value, or NULL.
 */
const char *gw_result_header(const gw_result *result, const char *name);

/**
 * Every response header field in received order.
 * @param result the result.
 * @return a JSON array of [name, value] pairs ("[]" without a response).
 */
const char *gw_result_headers_json(const gw_result *result);

/**
 * The mapped objects as JSON text: an object keyed by descriptor key path ("" for the root).
 * @param result the result.
 * @return the JSON text; NULL when no descriptor matched (or the body was empty), "{}" when
 *         descriptors matched but found nothing at their key paths.
 */
const char *gw_result_mapped_json(const gw_result *result);

/**
 * The error objects the error descriptors mapped.
 * @param result the result.
 * @return a JSON array, or NULL.
 */
const char *gw_result_error_objects_json(const gw_result *result);

/**
 * When a call refused by its rate limit (GW_KIND_RATE_LIMITED) could go out: the seconds until
 * the limit frees a slot, or until the Retry-After pause of its host or route ends.
 * @param result the result (NULL is accepted).
 * @return seconds (> 0) for a rate_limited failure; 0 for any other result or NULL.
 */
double gw_result_retry_after(const gw_result *result);

/**
 * Whether a decision of the call's circuit breaker or rate limit shared through the gateway
 * config's "sharedState" (an attempt's admission, or the recording of its outcome) was made
 * in process because the store was failing: an error, or no answer within its "timeout"
 * (docs/fleet.md, "When Redis fails"). The call was still limited and guarded, by this
 * client's own counts only.
 *
 * Any thread.
 * @param result the result of a successful or failed call (NULL is accepted).
 * @return 1 when a shared decision was made in process; 0 otherwise, without "sharedState",
 *         and for NULL.
 */
int32_t gw_result_shared_state_local(const gw_result *result);

/**
 * The attempt history.
 *
 * A JSON array of {"attempt", "start", "duration", "status", "error", "curl_code",
 * "message", "timings": {"dns", "connect", "tls", "first_byte", "total", "queued"}, "bytes_sent",
 * "bytes_received" (decoded body bytes), "delay", "decision", "redirects": [{"status",
 * "url"}]}; times as "Times in JSON" below: "start" counts from the call's start, "delay" is
 * the wait before the next attempt (null after the last). "redirects": the hops the attempt
 * followed, in order: each redirect's status and the URL it led to, redacted (no userinfo,
 * secret query values masked); the attempt's status is the last response's, its timings and
 * bytes_sent sum the hops'. "queued": how long the attempt waited for a connection (the
 * config's "maxConnectionsPerHost" and "maxConnections", or an HTTP/2 connection to share)
 * before libcurl started it; "total" includes it, the phases before "total" count from its end.
 *
 * Redirects are followed by the library (never by libcurl) as the config's "redirects" says:
 * up to 10 hops; credentials and secret query parameters dropped on a change of scheme, host
 * or port; https to http and a body re-sent to another origin refused (GW_KIND_REDIRECT).
 *
 * @par Times in JSON
 * Every time in the documents about attempts, timings and events (gw_result_attempts_json,
 * gw_event_json, gw_client_metrics_json) is in seconds, as a JSON number with at most 11
 * significant digits ("%.11g", exponent without "+" or leading zeros: 0.25, 0.001234,
 * 6.72e-6, 86399.999999): whole microseconds stay exact up to a day (libcurl measures in
 * microseconds); finer digits are rounding noise. Absent times are null. Mapped objects,
 * error objects and metadata are user data and keep every double's 17 digits.
 * @param result the result.
 * @return the JSON text.
 */
const char *gw_result_attempts_json(const gw_result *result);

/**
 * The number of attempts made.
 * @param result the result.
 * @return the count; 0 when the call failed before sending.
 */
int32_t gw_result_attempt_count(const gw_result *result);

/**
 * What most readers of a result need, in one call (the rest through the gw_result_*
 * functions), filled by gw_result_read.
 *
 * gw_result_read and the getters gw_result_ok, _status, _error_kind, _attempt_count and _body
 * read the same fields, so they always agree. Prefer gw_result_read where a result is read
 * for several of them, as bindings do (one call instead of five); the getters are for
 * convenience.
 */
typedef struct gw_result_fields {
    uint32_t version;       /**< GW_RESULT_FIELDS_VERSION, set by the caller */
    int32_t ok;             /**< gw_result_ok */
    int32_t status;         /**< gw_result_status */
    int32_t error_kind;     /**< gw_result_error_kind */
    int32_t attempt_count;  /**< gw_result_attempt_count */
    const uint8_t *body;    /**< gw_result_body: NULL without a response or with an empty body;
                                 points into the result (as gw_result_body): valid until
                                 gw_result_free */
    size_t body_length;     /**< the body's length in bytes */
} gw_result_fields;
#define GW_RESULT_FIELDS_VERSION 1u /**< the version of gw_result_fields this header declares */

/**
 * Fills *out_fields from `result`.
 * @param result the result.
 * @param out_fields the struct to fill, whose version the caller set.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for a NULL result or out_fields, GW_ERROR_VERSION
 *         for an unknown version.
 */
int32_t gw_result_read(const gw_result *result, gw_result_fields *out_fields);

/**
 * @name Mapped objects by key path
 * Mapped objects are keyed by the descriptors' key paths as written ("" = the whole body;
 * key_path NULL means ""). Every const char * stays valid until gw_result_free; NULL on a
 * failed call or a NULL result.
 * @{
 */

/**
 * The JSON text mapped at key_path (one object, or an array of them).
 * @param result the result.
 * @param key_path a descriptor's key path as written; NULL means "".
 * @return the JSON text, or NULL when nothing was mapped there.
 */
const char *gw_result_mapped_at(const gw_result *result, const char *key_path);

/**
 * The first object mapped at key_path (the first element of an array) as JSON.
 * @param result the result.
 * @param key_path a descriptor's key path as written; NULL means "".
 * @return the JSON text, or NULL.
 */
const char *gw_result_mapped_first(const gw_result *result, const char *key_path);

/**
 * The number of objects mapped at key_path.
 * @param result the result.
 * @param key_path a descriptor's key path as written; NULL counts over every key path.
 * @return an array's length, 1 for one object, 0 for none.
 */
int64_t gw_result_mapped_count(const gw_result *result, const char *key_path);

/**
 * @name Value types
 * gw_value.type: the type of a value read by gw_result_mapped_value.
 * @{
 */
#define GW_VALUE_MISSING 0 /**< nothing there: no such key path, index or field */
#define GW_VALUE_NULL 1    /**< JSON null */
#define GW_VALUE_BOOL 2    /**< true or false: gw_value.boolean */
#define GW_VALUE_INTEGER 3 /**< an integer: gw_value.integer (and gw_value.real, converted) */
#define GW_VALUE_REAL 4    /**< a number with a fraction or exponent: gw_value.real */
#define GW_VALUE_STRING 5  /**< a string: gw_value.string and gw_value.length */
#define GW_VALUE_OBJECT 6  /**< an object: gw_value.count members */
#define GW_VALUE_ARRAY 7   /**< an array: gw_value.count elements */
#define GW_VALUE_END 8     /**< gw_result_mapped_walk only: the end of the object or array begun last */
/** @} */

/**
 * One value of the mapped objects, read in place by gw_result_mapped_value: no JSON text
 * is written or parsed. Only the fields of its type are set; the others are 0 or NULL.
 */
typedef struct gw_value {
    int32_t type;        /**< a GW_VALUE_* type */
    int32_t boolean;     /**< GW_VALUE_BOOL: 1 for true, 0 for false */
    int64_t integer;     /**< GW_VALUE_INTEGER: the value (Jansson's json_int_t, 64 bits) */
    double real;         /**< GW_VALUE_REAL: the value; GW_VALUE_INTEGER: the integer as a double */
    const char *string;  /**< GW_VALUE_STRING: UTF-8, NUL-terminated, owned by the result:
                              valid until gw_result_free (may contain NUL: use length) */
    size_t length;       /**< GW_VALUE_STRING: the string's length in bytes */
    size_t count;        /**< GW_VALUE_ARRAY: elements; GW_VALUE_OBJECT: members */
} gw_value;

/**
 * Reads one value of the mapped objects in place, with its type, without JSON text: the
 * typed way for a C caller to read every mapped object (gw_result_mapped_json and friends
 * write text the caller would parse again).
 *
 * The value is found in three steps, each optional:
 *   1. key_path: a descriptor's key path as written (NULL or "" = the whole body), as for
 *      gw_result_mapped_at;
 *   2. index: the index-th object mapped there (0 ... gw_result_mapped_count - 1); an
 *      array's element, or, where one object was mapped, index 0 is that object. -1 takes
 *      what is mapped there as it is (the array, or the one object);
 *   3. field: a key path inside that object, in the mapping's destination names, segments
 *      separated by '.' ("home.cityName"); a segment of digits indexes an array
 *      ("posts.0.title"). NULL or "" = the object itself.
 *
 * Example, every user of a response mapped at "" (the root):
 * @code
 * int64_t n = gw_result_mapped_count(result, "");
 * for (int64_t i = 0; i < n; i++) {
 *     gw_value id, city;
 *     gw_result_mapped_value(result, "", i, "userId", &id);
 *     gw_result_mapped_value(result, "", i, "home.cityName", &city);
 *     if (id.type == GW_VALUE_INTEGER && city.type == GW_VALUE_STRING) use(id.integer, city.string);
 * }
 * @endcode
 *
 * Thread: any; many threads may read one result at once (nothing is written). No memory is
 * allocated: a read is a hash lookup for key_path and one per field segment (about 1,000
 * instructions for a two-segment field, most of them Jansson's hashing).
 * @param result the result (a failed call, or one no descriptor matched, has nothing
 *        mapped: every read is GW_VALUE_MISSING).
 * @param key_path the descriptor's key path; NULL means "".
 * @param index the object's index at key_path, or -1 for the value there as it is.
 * @param field the key path inside the object; NULL or "" for the object itself.
 * @param out_value filled in; its type is GW_VALUE_MISSING when nothing is there.
 * @return GW_OK (found or GW_VALUE_MISSING); GW_ERROR_INVALID_ARGUMENT for a NULL result or
 *         out_value, or an index below -1 (gw_last_error_message says which).
 */
int32_t gw_result_mapped_value(const gw_result *result, const char *key_path, int64_t index, const char *field,
                               gw_value *out_value);

/**
 * Told each value of the mapped objects by gw_result_mapped_walk, depth first and in order
 * (an object's members in the order they were mapped). An object or an array is told with
 * its count, then its members or elements, then a value of type GW_VALUE_END; so a caller
 * rebuilds the tree with a stack, in its own types, without JSON text.
 * @param user_data as given to gw_result_mapped_walk.
 * @param key the member's name when the value is an object's member, else NULL (the root,
 *        an array's element, GW_VALUE_END): UTF-8, owned by the result, valid until
 *        gw_result_free; may contain NUL, so use key_length.
 * @param key_length the name's length in bytes (0 without one).
 * @param value the value, as gw_result_mapped_value reads it (its string lives as long as the
 *        result); the struct itself is valid during this call only.
 * @return 0 to go on; anything else stops the walk (gw_result_mapped_walk returns GW_DONE).
 */
typedef int32_t (*gw_value_visitor)(void *user_data, const char *key, size_t key_length, const gw_value *value);

/**
 * Walks every mapped object in place: the tree gw_result_mapped_json would write as text
 * ({"<key path>": object or array, ...}), told value by value to `visitor`, on the calling
 * thread, before this returns. Nothing is allocated and nothing is parsed: a binding builds
 * its own objects from it (the Python binding's extension makes `Result.mapped` so).
 *
 * Thread: any; many threads may walk one result at once. The visitor must not free the
 * result.
 * @param result the result (nothing mapped: the visitor is never called).
 * @param visitor told each value; returns 0 to go on.
 * @param user_data handed to the visitor.
 * @return GW_OK when the walk ended (or nothing was mapped); GW_DONE when the visitor
 *         stopped it; GW_ERROR_INVALID_ARGUMENT for a NULL result or visitor.
 */
int32_t gw_result_mapped_walk(const gw_result *result, gw_value_visitor visitor, void *user_data);

/**
 * The response metadata the mappings saw as `"@metadata"`, as JSON: {"method", "url" (after
 * redirects, the last hop's), "path", "status", "headers": {lower-case name: value},
 * "pathParameters", "query"}, redacted (the url without userinfo; secret header and query
 * values `"<redacted>"`).
 * @param result the result.
 * @return the JSON text; NULL when no descriptor matched.
 */
const char *gw_result_metadata_json(const gw_result *result);

/** @} */

/**
 * Frees a result.
 * @param result the result; NULL is ignored; a result already freed is undefined behaviour
 *        (see "Handles" in @ref gw_conventions).
 */
void gw_result_free(gw_result *result);

/** @} */

/**
 * @defgroup gw_attempts Attempts
 * @brief One attempt's outcome, inside a callback (a retry test, a plugin's did_receive).
 *
 * The gw_attempt is borrowed: valid during the callback. A NULL attempt gives 0 (NULL for
 * the header, GW_KIND_NONE for the kind).
 * @{
 */

/**
 * The attempt's number.
 * @param attempt the borrowed attempt.
 * @return 1 for the first attempt.
 */
int32_t gw_attempt_number(const gw_attempt *attempt);

/**
 * The attempt's HTTP status.
 * @param attempt the borrowed attempt.
 * @return the status; 0 when no response arrived.
 */
int32_t gw_attempt_status(const gw_attempt *attempt);

/**
 * Why the attempt failed.
 * @param attempt the borrowed attempt.
 * @return a GW_KIND_* value; GW_KIND_NONE when a response arrived.
 */
int32_t gw_attempt_error_kind(const gw_attempt *attempt);

/**
 * The time since the call started.
 * @param attempt the borrowed attempt.
 * @return seconds since the call started.
 */
double gw_attempt_elapsed(const gw_attempt *attempt);

/**
 * A response header of this attempt.
 * @param attempt the borrowed attempt.
 * @param name the header name (case-insensitive).
 * @return the value, or NULL. Valid during the callback.
 */
const char *gw_attempt_header(const gw_attempt *attempt, const char *name);

/** @} */

/**
 * @defgroup gw_observers Failure observers
 * @brief Called once for every failed call of a client, optionally filtered.
 * @{
 */

/**
 * Called exactly once for every failed call of the client, after its last attempt and
 * before the call's own completion.
 *
 * Runs on the client's event-loop thread.
 * @param failure the failed call's result, borrowed: valid only during the callback.
 * @param user_data as given when the observer was added.
 */
typedef void (*gw_failure_observer_fn)(const gw_result *failure, void *user_data);

/**
 * Registers an observer of every failure: an alias of gw_client_add_failure_observer_filtered
 * with a NULL filter_json (one implementation; same errors and ids).
 *
 * `destroy` (may be NULL) is called once with user_data: on the removing thread by
 * gw_client_remove_failure_observer, or when the client is freed, on its loop thread after
 * the last call completed. The same holds for event monitors.
 * @param client the client.
 * @param observer the observer (required).
 * @param user_data passed to observer and destroy.
 * @param destroy called once with user_data, or NULL.
 * @param out_id if not NULL, receives an id for removal.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for a NULL client or observer.
 */
int32_t gw_client_add_failure_observer(gw_client *client, gw_failure_observer_fn observer, void *user_data,
                                       void (*destroy)(void *user_data), uint64_t *out_id);

/**
 * Registers an observer of the failures a filter matches (the implementation of both
 * gw_client_add_failure_observer functions).
 *
 * filter_json (NULL = every failure): {"statusCodes": 401 | "4xx" | ["401", "5xx"],
 * "noResponse": true (status 0 because the server could not be reached or did not answer:
 * kinds connect, dns, tls, timeout, network, deadline; a call cancelled by the caller or by
 * gw_client_free, or refused before sending (invalid_argument, plugin, circuit_open), does
 * not match it), "kinds": ["connect", "auth", ...], "pathPattern": "/users/:id"}; every
 * criterion given must match. Otherwise as gw_client_add_failure_observer (remove with
 * gw_client_remove_failure_observer).
 * @param client the client.
 * @param filter_json the filter as JSON text, or NULL.
 * @param observer the observer (required).
 * @param user_data passed to observer and destroy.
 * @param destroy called once with user_data, or NULL.
 * @param out_id if not NULL, receives an id for removal.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for a NULL client or observer or a bad filter (the
 *         message names the field).
 */
int32_t gw_client_add_failure_observer_filtered(gw_client *client, const char *filter_json,
                                                gw_failure_observer_fn observer, void *user_data,
                                                void (*destroy)(void *user_data), uint64_t *out_id);

/**
 * Removes an observer.
 * @param client the client.
 * @param id the id from gw_client_add_failure_observer(_filtered).
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT when the id is not registered (or client is NULL).
 */
int32_t gw_client_remove_failure_observer(gw_client *client, uint64_t id);

/** @} */

/**
 * @defgroup gw_events Event monitors
 * @brief Every step of every call of a client, with timings.
 *
 * Every call produces: call_started, per attempt attempt_started and attempt_finished (with
 * timings), retry_scheduled before each delay, call_finished once. A client with
 * "sharedState" also tells of its store, once per outage: shared_state_degraded when the
 * store has failed repeatedly (its breakers and rate limits decide in process), then
 * shared_state_recovered; their JSON is {"event", "call_id": 0, "message"}, of no call
 * (docs/fleet.md). Monitors run on the
 * event-loop thread; the gw_event is borrowed (valid during the callback). A NULL event gives
 * 0 or NULL.
 * @{
 */

/**
 * Receives one event of a call.
 * @param event the event, borrowed: valid during the callback.
 * @param user_data as given to gw_client_add_event_monitor.
 */
typedef void (*gw_event_fn)(const gw_event *event, void *user_data);

/**
 * Registers an event monitor. `destroy` is called as for gw_client_add_failure_observer.
 * @param client the client.
 * @param monitor the monitor (required).
 * @param user_data passed to monitor and destroy.
 * @param destroy called once with user_data (on removal, or when the client is freed), or
 *        NULL.
 * @param out_id if not NULL, receives an id for removal.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for a NULL client or monitor.
 */
int32_t gw_client_add_event_monitor(gw_client *client, gw_event_fn monitor, void *user_data,
                                    void (*destroy)(void *user_data), uint64_t *out_id);

/**
 * Removes an event monitor.
 * @param client the client.
 * @param id the id from gw_client_add_event_monitor.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT when the id is not registered (or client is NULL).
 */
int32_t gw_client_remove_event_monitor(gw_client *client, uint64_t id);

/**
 * The event's kind.
 * @param event the borrowed event.
 * @return "call_started", "attempt_started", "attempt_finished", "retry_scheduled",
 *         "call_finished", "shared_state_degraded" or "shared_state_recovered".
 */
const char *gw_event_kind(const gw_event *event);

/**
 * The call's id.
 * @param event the borrowed event.
 * @return the same for every event of one call.
 */
uint64_t gw_event_call_id(const gw_event *event);

/**
 * The attempt's number.
 * @param event the borrowed event.
 * @return the attempt; 0 for call_started.
 */
int32_t gw_event_attempt(const gw_event *event);

/**
 * The HTTP status.
 * @param event the borrowed event.
 * @return the status; 0 when none.
 */
int32_t gw_event_status(const gw_event *event);

/**
 * The event as JSON: {"event", "call_id", "method", "path", "attempt", "elapsed", "status",
 * "error", "delay", "timings": {"dns", "connect", "tls", "first_byte", "total", "queued"} or null,
 * "redirects": the finished attempt's hops as in gw_result_attempts_json, or null}; times as
 * "Times in JSON" (gw_result_attempts_json).
 * @param event the borrowed event.
 * @return the JSON text. Valid during the callback.
 */
const char *gw_event_json(const gw_event *event);

/** @} */

/**
 * @defgroup gw_spans Span exporters
 * @brief Each finished call's trace spans as values, for a tracing SDK of the caller's.
 *
 * A call gives one span for the call and one client span per attempt, by the OpenTelemetry
 * HTTP client semantic conventions (docs/telemetry.md lists every name, attribute and event).
 * Registering an exporter turns the client's telemetry on, as the config's `telemetry` key
 * does: every attempt then sends a W3C `traceparent` of its own span. Only sampled calls are
 * exported.
 * @{
 */

/**
 * Receives the spans of one finished call, on the client's event-loop thread, once per call
 * when it ends (cancelled and deadline-exceeded calls included); it must not block.
 * @param spans_json a JSON array: the call's span first, then each attempt's in order, each
 *        an OTLP `Span` in the OTLP specification's JSON encoding: `traceId` (32 lower-case
 *        hex), `spanId` (16), `parentSpanId` (absent for a root), `traceState` (when the
 *        parent had one), `flags`, `name`, `kind` (1 internal, 3 client), `startTimeUnixNano`
 *        and `endTimeUnixNano` (decimal strings, nanoseconds since the Unix epoch),
 *        `attributes` (`[{"key", "value": {"stringValue" | "intValue" (a decimal string) |
 *        "doubleValue" | "boolValue"}}]`), `events` (`[{"timeUnixNano", "name",
 *        "attributes"}]`), `status` (`{"code": 0 unset | 2 error, "message"?}`). UTF-8,
 *        NUL-terminated, borrowed: valid during the callback only.
 * @param length the text's bytes, without the NUL.
 * @param user_data as given to gw_client_add_span_exporter.
 */
typedef void (*gw_span_export_fn)(const char *spans_json, size_t length, void *user_data);

/**
 * Registers a span exporter. `destroy` is called as for gw_client_add_failure_observer.
 * @param client the client.
 * @param exporter the exporter (required).
 * @param user_data passed to exporter and destroy.
 * @param destroy called once with user_data (on removal, or when the client is freed), or
 *        NULL.
 * @param out_id if not NULL, receives an id for removal.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for a NULL client or exporter.
 */
int32_t gw_client_add_span_exporter(gw_client *client, gw_span_export_fn exporter, void *user_data,
                                    void (*destroy)(void *user_data), uint64_t *out_id);

/**
 * Removes a span exporter; calls that end afterwards are not given to it.
 * @param client the client.
 * @param id the id from gw_client_add_span_exporter.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT when the id is not registered (or client is NULL).
 */
int32_t gw_client_remove_span_exporter(gw_client *client, uint64_t id);

/** @} */

/**
 * @defgroup gw_measurements Telemetry metrics
 * @brief The client's OpenTelemetry metrics: each measurement as it is recorded, for a
 * metrics SDK of the caller's, and the cumulative values as an OTLP request.
 *
 * The instruments are the OpenTelemetry HTTP client semantic conventions'
 * (`http.client.request.duration`, `http.client.active_requests`) and Gatewire's own
 * (`gatewire.client.*`); docs/telemetry.md lists every name, unit, kind and attribute. They
 * are recorded while telemetry is on (the config's `telemetry`, OTEL_EXPORTER_OTLP_ENDPOINT,
 * or a span or measurement exporter registered), for every call: metrics are not sampled.
 * Not to be confused with gw_client_metrics_json, the "metrics" plugin's counters.
 * @{
 */

/**
 * Receives a batch of measurements, on the client's event-loop thread: at the end of each
 * call, what every call recorded since the previous batch (that call's, and those of calls
 * still running), and at a circuit breaker's state change. It must not block.
 * @param measurements_json a JSON array, in the order recorded, of
 *        `{"name", "value", "attributes": {key: value}}`: `name` the instrument's (e.g.
 *        `http.client.request.duration`); `value` a real in seconds for the histograms
 *        (`http.client.request.duration`, `gatewire.client.rate_limit.wait`,
 *        `gatewire.client.queue.wait`: record it), else an integer to add to the counter
 *        (1, or -1 for the up-down counter `http.client.active_requests`); attribute values
 *        JSON strings, integers or booleans (e.g. `"server.port": 8080`). UTF-8,
 *        NUL-terminated, borrowed: valid during the callback only.
 * @param length the text's bytes, without the NUL.
 * @param user_data as given to gw_client_add_measurement_exporter.
 */
typedef void (*gw_measurement_export_fn)(const char *measurements_json, size_t length, void *user_data);

/**
 * Registers a measurement exporter: it gets the measurements of every call that starts
 * afterwards (and of the calls then running). Registering one turns the client's telemetry
 * on, as a span exporter does. `destroy` is called as for gw_client_add_failure_observer.
 * @param client the client.
 * @param exporter the exporter (required).
 * @param user_data passed to exporter and destroy.
 * @param destroy called once with user_data (on removal, or when the client is freed), or
 *        NULL.
 * @param out_id if not NULL, receives an id for removal.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for a NULL client or exporter.
 */
int32_t gw_client_add_measurement_exporter(gw_client *client, gw_measurement_export_fn exporter,
                                           void *user_data, void (*destroy)(void *user_data),
                                           uint64_t *out_id);

/**
 * Removes a measurement exporter; batches delivered afterwards are not given to it.
 * @param client the client.
 * @param id the id from gw_client_add_measurement_exporter.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT when the id is not registered (or client is NULL).
 */
int32_t gw_client_remove_measurement_exporter(gw_client *client, uint64_t id);

/**
 * The client's metrics now, cumulative since the client was made, as the OTLP/HTTP JSON
 * `ExportMetricsServiceRequest` (what the OTLP exporter POSTs to `<otlpEndpoint>/v1/metrics`
 * with `"otlpProtocol": "http/json"`; the OTLP specification's JSON encoding: `resourceMetrics[0].scopeMetrics[0].metrics`,
 * each with `name`, `unit`, `description` and a `sum` (`asInt` as a decimal string,
 * `isMonotonic`) or a `histogram` (`count` and `bucketCounts` as decimal strings, `sum`,
 * `min`, `max` in seconds, `explicitBounds`), `aggregationTemporality` 2, cumulative). An
 * instrument with no data point yet is absent. Any thread: from another than the client's
 * event-loop thread it waits for the loop to read the values (as long as a callback running
 * on the loop takes).
 * @param client the client.
 * @param out_json receives the JSON text, freed with gw_string_free; NULL on an error.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT (and *out_json NULL) when the client's telemetry
 *         is off, or for a NULL argument.
 */
int32_t gw_client_telemetry_metrics_json(gw_client *client, char **out_json);

/** @} */

/**
 * @defgroup gw_queue Completion queues
 * @brief Many finished results at once, without a callback.
 *
 * For bindings that pay for every callback into their runtime (Python's GIL): calls started
 * with a queue instead of a completion function push their results into it from the loop
 * thread (no callback runs), and one gw_queue_wait, which blocks without calling back,
 * returns many finished results at once. A consumer that has its own event loop instead sets
 * a notify function (gw_queue_set_notify), called once per batch, and then takes the batch
 * with a gw_queue_wait that does not wait. Any thread may use a queue; several clients may
 * share one.
 * @{
 */

/**
 * Creates an empty queue.
 * @param out_queue on GW_OK, the queue; free it with gw_queue_free.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for NULL.
 */
int32_t gw_queue_new(gw_queue **out_queue);

/**
 * As gw_call_async, but the finished call's result (owned by the caller once taken) is
 * pushed into `queue` with `tag` instead of running a completion: exactly once when this
 * returns GW_OK, never when it returns an error.
 *
 * The client and the queue may be freed before the call finishes (the call is then cancelled
 * or its result freed with the queue). Any thread.
 * @param client the client.
 * @param options the call, as for gw_call_async.
 * @param queue where the result goes.
 * @param tag given back with the result by gw_queue_wait.
 * @param out_call may be NULL (as for gw_call_async).
 * @return GW_OK, or GW_ERROR_INVALID_ARGUMENT.
 */
int32_t gw_call_async_queued(gw_client *client, const gw_call_options *options, gw_queue *queue,
                             uint64_t tag, gw_call_handle **out_call);

/**
 * Takes up to `capacity` finished results, oldest first.
 *
 * Blocks while the queue is empty: at most timeout_seconds. A poll with timeout 0 is allowed
 * on an event-loop thread.
 * @param queue the queue.
 * @param timeout_seconds 0 = do not block; > 0 = at most that long (a wait longer than 10^9
 *        seconds, about 31 years, is cut to that); < 0 or INFINITY = until a result
 *        arrives; NaN is GW_ERROR_INVALID_ARGUMENT.
 * @param out_results out_results[i] for i < *out_count; the caller frees each with
 *        gw_result_free.
 * @param out_tags out_tags[i] for i < *out_count; may be NULL.
 * @param capacity the length of out_results (and out_tags), 1...SIZE_MAX / 2.
 * @param out_count the number taken; 0 when the time ran out.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for NULL queue, out_results or out_count, a
 *         capacity out of range, or a NaN timeout; GW_ERROR_WOULD_DEADLOCK (nothing taken) when called with a non-zero
 *         timeout on any client's event-loop thread (in a completion, observer, monitor or
 *         plugin hook), where waiting would stall the loop (as gw_call refuses).
 */
int32_t gw_queue_wait(gw_queue *queue, double timeout_seconds, gw_result **out_results, uint64_t *out_tags,
                      size_t capacity, size_t *out_count);

/**
 * Told that results are waiting: called on the thread that pushed a result (a client's
 * event-loop thread) when the result lands in a queue that held none, so a consumer that
 * takes every waiting result (gw_queue_wait with timeout 0, until it returns fewer than its
 * capacity) is told once per batch. It must not block or call back into the library beyond
 * what a completion may (see @ref gw_conventions); it typically wakes the consumer's own
 * event loop (Python asyncio: one `call_soon_threadsafe` per batch).
 * @param queue the queue.
 * @param user_data as given to gw_queue_set_notify.
 */
typedef void (*gw_queue_notify_fn)(gw_queue *queue, void *user_data);

/**
 * Sets the queue's notify function, replacing any earlier one. Set it before starting the
 * calls whose results it should announce (results pushed before it was set are announced by
 * nothing: take them with gw_queue_wait). Any thread.
 * @param queue the queue.
 * @param notify the function, or NULL for none.
 * @param user_data passed to every call of notify; it must stay valid until the queue is
 *        freed and the last call started on it has finished.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for a NULL queue.
 */
int32_t gw_queue_set_notify(gw_queue *queue, gw_queue_notify_fn notify, void *user_data);

/**
 * The number of finished results waiting in the queue.
 * @param queue the queue.
 * @return the number; 0 for NULL.
 */
size_t gw_queue_count(const gw_queue *queue);

/**
 * Drops the caller's reference. Calls still running keep the queue alive until they finish;
 * every result not taken with gw_queue_wait (now or pushed later) is freed.
 *
 * No thread may be in gw_queue_wait on it.
 * @param queue the queue; NULL is ignored.
 */
void gw_queue_free(gw_queue *queue);

/** @} */

/**
 * @defgroup gw_paginator Paginators
 * @brief A lazy walk over the pages of a route.
 * @{
 */

/**
 * A paginator over the pages of a call whose route has "pagination" in the gateway config
 * (page numbers, Link rel="next", or a cursor; see the README).
 *
 * No call is made yet.
 * @param client the client.
 * @param options as for gw_call (route required for the pagination; params_json and
 *        headers_json apply to every page).
 * @param out_paginator on GW_OK, free it with gw_paginator_free (before the client).
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT (NULL, malformed options, no pagination).
 */
int32_t gw_paginator_new(gw_client *client, const gw_call_options *options, gw_paginator **out_paginator);

/**
 * Fetches the next page, blocking.
 *
 * Each page is one call: the options' retries, attempt timeout and deadline apply per page.
 * One thread at a time per paginator.
 * @param paginator the paginator.
 * @param out_result the page, or the failure, or NULL (see the return value).
 * @return GW_OK: *out_result is the page (free it). GW_ERROR_CALL_FAILED: *out_result is the
 *         failure (free it) and the walk ends. GW_DONE: the walk has ended (last page,
 *         maxPages, or an earlier failure); *out_result is NULL. GW_ERROR_WOULD_DEADLOCK on
 *         the client's event-loop thread; GW_ERROR_INVALID_ARGUMENT for NULL arguments.
 */
int32_t gw_paginator_next(gw_paginator *paginator, gw_result **out_result);

/**
 * The number of pages fetched so far (failed ones included).
 * @param paginator the paginator.
 * @return the number; 0 for NULL.
 */
int32_t gw_paginator_page_count(const gw_paginator *paginator);

/**
 * Frees a paginator.
 * @param paginator the paginator; NULL is ignored.
 */
void gw_paginator_free(gw_paginator *paginator);

/** @} */

/**
 * @defgroup gw_credentials Refreshing credentials
 * @brief A token sent on every attempt and refreshed on 401.
 *
 * A token sent as `header: prefix token` (default `"Authorization: Bearer <token>"`) on every
 * attempt that does not set the header itself. On a 401 the call asks the credential:
 *  - signed with an older token than the current one: replayed at once;
 *  - else one refresh (single flight: every 401 for the same token waits for it); on a new
 *    token each waiting call replays once (inside the same call: its attempts show the 401
 *    and the replay); on failure each fails with GW_KIND_AUTH, status 401 (observers see it);
 *  - a call replays at most once (credentials that keep failing end as the 401), and at most
 *    max_refreshes refreshes run per refresh_interval seconds (past that the 401 stands).
 * @{
 */

/**
 * Asked for a new token.
 *
 * The refresh function is called on the event-loop thread and must not block there: it may
 * hand `refresh` to another thread. Whoever holds it calls gw_refresh_complete exactly once.
 * @param refresh the refresh to answer with gw_refresh_complete.
 * @param current_token the token the 401 answered, or NULL; valid during the call.
 * @param user_data gw_credential_options.user_data.
 */
typedef void (*gw_refresh_fn)(gw_refresh *refresh, const char *current_token, void *user_data);

/** How to build a credential. */
typedef struct gw_credential_options {
    uint32_t version;        /**< GW_CREDENTIAL_OPTIONS_VERSION */
    const char *token;       /**< the initial token, or NULL (unsigned until the first refresh) */
    const char *header;      /**< NULL = the default, "Authorization" */
    const char *prefix;      /**< written before the token; NULL = the default, "Bearer " */
    int32_t max_refreshes;   /**< refresh budget, >= 0; 0 = the default, 5 */
    double refresh_interval; /**< seconds of the budget's window, >= 0; 0 = the default, 30;
                                  INFINITY = max_refreshes for the credential's life; NaN
                                  is GW_ERROR_INVALID_ARGUMENT */
    gw_refresh_fn refresh;   /**< required */
    void *user_data;         /**< passed to refresh and destroy */
    void (*destroy)(void *user_data); /**< when the credential is freed (last reference); may be
                                           NULL */
} gw_credential_options;
#define GW_CREDENTIAL_OPTIONS_VERSION 1u /**< the version of gw_credential_options this header
                                              declares */
/** gw_credential_options with its defaults (as NULL and 0), for an initialiser. */
#define GW_CREDENTIAL_OPTIONS_INIT {GW_CREDENTIAL_OPTIONS_VERSION, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL}

/**
 * Fills *options with the defaults written out: header "Authorization", prefix "Bearer ",
 * max_refreshes 5, refresh_interval 30, everything else NULL. The library's one copy of them
 * (Swift's RefreshingCredential defaults), for bindings that show or keep them.
 * @param options the struct to fill; header and prefix point to static storage (never free).
 * @param version GW_CREDENTIAL_OPTIONS_VERSION.
 * @return GW_OK; GW_ERROR_VERSION for another version, GW_ERROR_INVALID_ARGUMENT for NULL.
 */
int32_t gw_credential_options_init(gw_credential_options *options, uint32_t version);

/**
 * Creates a credential; set it as gw_client_options.credential (the client keeps a
 * reference) and free yours with gw_credential_free.
 * @param options how to build it.
 * @param out_credential on GW_OK, the credential.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT when header is not a token (or a framing field)
 *         or prefix + token has a control character other than HTAB (RFC 9110 sections 5.1
 *         and 5.5), a negative max_refreshes or refresh_interval, a NaN refresh_interval, or
 *         for NULL; GW_ERROR_VERSION for another version.
 */
int32_t gw_credential_new(const gw_credential_options *options, gw_credential **out_credential);

/**
 * How many refreshes have been started.
 * @param credential the credential.
 * @return the number; 0 for NULL.
 */
int32_t gw_credential_refresh_count(const gw_credential *credential);

/**
 * Answers a refresh: exactly once per gw_refresh, from any thread, now or later; the handle
 * is freed by this call.
 * @param refresh the refresh handed to the gw_refresh_fn.
 * @param token the new token (copied), or NULL when it failed. A token with a control
 *        character other than HTAB (RFC 9110 section 5.5) counts as a failed refresh.
 * @return GW_OK; GW_ERROR_INVALID_ARGUMENT for such a token (the handle is freed all the
 *         same) or a NULL refresh.
 */
int32_t gw_refresh_complete(gw_refresh *refresh, const char *token);

/**
 * Drops the caller's reference to a credential.
 * @param credential the credential; NULL is ignored.
 */
void gw_credential_free(gw_credential *credential);

/** @} */

/**
 * @addtogroup gw_plugins
 * @{
 * @name A shared-object plugin's calls through gw_plugin_api
 * Defined when the including file defines GW_PLUGIN_USE_API first: each function a hook may
 * call (the members of gw_plugin_api) becomes a call through the table the entry received,
 * so the plugin's code reads the same as with -lGatewire. A gw_* function outside the table
 * stays a plain call, which fails to load (undefined symbol) without libGatewire.
 * @{
 */
#ifdef GW_PLUGIN_USE_API
#if defined(__GNUC__)
#define GW_PLUGIN_API_HIDDEN __attribute__((visibility("hidden")))
#else
#define GW_PLUGIN_API_HIDDEN
#endif
/** The host's table, set by GW_PLUGIN_API_INIT; hidden, so each plugin has its own. */
extern GW_PLUGIN_API_HIDDEN const gw_plugin_api *gw_plugin_api_table;
/** Defines gw_plugin_api_table: once per shared object, at file scope. */
#define GW_PLUGIN_API_DEFINE GW_PLUGIN_API_HIDDEN const gw_plugin_api *gw_plugin_api_table = NULL;
/** In the entry, first: keeps `api`, or returns GW_ERROR_VERSION from the entry when the host's
    table is older than this header's (the host reports "failed with status 5"). */
#define GW_PLUGIN_API_INIT(api)                                              \
    do {                                                                     \
        if ((api) == NULL || (api)->version < GW_PLUGIN_API_VERSION)         \
            return GW_ERROR_VERSION;                                         \
        gw_plugin_api_table = (api);                                         \
    } while (0)
#define gw_last_error_message gw_plugin_api_table->last_error_message
#define gw_request_method gw_plugin_api_table->request_method
#define gw_request_url gw_plugin_api_table->request_url
#define gw_request_header gw_plugin_api_table->request_header
#define gw_request_set_header gw_plugin_api_table->request_set_header
#define gw_request_set_url gw_plugin_api_table->request_set_url
#define gw_request_fail gw_plugin_api_table->request_fail
#define gw_attempt_number gw_plugin_api_table->attempt_number
#define gw_attempt_status gw_plugin_api_table->attempt_status
#define gw_attempt_error_kind gw_plugin_api_table->attempt_error_kind
#define gw_attempt_elapsed gw_plugin_api_table->attempt_elapsed
#define gw_attempt_header gw_plugin_api_table->attempt_header
#define gw_process_result gw_plugin_api_table->process_result
#define gw_process_fail gw_plugin_api_table->process_fail
#define gw_result_ok gw_plugin_api_table->result_ok
#define gw_result_status gw_plugin_api_table->result_status
#define gw_result_error_kind gw_plugin_api_table->result_error_kind
#define gw_result_error_message gw_plugin_api_table->result_error_message
#define gw_result_header gw_plugin_api_table->result_header
#define gw_result_body gw_plugin_api_table->result_body
#define gw_result_mapped_json gw_plugin_api_table->result_mapped_json
#define gw_process_fail_with_errors gw_plugin_api_table->process_fail_with_errors
#endif /* GW_PLUGIN_USE_API */
/** @} */
/** @} */

#ifdef __cplusplus
}
#endif

#endif /* GATEWIRE_H */
