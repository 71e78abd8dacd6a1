"""The `gatewire` command line and the call's limits: dot segments refused (and the path on
the wire is the path written), `--max-response-bytes`, and `--max-retries` and `--deadline`
checked by the same rule and message as C's and Python's `max_retries` and `deadline`."""

from __future__ import annotations

import json
import time
from typing import Callable

import gatewire
import pytest
from test_cli_basics import run


@pytest.mark.parametrize("value", ["..", ".", "%2e%2E", ".%2e", "../admin"])
def test_a_dot_segment_parameter_is_refused(cli: str, server: str, value: str) -> None:  # noqa: F811
    done = run(cli, "call", "--base-url", f"{server}/echo/api/v1", "DELETE", "/users/:id/sessions", "--param", f"id={value}")
    # The core's invalid_argument before anything is sent: a usage error.
    assert (done.returncode, done.stdout) == (2, ""), done.stdout
    assert done.stderr.startswith('gatewire: path parameter "id" is '), done.stderr


@pytest.mark.parametrize("path", ["/a/../b", "/./x", "/a/%2e%2e/b", "/a/b/.."])
def test_a_raw_path_with_a_dot_segment_is_refused(cli: str, server: str, path: str) -> None:  # noqa: F811
    done = run(cli, "call", "--base-url", f"{server}/echo/api/v1", "GET", path)
    assert (done.returncode, done.stdout) == (2, ""), done.stdout
    assert done.stderr.startswith("gatewire: ") and "dot segment" in done.stderr, done.stderr


def test_the_path_sent_is_the_path_written(cli: str, server: str) -> None:  # noqa: F811
    done = run(cli, "call", "--base-url", f"{server}/echo", "GET", "/a/.../b/.hidden/caf\u00e9/:name",
               "--param", "name=x..y z")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["path"] == "/echo/a/.../b/.hidden/caf%C3%A9/x..y%20z"


def test_max_response_bytes(cli: str, server: str) -> None:  # noqa: F811
    done = run(cli, "call", "--base-url", server, "GET", "/bytes/1000", "--max-response-bytes", "1000")
    assert done.returncode == 0 and len(done.stdout.strip()) == 1000, done.stdout
    start = time.monotonic()
    # About 64 KB on the wire (under the limit), 64 MiB decoded: the decoded size counts.
    done = run(cli, "call", "--base-url", server, "GET", "/gzip-bomb/67108864", "--max-response-bytes", "1048576", "--verbose")
    assert time.monotonic() - start < 5
    assert done.returncode == 1, done.stdout
    error = json.loads(done.stdout)
    assert (error["kind"], error["status"], error["attempts"]) == ("response_too_large", 0, 1)
    assert "decoded response body passed maxResponseBytes (1048576 bytes)" in error["message"]
    assert "response_too_large is never retried" in done.stderr


@pytest.mark.parametrize("value", ["0", "-5", "x", "4611686018427387905"])
def test_max_response_bytes_usage_errors(cli: str, server: str, value: str) -> None:  # noqa: F811
    done = run(cli, "call", "--base-url", server, "GET", "/bytes/1", "--max-response-bytes", value)
    assert done.returncode == 2
    assert "--max-response-bytes expects bytes in 1...4611686018427387904" in done.stderr


@pytest.mark.parametrize(("argument", "flag", "value"), [
    ("max_retries", "--max-retries", 150),
    ("max_retries", "--max-retries", -2),
    ("deadline", "--deadline", 100000),
    ("deadline", "--deadline", -1),
])
def test_call_overrides_are_refused_as_the_library_refuses_them(
        cli: str, server: str, client: gatewire.Client, key: str, sequence_count: Callable[[str], int],  # noqa: F811
        argument: str, flag: str, value: int) -> None:
    with pytest.raises(gatewire.InvalidArgument) as caught:
        client.call("GET", f"/sequence/{key}/503", **{argument: value})
    library = str(caught.value)
    assert library.startswith(f"{argument}: ")
    done = run(cli, "call", "--base-url", server, "GET", f"/sequence/{key}/503", flag, str(value))
    assert done.returncode == 2, done.stdout
    # One rule, one message: only the field's name is the front-end's own.
    assert done.stderr == f"gatewire: {flag}: {library.removeprefix(f'{argument}: ')}\n"
    assert sequence_count(key) == 0


def test_call_overrides_at_the_limits_are_accepted(cli: str, server: str, key: str,  # noqa: F811
                                                   sequence_count: Callable[[str], int]) -> None:
    # -1 keeps the route's count and 0 the config's deadline, as C's and Python's sentinels.
    done = run(cli, "call", "--base-url", server, "GET", f"/sequence/{key}/200", "--max-retries", "-1", "--deadline", "0")
    assert done.returncode == 0, done.stderr
    done = run(cli, "call", "--base-url", server, "GET", f"/sequence/{key}/200", "--max-retries", "100", "--deadline", "86400")
    assert done.returncode == 0, done.stderr
    assert sequence_count(key) == 2
