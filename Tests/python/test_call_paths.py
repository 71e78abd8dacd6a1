"""What a path given to a call means, from Python and the CLI, against the test server (which
answers on 127.0.0.1 and 127.0.0.2 alike and counts the requests of each /sequence key): an
absolute URL on the base URL's origin is called, one on another origin is refused before
anything is sent; the colons of a plain path are data."""

from __future__ import annotations

import json
from typing import Callable

import gatewire
import pytest
from test_cli_basics import run


def test_an_absolute_url_on_the_base_origin_is_called(client: gatewire.Client, server: str) -> None:
    result = client.get(f"{server}/echo/x", params={"q": "1"})
    assert result.status == 200
    assert result.path == "/echo/x?q=1"
    assert result.json()["path"] == "/echo/x"


def test_an_absolute_url_on_another_origin_is_refused_and_never_sent(
    client: gatewire.Client, server: str, key: str, sequence_count: Callable[[str], int]
) -> None:
    port = server.rsplit(":", 1)[1]
    other = f"http://127.0.0.2:{port}/sequence/{key}/200"
    with pytest.raises(gatewire.InvalidArgument) as raised:
        client.get(other)
    assert raised.value.message.startswith(f"the URL {other} is on origin http://127.0.0.2:{port}, not on the base URL's")
    assert sequence_count(key) == 0  # neither host got it (one server answers both)


def test_colons_of_a_plain_path_are_data(client: gatewire.Client) -> None:
    assert client.get("/echo/urn:isbn:0451450523").json()["path"] == "/echo/urn:isbn:0451450523"
    assert client.get("/echo/:name/2026-12-06T05:17:14Z", params={"name": "ann"}).json()["path"] == (
        "/echo/ann/2026-12-06T05:17:14Z"
    )


@pytest.mark.parametrize("path", ["/echo/urn:isbn:0451450523", "{server}/echo/urn:isbn:0451450523"])
def test_the_cli_sends_colons_and_absolute_urls_as_given(cli: str,  # noqa: F811
                                                         server: str, path: str) -> None:
    done = run(cli, "call", "--base-url", server, "GET", path.format(server=server))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["path"] == "/echo/urn:isbn:0451450523"


def test_the_cli_refuses_another_origin(cli: str, server: str, key: str,  # noqa: F811
                                        sequence_count: Callable[[str], int]) -> None:
    port = server.rsplit(":", 1)[1]
    done = run(cli, "call", "--base-url", server, "GET", f"http://127.0.0.2:{port}/sequence/{key}/200")
    assert done.returncode == 2  # refused before anything is sent: a usage error
    assert "is on origin http://127.0.0.2:" in done.stderr
    assert sequence_count(key) == 0
