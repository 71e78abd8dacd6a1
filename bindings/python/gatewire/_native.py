"""The C ABI of ``libGatewire.so`` as ctypes declarations: the one place that knows it.

Everything in ``include/gatewire.h`` is declared here (constants, structs, callback types,
every function's ``argtypes``/``restype``); the rest of the package only calls through
:data:`lib` and :func:`check`.

Library lookup, first hit wins:

1. the ``GATEWIRE_LIB`` environment variable (an explicit path, or a name for the dynamic
   loader); when it is set, it is the only candidate (a failure to load it is reported,
   never worked around);
2. ``libGatewire.so`` next to this package: the library a wheel bundles (``make wheel``);
3. only when the package is imported from the repository's ``bindings/python``
   (:func:`gatewire._repository.repository_root`): the repository's builds
   ``.build/lib/libGatewire.so`` (``make build``) and ``build/lib/libGatewire.so`` (CMake),
   the most recently built first, so a stale build never shadows a fresh one;
4. ``libGatewire.so.MAJOR`` (the SONAME) through the dynamic loader: ``LD_LIBRARY_PATH``,
   the ``ldconfig`` cache, the system's library folders (an installed
   ``cmake --install build``), but never the current directory.

When none loads, :class:`OSError` lists each candidate with why it failed and how to
provide the library.

The library is loaded lazily, on the first use of :data:`lib`. It is loaded with
:class:`ctypes.CDLL` (never ``PyDLL``), so the GIL is released during every foreign call:
a blocking ``gw_call`` lets other Python threads, and the library's own callbacks, run.

Ownership conventions of the header, as they appear here:

* a returned ``const char *`` is owned by the library: ``restype = c_char_p`` (ctypes copies
  it into ``bytes`` at once, while it is still valid); the body (``gw_result_body``, which
  may contain NUL bytes) is ``c_void_p`` and copied with :func:`copy_bytes` and its
  ``size_t`` length (never ``string_at``, whose length is a C ``int``);
* a returned ``char *`` belongs to the caller: it arrives through a ``c_void_p`` out-parameter
  and is read with :func:`take_string` (``string_at`` + ``gw_string_free``);
* opaque handles are ``c_void_p`` (the default ``c_int`` restype would truncate them).
"""

from __future__ import annotations

import ctypes
import os
import threading
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char_p,
    c_double,
    c_int32,
    c_int64,
    c_size_t,
    c_uint32,
    c_uint64,
    c_void_p,
)
from typing import Any, Union

from ._repository import repository_root
from ._version import MAJOR

__all__ = [
    "lib",
    "load",
    "library_path",
    "last_error_message",
    "take_string",
    "copy_bytes",
    "decode",
    "gw_plugin",
    "gw_plugin_api",
    "gw_client_options",
    "gw_call_options",
    "gw_call_options_v4",
    "gw_body",
    "gw_retry_options",
    "gw_retry_budget_options",
    "gw_circuit_breaker_options",
    "gw_redirect_options",
    "gw_rate_limit_options",
    "gw_timeout_options",
    "gw_download_options",
    "gw_result_fields",
    "gw_value",
    "PREPARE_FN",
    "DID_RECEIVE_FN",
    "DESTROY_FN",
    "FAILURE_OBSERVER_FN",
    "RETRY_TEST_FN",
    "PROGRESS_FN",
    "gw_progress",
    "COMPLETION_FN",
]

# ---- Status codes returned by functions ------------------------------------------------
GW_OK = 0
GW_ERROR_INVALID_ARGUMENT = 1
GW_ERROR_CONFIG = 2
GW_ERROR_CALL_FAILED = 3
GW_ERROR_WOULD_DEADLOCK = 4
GW_ERROR_VERSION = 5
GW_DONE = 100  # gw_paginator_next: the walk has ended

# ---- Where a response came from (gw_result_cache) --------------------------------------
GW_CACHE_NETWORK = 0
GW_CACHE_HIT = 1
GW_CACHE_REVALIDATED = 2

# ---- Why a call failed (gw_result_error_kind) ------------------------------------------
GW_KIND_NONE = 0
GW_KIND_CONNECT = 1
GW_KIND_DNS = 2
GW_KIND_TLS = 3
GW_KIND_TIMEOUT = 4
GW_KIND_NETWORK = 5
GW_KIND_HTTP_STATUS = 6
GW_KIND_MAPPING = 7
GW_KIND_CANCELLED = 8
GW_KIND_DEADLINE = 9
GW_KIND_INVALID_ARGUMENT = 10
GW_KIND_PLUGIN = 11
GW_KIND_AUTH = 12
GW_KIND_CIRCUIT_OPEN = 13
GW_KIND_PROTOCOL = 14
GW_KIND_RESPONSE_TOO_LARGE = 15
GW_KIND_REDIRECT = 16
GW_KIND_RATE_LIMITED = 17

# ---- What a retry test answers ---------------------------------------------------------
GW_RETRY_USE_POLICY = 0
GW_RETRY_RETRY = 1
GW_RETRY_STOP = 2

# ---- What a multipart part carries (gw_part.kind) --------------------------------------
GW_PART_FIELD = 0
GW_PART_FILE = 1
GW_PART_BYTES = 2

# ---- Struct versions --------------------------------------------------------------------
GW_PLUGIN_VERSION = 3
GW_CLIENT_OPTIONS_VERSION = 2
GW_CREDENTIAL_OPTIONS_VERSION = 1
GW_CALL_OPTIONS_VERSION_4 = 4
GW_CALL_OPTIONS_VERSION = 7

# ---- gw_body.kind -------------------------------------------------------------------------
GW_BODY_NONE = 0
GW_BODY_JSON = 1
GW_BODY_BYTES = 2
GW_BODY_FORM = 3
GW_BODY_MULTIPART = 4

# ---- Callback types (every pointer argument arrives as an int or None) ------------------
#: int32_t (*prepare)(gw_request *request, void *user_data)
PREPARE_FN = CFUNCTYPE(c_int32, c_void_p, c_void_p)
#: void (*did_receive)(const gw_attempt *attempt, void *user_data)
DID_RECEIVE_FN = CFUNCTYPE(None, c_void_p, c_void_p)
#: void (*destroy)(void *user_data)
DESTROY_FN = CFUNCTYPE(None, c_void_p)
#: void (*gw_failure_observer_fn)(const gw_result *failure, void *user_data)
FAILURE_OBSERVER_FN = CFUNCTYPE(None, c_void_p, c_void_p)
#: int32_t (*gw_retry_test_fn)(const gw_attempt *attempt, double *delay, void *user_data)
RETRY_TEST_FN = CFUNCTYPE(c_int32, c_void_p, POINTER(c_double), c_void_p)
#: void (*gw_completion_fn)(gw_result *result, void *user_data)
COMPLETION_FN = CFUNCTYPE(None, c_void_p, c_void_p)
#: void (*will_send)(const gw_request *request, void *user_data)
WILL_SEND_FN = CFUNCTYPE(None, c_void_p, c_void_p)
#: void (*process)(gw_process *process, void *user_data)
PROCESS_FN = CFUNCTYPE(None, c_void_p, c_void_p)
#: void (*gw_event_fn)(const gw_event *event, void *user_data)
EVENT_FN = CFUNCTYPE(None, c_void_p, c_void_p)
#: void (*exporter)(const char *spans_json, size_t length, void *user_data)
SPAN_EXPORT_FN = CFUNCTYPE(None, c_void_p, c_size_t, c_void_p)
#: void (*gw_measurement_export_fn)(const char *measurements_json, size_t length, void *user_data)
MEASUREMENT_EXPORT_FN = CFUNCTYPE(None, c_void_p, c_size_t, c_void_p)
#: void (*gw_log_fn)(const char *line, void *user_data)
LOG_FN = CFUNCTYPE(None, c_char_p, c_void_p)
#: void (*gw_queue_notify_fn)(gw_queue *queue, void *user_data)
QUEUE_NOTIFY_FN = CFUNCTYPE(None, c_void_p, c_void_p)
#: void (*gw_refresh_fn)(gw_refresh *refresh, const char *current_token, void *user_data)
REFRESH_FN = CFUNCTYPE(None, c_void_p, c_char_p, c_void_p)
#: int32_t (*gw_chunk_fn)(const uint8_t *data, size_t length, void *user_data): a GW_CHUNK_* answer
CHUNK_FN = CFUNCTYPE(c_int32, c_void_p, c_size_t, c_void_p)
GW_CHUNK_CONTINUE, GW_CHUNK_PAUSE, GW_CHUNK_STOP = 0, 1, 2


# ---- Structs ----------------------------------------------------------------------------
class gw_plugin(Structure):  # noqa: N801 - the C name
    """``struct gw_plugin``: hooks called for every attempt (copied at client creation)."""

    _fields_ = [
        ("version", c_uint32),
        ("name", c_char_p),
        ("prepare", PREPARE_FN),
        ("did_receive", DID_RECEIVE_FN),
        ("destroy", DESTROY_FN),
        ("user_data", c_void_p),
        ("will_send", WILL_SEND_FN),
        ("process", PROCESS_FN),
    ]


class gw_plugin_api(Structure):  # noqa: N801 - the C name
    """``struct gw_plugin_api``: the table of ``gw_*`` functions the library hands a shared-object
    plugin's entry (version ``GW_PLUGIN_API_VERSION``). The library fills it; the binding never
    does (a Python plugin calls the functions directly), so every member is an opaque pointer."""

    _fields_ = [("version", c_uint32)] + [
        (name, c_void_p)
        for name in ("last_error_message", "request_method", "request_url", "request_header", "request_set_header",
                     "request_set_url", "request_fail", "attempt_number", "attempt_status", "attempt_error_kind",
                     "attempt_elapsed", "attempt_header", "process_result", "process_fail", "result_ok", "result_status",
                     "result_error_kind", "result_error_message", "result_header", "result_body", "result_mapped_json",
                     "process_fail_with_errors")
    ]


class gw_client_options(Structure):  # noqa: N801 - the C name
    """``struct gw_client_options``; fill with ``gw_client_options_init`` before use."""

    _fields_ = [
        ("version", c_uint32),
        ("base_url", c_char_p),
        ("config_json", c_char_p),
        ("config_path", c_char_p),
        ("plugins", POINTER(gw_plugin)),
        ("plugin_count", c_size_t),
        ("random_seed", c_uint64),
        ("credential", c_void_p),
    ]


class gw_credential_options(Structure):  # noqa: N801 - the C name
    """``struct gw_credential_options``."""

    _fields_ = [
        ("version", c_uint32),
        ("token", c_char_p),
        ("header", c_char_p),
        ("prefix", c_char_p),
        ("max_refreshes", c_int32),
        ("refresh_interval", c_double),
        ("refresh", REFRESH_FN),
        ("user_data", c_void_p),
        ("destroy", DESTROY_FN),
    ]


class gw_part(Structure):  # noqa: N801 - the C name
    """``struct gw_part``: one part of a multipart/form-data body."""

    _fields_ = [
        ("kind", c_int32),
        ("name", c_char_p),
        ("value", c_char_p),
        ("bytes", c_void_p),
        ("length", c_size_t),
        ("path", c_char_p),
        ("filename", c_char_p),
        ("content_type", c_char_p),
    ]


class gw_progress(Structure):  # noqa: N801 - the C name
    """``struct gw_progress``: one progress report, borrowed during the callback."""

    _fields_ = [
        ("bytes_sent", c_int64),
        ("bytes_to_send", c_int64),
        ("bytes_received", c_int64),
        ("bytes_to_receive", c_int64),
        ("attempt", c_int32),
        ("is_final", c_int32),
    ]


#: void (*gw_progress_fn)(const gw_progress *progress, void *user_data)
PROGRESS_FN = CFUNCTYPE(None, POINTER(gw_progress), c_void_p)


class gw_call_options_v4(Structure):  # noqa: N801 - the C name
    """``struct gw_call_options_v4``: the flat layout of versions 1-4 (``policy_json`` carries
    the policies as the config's keys), which the binding fills; fill with
    ``gw_call_options_init(options, 4)`` before use."""

    _fields_ = [
        ("version", c_uint32),
        ("method", c_char_p),
        ("path", c_char_p),
        ("route", c_char_p),
        ("params_json", c_char_p),
        ("headers_json", c_char_p),
        ("body_json", c_char_p),
        ("object_type", c_char_p),
        ("max_retries", c_int32),
        ("attempt_timeout", c_double),
        ("deadline", c_double),
        ("retry_test", RETRY_TEST_FN),
        ("retry_test_user_data", c_void_p),
        # version 2 (resilience)
        ("policy_json", c_char_p),
        # version 3 (bodies beyond JSON)
        ("body", c_void_p),
        ("body_length", c_size_t),
        ("content_type", c_char_p),
        ("form_json", c_char_p),
        # version 4: multipart
        ("parts", POINTER(gw_part)),
        ("part_count", c_size_t),
        # version 4: progress
        ("on_progress", PROGRESS_FN),
        ("on_progress_user_data", c_void_p),
        # version 4 (streaming downloads)
        ("download_path", c_char_p),
        ("on_chunk", CHUNK_FN),
        ("on_chunk_user_data", c_void_p),
        ("download_max_bytes", ctypes.c_int64),
    ]


class gw_body(Structure):  # noqa: N801 - the C name
    """``struct gw_body``: one call's body in version 5 of ``gw_call_options``."""

    _fields_ = [
        ("version", c_uint32),
        ("kind", c_int32),
        ("json", c_char_p),
        ("bytes", c_void_p),
        ("length", c_size_t),
        ("content_type", c_char_p),
        ("form_json", c_char_p),
        ("parts", POINTER(gw_part)),
        ("part_count", c_size_t),
    ]


class gw_retry_options(Structure):  # noqa: N801 - the C name
    """``struct gw_retry_options``: a call's retry overrides (version 5)."""

    _fields_ = [
        ("version", c_uint32),
        ("max_retries", c_int32),
        ("initial_delay", c_double),
        ("multiplier", c_double),
        ("max_delay", c_double),
        ("jitter", c_int32),
        ("status_codes", POINTER(c_int32)),
        ("status_code_count", c_size_t),
        ("methods", POINTER(c_char_p)),
        ("method_count", c_size_t),
        ("max_retry_after", c_double),
        ("idempotency_key", c_int32),
        ("retry_non_idempotent", c_int32),
        ("test", RETRY_TEST_FN),
        ("test_user_data", c_void_p),
    ]


class gw_retry_budget_options(Structure):  # noqa: N801 - the C name
    """``struct gw_retry_budget_options``: a call's retry budget override (version 5)."""

    _fields_ = [("version", c_uint32), ("mode", c_int32), ("max_tokens", c_double), ("token_ratio", c_double)]


class gw_circuit_breaker_options(Structure):  # noqa: N801 - the C name
    """``struct gw_circuit_breaker_options``: a call's circuit breaker override (version 5)."""

    _fields_ = [
        ("version", c_uint32),
        ("mode", c_int32),
        ("failure_ratio", c_double),
        ("minimum_throughput", c_int32),
        ("sampling_duration", c_double),
        ("break_duration", c_double),
        ("status_codes", POINTER(c_int32)),
        ("status_code_count", c_size_t),
    ]


class gw_redirect_options(Structure):  # noqa: N801 - the C name
    """``struct gw_redirect_options``: a call's redirect overrides (version 5)."""

    _fields_ = [("version", c_uint32), ("follow", c_int32), ("max", c_int32), ("allow_downgrade", c_int32),
                ("allow_cross_origin_body", c_int32)]


class gw_timeout_options(Structure):  # noqa: N801 - the C name
    """``struct gw_timeout_options``: a call's time limits in seconds (version 5)."""

    _fields_ = [("version", c_uint32), ("connect", c_double), ("attempt", c_double), ("deadline", c_double)]


class gw_rate_limit_options(Structure):  # noqa: N801 - the C name
    """``struct gw_rate_limit_options``: a call's rate limit override (version 6)."""

    _fields_ = [
        ("version", c_uint32),
        ("mode", c_int32),
        ("requests", c_int32),
        ("per", c_double),
        ("burst", c_int32),
        ("scope", c_int32),
        ("wait", c_int32),
        ("pause_on_retry_after", c_int32),
        ("max_pause", c_double),
    ]


class gw_download_options(Structure):  # noqa: N801 - the C name
    """``struct gw_download_options``: where a call's 2xx body streams (version 5)."""

    _fields_ = [("version", c_uint32), ("path", c_char_p), ("on_chunk", CHUNK_FN), ("on_chunk_user_data", c_void_p),
                ("max_bytes", ctypes.c_int64)]


class gw_call_options(Structure):  # noqa: N801 - the C name
    """``struct gw_call_options``, version 7 (typed nested options, the trace parent,
    ``policy_json``). The
    binding fills :class:`gw_call_options_v4` and moves a call with a trace parent to this
    layout (``gatewire._tracecontext``); every header layout is checked
    (``Tests/python/test_struct_layouts.py``)."""

    _fields_ = [
        ("version", c_uint32),
        ("method", c_char_p),
        ("path", c_char_p),
        ("route", c_char_p),
        ("object_type", c_char_p),
        ("params_json", c_char_p),
        ("headers_json", c_char_p),
        ("body", gw_body),
        ("retry", gw_retry_options),
        ("retry_budget", gw_retry_budget_options),
        ("circuit_breaker", gw_circuit_breaker_options),
        ("redirects", gw_redirect_options),
        ("timeouts", gw_timeout_options),
        ("max_response_bytes", ctypes.c_int64),
        ("download", gw_download_options),
        ("on_progress", PROGRESS_FN),
        ("on_progress_user_data", c_void_p),
        ("rate_limit", gw_rate_limit_options),
        ("traceparent", c_char_p),
        ("tracestate", c_char_p),
        ("policy_json", c_char_p),
    ]


#: A call's options in either layout the binding fills.
CallOptionsStruct = Union[gw_call_options_v4, gw_call_options]


class gw_result_fields(Structure):  # noqa: N801 - the C name
    """``struct gw_result_fields``: what most readers need, from one ``gw_result_read``."""

    _fields_ = [
        ("version", c_uint32),
        ("ok", c_int32),
        ("status", c_int32),
        ("error_kind", c_int32),
        ("attempt_count", c_int32),
        ("body", c_void_p),
        ("body_length", c_size_t),
    ]


GW_RESULT_FIELDS_VERSION = 1


class gw_value(Structure):  # noqa: N801 - the C name
    """``struct gw_value``: one mapped value read in place by ``gw_result_mapped_value`` and
    told by ``gw_result_mapped_walk`` (the binding's extension builds ``Result.mapped`` with
    the walk; its ctypes path parses the JSON text instead)."""

    _fields_ = [
        ("type", c_int32),
        ("boolean", c_int32),
        ("integer", ctypes.c_int64),
        ("real", ctypes.c_double),
        ("string", c_void_p),
        ("length", c_size_t),
        ("count", c_size_t),
    ]


#: int32_t (*gw_value_visitor)(void *user_data, const char *key, size_t key_length, const gw_value *value)
VALUE_VISITOR_FN = CFUNCTYPE(c_int32, c_void_p, c_void_p, c_size_t, POINTER(gw_value))
#: gw_value.type (GW_VALUE_END: gw_result_mapped_walk's end of an object or array)
(GW_VALUE_MISSING, GW_VALUE_NULL, GW_VALUE_BOOL, GW_VALUE_INTEGER, GW_VALUE_REAL, GW_VALUE_STRING, GW_VALUE_OBJECT,
 GW_VALUE_ARRAY, GW_VALUE_END) = range(9)

_P = c_void_p  # every opaque handle: gw_client *, gw_result *, gw_call_handle *, gw_attempt *, gw_request *

# A gw_call_options of either layout (gw_call_options_v4 or gw_call_options, by byref()):
# the library reads its version first.
_CALL_OPTIONS = c_void_p

# name -> (restype, argtypes); the complete function list of include/gatewire.h.
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    # Library
    "gw_version": (c_char_p, []),
    "gw_last_error_message": (c_char_p, []),
    "gw_string_free": (None, [c_void_p]),
    # Clients
    "gw_client_options_init": (c_int32, [POINTER(gw_client_options), c_uint32]),
    "gw_client_create": (c_int32, [POINTER(gw_client_options), POINTER(c_void_p)]),
    "gw_client_new": (c_int32, [c_char_p, POINTER(c_void_p)]),
    "gw_client_new_from_config": (c_int32, [c_char_p, POINTER(c_void_p)]),
    "gw_client_free": (None, [_P]),
    "gw_config_check": (c_int32, [c_char_p, POINTER(c_void_p)]),
    "gw_config_from_openapi": (c_int32, [c_char_p, c_int32, POINTER(c_void_p), POINTER(c_void_p)]),
    # Failure observers
    "gw_client_add_failure_observer": (
        c_int32,
        [_P, FAILURE_OBSERVER_FN, c_void_p, DESTROY_FN, POINTER(c_uint64)],
    ),
    "gw_client_remove_failure_observer": (c_int32, [_P, c_uint64]),
    # Calls
    "gw_call_options_init": (c_int32, [_CALL_OPTIONS, c_uint32]),
    "gw_body_init": (c_int32, [POINTER(gw_body), c_uint32]),
    "gw_retry_options_init": (c_int32, [POINTER(gw_retry_options), c_uint32]),
    "gw_retry_budget_options_init": (c_int32, [POINTER(gw_retry_budget_options), c_uint32]),
    "gw_circuit_breaker_options_init": (c_int32, [POINTER(gw_circuit_breaker_options), c_uint32]),
    "gw_redirect_options_init": (c_int32, [POINTER(gw_redirect_options), c_uint32]),
    "gw_rate_limit_options_init": (c_int32, [POINTER(gw_rate_limit_options), c_uint32]),
    "gw_timeout_options_init": (c_int32, [POINTER(gw_timeout_options), c_uint32]),
    "gw_download_options_init": (c_int32, [POINTER(gw_download_options), c_uint32]),
    "gw_call": (c_int32, [_P, _CALL_OPTIONS, POINTER(c_void_p)]),
    "gw_call_async": (
        c_int32,
        [_P, _CALL_OPTIONS, COMPLETION_FN, c_void_p, POINTER(c_void_p)],
    ),
    "gw_call_cancel": (c_int32, [_P]),
    "gw_call_resume_body": (c_int32, [_P]),
    "gw_call_handle_free": (None, [_P]),
    # Results
    "gw_result_ok": (c_int32, [_P]),
    "gw_result_status": (c_int32, [_P]),
    "gw_result_error_kind": (c_int32, [_P]),
    "gw_result_error_kind_name": (c_char_p, [_P]),
    "gw_result_error_message": (c_char_p, [_P]),
    "gw_result_method": (c_char_p, [_P]),
    "gw_result_path": (c_char_p, [_P]),
    "gw_result_url": (c_char_p, [_P]),
    "gw_result_body": (c_void_p, [_P, POINTER(c_size_t)]),
    "gw_result_header": (c_char_p, [_P, c_char_p]),
    "gw_result_headers_json": (c_char_p, [_P]),
    "gw_result_mapped_json": (c_char_p, [_P]),
    "gw_result_error_objects_json": (c_char_p, [_P]),
    "gw_result_retry_after": (c_double, [_P]),
    "gw_result_shared_state_local": (c_int32, [_P]),
    "gw_result_attempts_json": (c_char_p, [_P]),
    "gw_result_attempt_count": (c_int32, [_P]),
    "gw_result_free": (None, [_P]),
    # Mapping results and pagination
    "gw_result_mapped_at": (c_char_p, [_P, c_char_p]),
    "gw_result_mapped_first": (c_char_p, [_P, c_char_p]),
    "gw_result_mapped_count": (ctypes.c_int64, [_P, c_char_p]),
    "gw_result_mapped_value": (c_int32, [_P, c_char_p, ctypes.c_int64, c_char_p, POINTER(gw_value)]),
    "gw_result_mapped_walk": (c_int32, [_P, VALUE_VISITOR_FN, _P]),
    "gw_result_metadata_json": (c_char_p, [_P]),
    "gw_paginator_new": (c_int32, [_P, _CALL_OPTIONS, POINTER(c_void_p)]),
    "gw_paginator_next": (c_int32, [_P, POINTER(c_void_p)]),
    "gw_paginator_page_count": (c_int32, [_P]),
    "gw_paginator_free": (None, [_P]),
    # Attempts (inside callbacks)
    "gw_attempt_number": (c_int32, [_P]),
    "gw_attempt_status": (c_int32, [_P]),
    "gw_attempt_error_kind": (c_int32, [_P]),
    "gw_attempt_elapsed": (c_double, [_P]),
    "gw_attempt_header": (c_char_p, [_P, c_char_p]),
    # Requests (inside a plugin's prepare)
    "gw_request_method": (c_char_p, [_P]),
    "gw_request_url": (c_char_p, [_P]),
    "gw_request_header": (c_char_p, [_P, c_char_p]),
    "gw_request_set_header": (c_int32, [_P, c_char_p, c_char_p]),
    "gw_request_set_url": (c_int32, [_P, c_char_p]),
    "gw_request_fail": (c_int32, [_P, c_char_p]),
    # Plugins' process, filtered observers, events, log sink, metrics, credentials
    "gw_process_result": (_P, [_P]),
    "gw_process_fail": (c_int32, [_P, c_int32, c_char_p]),
    "gw_process_fail_with_errors": (c_int32, [_P, c_int32, c_char_p, c_char_p]),
    "gw_client_add_failure_observer_filtered": (
        c_int32,
        [_P, c_char_p, FAILURE_OBSERVER_FN, c_void_p, DESTROY_FN, POINTER(c_uint64)],
    ),
    "gw_client_add_event_monitor": (c_int32, [_P, EVENT_FN, c_void_p, DESTROY_FN, POINTER(c_uint64)]),
    "gw_client_add_span_exporter": (c_int32, [_P, SPAN_EXPORT_FN, c_void_p, DESTROY_FN, POINTER(c_uint64)]),
    "gw_client_remove_span_exporter": (c_int32, [_P, c_uint64]),
    "gw_client_add_measurement_exporter": (
        c_int32,
        [_P, MEASUREMENT_EXPORT_FN, c_void_p, DESTROY_FN, POINTER(c_uint64)],
    ),
    "gw_client_remove_measurement_exporter": (c_int32, [_P, c_uint64]),
    "gw_client_telemetry_metrics_json": (c_int32, [_P, POINTER(c_void_p)]),
    "gw_client_remove_event_monitor": (c_int32, [_P, c_uint64]),
    "gw_event_kind": (c_char_p, [_P]),
    "gw_event_call_id": (c_uint64, [_P]),
    "gw_event_attempt": (c_int32, [_P]),
    "gw_event_status": (c_int32, [_P]),
    "gw_event_json": (c_char_p, [_P]),
    "gw_set_log_sink": (c_int32, [LOG_FN, c_void_p]),
    "gw_client_metrics_json": (c_int32, [_P, POINTER(c_void_p)]),
    "gw_client_cookies_json": (c_int32, [_P, POINTER(c_void_p)]),
    "gw_client_shared_state_json": (c_int32, [_P, POINTER(c_void_p)]),
    "gw_result_cache": (c_int32, [_P]),
    "gw_client_check_blocking": (c_int32, [_P]),
    "gw_credential_options_init": (c_int32, [POINTER(gw_credential_options), c_uint32]),
    "gw_credential_new": (c_int32, [POINTER(gw_credential_options), POINTER(c_void_p)]),
    "gw_credential_free": (None, [_P]),
    "gw_credential_refresh_count": (c_int32, [_P]),
    "gw_refresh_complete": (c_int32, [_P, c_char_p]),
    # Completion queues and one-call result reads
    "gw_queue_new": (c_int32, [POINTER(c_void_p)]),
    "gw_queue_free": (None, [_P]),
    "gw_call_async_queued": (c_int32, [_P, _CALL_OPTIONS, _P, c_uint64, POINTER(c_void_p)]),
    "gw_queue_wait": (
        c_int32,
        [_P, c_double, POINTER(c_void_p), POINTER(c_uint64), c_size_t, POINTER(c_size_t)],
    ),
    "gw_queue_count": (c_size_t, [_P]),
    "gw_queue_set_notify": (c_int32, [_P, QUEUE_NOTIFY_FN, c_void_p]),
    "gw_result_read": (c_int32, [_P, POINTER(gw_result_fields)]),
}

_FIX = (
    "Install a gatewire wheel, which bundles the library (make wheel; pip install --no-index "
    "--find-links dist gatewire), build it in the repository (make build, or cmake -S . -B build && "
    "cmake --build build), install it where the dynamic loader finds it (cmake --install "
    "build, then ldconfig), or set GATEWIRE_LIB to the path of libGatewire.so."
)
_FIX_EXPLICIT = (
    "GATEWIRE_LIB is the only candidate when it is set: point it at a built libGatewire.so, "
    "or unset it to use the library next to the package, the checkout's build or the "
    "dynamic loader's libGatewire.so.MAJOR."
)
_lock = threading.Lock()
_lib: ctypes.CDLL | None = None
_lib_path: str | None = None


def _built_time(path: str) -> float:
    return os.path.getmtime(path) if os.path.exists(path) else 0.0


def _candidates() -> list[str]:
    """The paths (or, last, the loader name) tried, in order (see the module docstring)."""
    explicit = os.environ.get("GATEWIRE_LIB")
    if explicit:
        return [explicit]  # an explicit choice is never second-guessed
    found = [os.path.join(os.path.dirname(os.path.realpath(__file__)), "libGatewire.so")]
    root = repository_root()
    if root is not None:
        builds = [os.path.join(root, folder, "lib", "libGatewire.so") for folder in (".build", "build")]
        found.extend(sorted(builds, key=_built_time, reverse=True))
    return [*found, f"libGatewire.so.{MAJOR}"]


def _declare(library: ctypes.CDLL) -> None:
    for name, (restype, argtypes) in _SIGNATURES.items():
        function = getattr(library, name)  # AttributeError names a symbol the library lacks
        function.restype = restype
        function.argtypes = argtypes


def load() -> ctypes.CDLL:
    """Return the loaded library, loading and declaring it on first use.

    Thread-safe; the library is loaded once per process, from the first candidate of the
    lookup order in the module docstring that loads.

    Returns:
        The :class:`ctypes.CDLL` with every function of the header declared.

    Raises:
        OSError: no candidate could be loaded; the message lists every candidate with why it
            failed (not found, or the loader's error) and how to provide the library.
        AttributeError: the library lacks a function of the header (an older build).
    """
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        errors: list[str] = []
        explicit = bool(os.environ.get("GATEWIRE_LIB"))
        for candidate in _candidates():
            is_path = os.sep in candidate
            if is_path and not explicit and not os.path.exists(candidate):
                errors.append(f"{candidate}: not found")
                continue
            try:
                library = ctypes.CDLL(candidate)
            except OSError as error:
                errors.append(f"{candidate}: {error}" if is_path else f"{candidate} (dynamic loader): {error}")
                continue
            _declare(library)
            _lib, _lib_path = library, candidate
            # From now on `_native.lib` is a plain module attribute: the PEP 562 hook below
            # (a Python call per access) only runs until the library is loaded.
            globals()["lib"] = library
            return library
        raise OSError("cannot load libGatewire.so; tried:\n  " + "\n  ".join(errors) + "\n"
                      + (_FIX_EXPLICIT if explicit else _FIX))


def library_path() -> str:
    """The path (or loader name) the library was loaded from, as tried; loads it if needed.

    Raises:
        OSError: as :func:`load`.
    """
    load()
    assert _lib_path is not None
    return _lib_path


def __getattr__(name: str) -> Any:
    # PEP 562: `_native.lib` loads on first access, so importing gatewire never fails
    # just because the library is missing (the error comes with the first real use).
    if name == "lib":
        return load()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


lib: ctypes.CDLL  # provided by __getattr__; declared for type checkers


def decode(value: bytes | None) -> str | None:
    """Decode a library string (UTF-8; invalid bytes replaced), keeping None as None."""
    return None if value is None else value.decode("utf-8", "replace")


def last_error_message() -> str:
    """``gw_last_error_message()``, decoded: the message of the most recent ``gw_`` function
    that failed on the calling thread ("" if none has). Successful calls leave it unchanged,
    so read it only right after a call that returned a ``GW_ERROR_*``."""
    return decode(load().gw_last_error_message()) or ""


# ctypes.string_at passes its length as a C int (CPython declares it (c_void_p, c_int)): a
# body of 2 GiB or more raises SystemError there, and one of 4 GiB + 5 bytes comes back as 5
# bytes. PyBytes_FromStringAndSize takes a Py_ssize_t; PYFUNCTYPE holds the GIL, as it must.
_bytes_from_pointer = ctypes.PYFUNCTYPE(ctypes.py_object, c_void_p, ctypes.c_ssize_t)(
    ("PyBytes_FromStringAndSize", ctypes.pythonapi)
)


def copy_bytes(pointer: int, length: int) -> bytes:
    """Copy ``length`` bytes (a ``size_t``, any size up to ``sys.maxsize``) from ``pointer``
    into a new ``bytes``; the memory stays the library's. Raises MemoryError when it does not fit."""
    return _bytes_from_pointer(pointer, length)  # type: ignore[no-any-return]


def take_string(pointer: int | None) -> str | None:
    """Copy a caller-owned ``char *`` into a ``str`` and release it with ``gw_string_free``."""
    if not pointer:
        return None
    try:
        return ctypes.string_at(pointer).decode("utf-8", "replace")
    finally:
        load().gw_string_free(pointer)
