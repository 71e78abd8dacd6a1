"""A call's trace parent (private): the ``traceparent=`` and ``tracestate=`` call keywords,
else the current OpenTelemetry span when ``opentelemetry-api`` is installed, and the
``gw_call_options`` version 7 that carries it to the library.

The library parses the values by the W3C Trace Context Level 1 rules (its ``TraceContext``
parser, the one the C ABI, Swift and the CLI use) and refuses an invalid one with
:class:`InvalidArgument` naming the field; every attempt then sends a ``traceparent`` of its
own span under the parent (``docs/telemetry.md``).

The binding fills the flat ``gw_call_options_v4`` for every call (its ``policy_json`` takes
the ``policy=`` dict as the config's keys); a call with a parent is moved to version 7,
whose typed structs hold the same fields and whose ``policy_json`` the same text, by
:func:`with_parent`.
"""

from __future__ import annotations

import ctypes
from typing import Any, Mapping, Optional, Tuple

from . import _exceptions, _native
from ._encoding import c_text

__all__ = ["parent", "with_parent"]

#: (traceparent, tracestate) as the NUL-terminated UTF-8 the C fields take (None: NULL).
Parent = Tuple[Optional[bytes], Optional[bytes]]

# opentelemetry.trace, imported at the first call (None: not installed). A program without
# opentelemetry-api pays one failed import per process, then one comparison per call.
_otel_trace: Any = None
_otel_looked_up = False


def _opentelemetry_trace() -> Any:
    """The ``opentelemetry.trace`` module, or None when ``opentelemetry-api`` is absent."""
    global _otel_trace, _otel_looked_up
    if not _otel_looked_up:
        module: Any = None
        try:
            from opentelemetry import trace as module
        except ImportError:
            pass
        _otel_trace, _otel_looked_up = module, True
    return _otel_trace


def ambient_parent() -> Parent | None:
    """The current OpenTelemetry span's context as a W3C ``traceparent`` (version ``00``,
    lower-case hex, its sampled flag) and its ``tracestate`` header text, or None when
    ``opentelemetry-api`` is absent or no valid span is current (``INVALID_SPAN``)."""
    trace = _opentelemetry_trace()
    if trace is None:
        return None
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    traceparent = f"00-{context.trace_id:032x}-{context.span_id:016x}-{int(context.trace_flags) & 0xFF:02x}"
    state = context.trace_state.to_header() if context.trace_state else ""
    return traceparent.encode("ascii"), state.encode("ascii") if state else None


def parent(options: Mapping[str, Any]) -> Parent | None:
    """The call's parent: ``traceparent=`` (and ``tracestate=``) when given, else
    :func:`ambient_parent`. A ``tracestate`` without a ``traceparent`` is passed on for the
    library to refuse, naming it."""
    traceparent, tracestate = options.get("traceparent"), options.get("tracestate")
    if traceparent is not None or tracestate is not None:
        return c_text(traceparent, "traceparent"), c_text(tracestate, "tracestate")
    return ambient_parent()


_defaults: list[_native.gw_call_options] = []


def _call_options_defaults() -> _native.gw_call_options:
    """The library's version 7 defaults (``gw_call_options_init``), asked for once."""
    if not _defaults:
        defaults = _native.gw_call_options()
        _exceptions.check(_native.lib.gw_call_options_init(ctypes.byref(defaults), _native.GW_CALL_OPTIONS_VERSION))
        _defaults.append(defaults)
    return _defaults[0]


def with_parent(flat: _native.gw_call_options_v4, options: Mapping[str, Any]) -> _native.CallOptionsStruct:
    """``flat``, or the same call as a version 7 ``gw_call_options`` with its parent when it
    has one (:func:`parent`). ``policy_json`` (``policy=``, ``redirects=``,
    ``max_response_bytes=``) goes as it is: version 7 reads it first and lays the typed
    ``retry.max_retries`` over it, as version 4 lays ``max_retries``."""
    found = parent(options)
    if found is None:
        return flat
    native = _native.gw_call_options.from_buffer_copy(_call_options_defaults())
    native.method, native.path, native.route = flat.method, flat.path, flat.route
    native.policy_json = flat.policy_json
    native.object_type, native.params_json, native.headers_json = flat.object_type, flat.params_json, flat.headers_json
    _set_body(native.body, flat)
    native.retry.max_retries = flat.max_retries
    native.retry.test, native.retry.test_user_data = flat.retry_test, flat.retry_test_user_data
    native.timeouts.attempt, native.timeouts.deadline = flat.attempt_timeout, flat.deadline
    native.download.path, native.download.max_bytes = flat.download_path, flat.download_max_bytes
    native.download.on_chunk, native.download.on_chunk_user_data = flat.on_chunk, flat.on_chunk_user_data
    native.on_progress, native.on_progress_user_data = flat.on_progress, flat.on_progress_user_data
    native.traceparent, native.tracestate = found
    # The flat struct owns the body bytes and parts the new one points to.
    native._flat = flat
    return native


def _set_body(body: _native.gw_body, flat: _native.gw_call_options_v4) -> None:
    """The flat layout's body fields as a ``gw_body`` of the kind they make. More than one
    body is left for the library to refuse: every field is copied, so its message names
    the version 7 fields the kind does not read."""
    body.json, body.form_json = flat.body_json, flat.form_json
    body.parts, body.part_count = flat.parts, flat.part_count
    if flat.body is not None or flat.body_length:
        body.bytes, body.length, body.content_type = flat.body, flat.body_length, flat.content_type
    if flat.parts or flat.part_count:
        body.kind = _native.GW_BODY_MULTIPART
    elif flat.body is not None or flat.body_length:
        body.kind = _native.GW_BODY_BYTES
    elif flat.form_json is not None:
        body.kind = _native.GW_BODY_FORM
    elif flat.body_json is not None:
        body.kind = _native.GW_BODY_JSON
