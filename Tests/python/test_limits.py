"""Response size limits through the Python binding: ``max_response_bytes=``, the config's
``maxResponseBytes``, ``size_t`` body lengths, and the README's retry test against a huge
``Retry-After``. The shared ``limit_*`` cases of ``resilience_cases.json`` cover the same
rules in Swift, C and Python; these add what only Python has (its keyword, its exceptions,
its copy of the body)."""

from __future__ import annotations

import ctypes
import mmap
import time

import pytest

import gatewire
from gatewire import _native


def test_max_response_bytes_keyword(client: gatewire.Client) -> None:
    assert len(client.call("GET", "/bytes/2000", max_response_bytes=2000).body) == 2000
    with pytest.raises(gatewire.ResponseTooLarge) as caught:
        client.call("GET", "/bytes/2000?chunked=1", max_response_bytes=1999, max_retries=2)
    error = caught.value
    assert (str(error.kind), error.status, len(error.attempts)) == ("response_too_large", 0, 1)
    assert error.attempts[0].bytes_received == 2000  # the chunk that crossed the limit, no more
    assert "maxResponseBytes (1999 bytes)" in error.message
    # The keyword joins a policy given as well.
    with pytest.raises(gatewire.ResponseTooLarge):
        client.call("GET", "/bytes/11", policy={"retry": {"maxRetries": 0}}, max_response_bytes=10)


@pytest.mark.parametrize("value", [0, -1, 2**62 + 1, True, 1.5, "10"])
def test_max_response_bytes_out_of_range_is_refused(client: gatewire.Client, value: object) -> None:
    with pytest.raises(gatewire.InvalidArgument, match=r"^max_response_bytes: "):
        client.call("GET", "/bytes/1", max_response_bytes=value)  # type: ignore[arg-type]


def test_config_key_is_validated(server: str, library: str) -> None:
    with pytest.raises(gatewire.ConfigError, match="maxResponseBytes"):
        gatewire.Client(config={"baseURL": server, "maxResponseBytes": 0})
    with gatewire.Client(config={"baseURL": server, "maxResponseBytes": 100}) as small:
        with pytest.raises(gatewire.ResponseTooLarge, match="Content-Length"):
            small.call("GET", "/bytes/101")


def test_copy_bytes_takes_a_size_t_length() -> None:
    # ctypes.string_at passes its length as a C int: past 2 GiB it fails (and 4 GiB + 5 bytes
    # would come back as 5). The source is an untouched anonymous mapping (no memory used)
    # with a marker at its end, which must arrive at the end of the copy.
    length = 2**31 + 5
    with mmap.mmap(-1, length) as source:
        source[length - 5 :] = b"tail!"
        anchor = ctypes.c_char.from_buffer(source)
        try:
            copied = _native.copy_bytes(ctypes.addressof(anchor), length)
            assert len(copied) == length
            assert copied[-5:] == b"tail!" and copied[:1] == b"\0"
            del copied
        finally:
            del anchor


def test_readme_retry_test_against_a_huge_retry_after(server: str, library: str, key: str) -> None:
    def retry_test(attempt: gatewire.AttemptInfo) -> float | None:  # the README's, verbatim
        if attempt.status == 429:
            return float(attempt.header("Retry-After") or 1)
        return None

    config = {"baseURL": server, "retry": {"maxRetries": 1, "maxDelay": 0.05, "jitter": "none"}}
    with gatewire.Client(config=config) as client:
        start = time.monotonic()
        result = client.call("GET", f"/fault/{key}/429+ra1000000000000,200", retry_test=retry_test)
        assert time.monotonic() - start < 2
        assert [a.status for a in result.attempts] == [429, 200]
        assert result.attempts[0].delay == pytest.approx(0.05)
        with pytest.raises(gatewire.Timeout) as caught:  # the default maxDelay, 30 s, passes the deadline
            client.call("GET", f"/fault/{key}-d/429+ra1000000000000", retry_test=retry_test, deadline=5,
                        policy={"retry": {"maxDelay": 30}})
        assert str(caught.value.kind) == "deadline" and caught.value.status == 429
        assert time.monotonic() - start < 3
