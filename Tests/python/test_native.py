"""The C ABI directly: NULL and malformed input, and the declarations' completeness."""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import pytest

import gatewire
from gatewire import _exceptions, _native

HEADER = Path(__file__).resolve().parents[2] / "include" / "gatewire.h"


def test_every_header_function_is_declared(library: str) -> None:
    code = re.sub(r"/\*.*?\*/", " ", HEADER.read_text(), flags=re.DOTALL)  # names in comments do not count
    declared_in_header = set(re.findall(r"\b(gw_[a-z_]+)\s*\(", code)) - {
        "gw_failure_observer_fn", "gw_retry_test_fn", "gw_completion_fn",
    }  # fmt: skip
    assert declared_in_header == set(_native._SIGNATURES)


def test_result_accessors_accept_null(library: str) -> None:
    lib = _native.lib
    assert lib.gw_result_status(None) == 0
    assert lib.gw_result_ok(None) == 0
    assert lib.gw_result_attempt_count(None) == 0
    lib.gw_result_free(None)
    lib.gw_string_free(None)
    lib.gw_client_free(None)
    lib.gw_call_handle_free(None)


def test_client_new_with_null_url_is_invalid_argument(library: str) -> None:
    out = ctypes.c_void_p()
    status = _native.lib.gw_client_new(None, ctypes.byref(out))
    assert status == _native.GW_ERROR_INVALID_ARGUMENT
    assert out.value is None
    assert _native.last_error_message() != ""


def test_options_init_rejects_unknown_version(library: str) -> None:
    options = _native.gw_call_options_v4()
    assert _native.lib.gw_call_options_init(ctypes.byref(options), 999) == _native.GW_ERROR_VERSION
    assert _native.lib.gw_call_options_init(None, 1) == _native.GW_ERROR_INVALID_ARGUMENT
    assert _native.lib.gw_call_options_init(ctypes.byref(options), 1) == _native.GW_OK
    assert options.version == 1 and options.max_retries == -1


def test_client_rejects_a_bad_base_url(library: str) -> None:
    with pytest.raises(gatewire.ConfigError) as caught:
        gatewire.Client("ftp://example.org")
    assert "baseURL" in str(caught.value)


def test_malformed_params_are_invalid_argument(client: gatewire.Client) -> None:
    with pytest.raises(TypeError):
        client.call("GET", "/echo", params={"a": object()})


def test_kind_names_match_the_library(closed_port: int, library: str) -> None:
    lib = _native.lib
    client = ctypes.c_void_p()
    _exceptions.check(lib.gw_client_new(f"http://127.0.0.1:{closed_port}".encode(), ctypes.byref(client)))
    try:
        options = _native.gw_call_options_v4()
        _exceptions.check(lib.gw_call_options_init(ctypes.byref(options), _native.GW_CALL_OPTIONS_VERSION_4))
        options.method, options.path, options.max_retries = b"GET", b"/echo", 0
        result = ctypes.c_void_p()
        status = lib.gw_call(client, ctypes.byref(options), ctypes.byref(result))
        try:
            assert status == _native.GW_ERROR_CALL_FAILED
            kind = lib.gw_result_error_kind(result)
            assert kind == _native.GW_KIND_CONNECT
            assert lib.gw_result_error_kind_name(result).decode() == gatewire.ErrorKind(kind).name == "connect"
            assert lib.gw_result_status(result) == 0
            assert lib.gw_result_attempt_count(result) == 1
        finally:
            lib.gw_result_free(result)
    finally:
        lib.gw_client_free(client)
