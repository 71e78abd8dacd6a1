"""The User-Agent field: gatewire/VERSION libcurl/VERSION unless the caller sets one."""

from __future__ import annotations

import ctypes

import gatewire


def libcurl_version() -> str:
    """The loaded libcurl's version, from its own curl_version() ("libcurl/7.88.1 OpenSSL/...")."""
    curl = ctypes.CDLL("libcurl.so.4")
    curl.curl_version.restype = ctypes.c_char_p
    return curl.curl_version().decode().split()[0].split("/")[1]


def seen_user_agent(client: gatewire.Client, **options: object) -> str | None:
    """The User-Agent the test server received for GET /headers."""
    return client.call("GET", "/headers", **options).json()["headers"].get("user-agent")


class SetsUserAgent(gatewire.Plugin):
    def prepare(self, request: gatewire.PreparedRequest) -> None:
        request.set_header("User-Agent", "from-plugin/2")


def test_the_default_names_gatewire_and_libcurl(server: str) -> None:
    expected = f"gatewire/{gatewire.__version__} libcurl/{libcurl_version()}"
    assert expected.startswith("gatewire/0.") and " libcurl/7." in expected
    with gatewire.Client(server) as client:
        assert seen_user_agent(client) == expected
        assert seen_user_agent(client) == expected  # the reused handle keeps it


def test_a_callers_user_agent_wins(server: str) -> None:
    with gatewire.Client(server) as client:
        assert seen_user_agent(client, headers={"User-Agent": "caller/1"}) == "caller/1"
        assert seen_user_agent(client).startswith("gatewire/")  # only for that call


def test_the_configs_headers_and_a_plugin_win(server: str) -> None:
    with gatewire.Client(config={"baseURL": server, "headers": {"User-Agent": "from-config/3"}}) as client:
        assert seen_user_agent(client) == "from-config/3"
    with gatewire.Client(server, plugins=[SetsUserAgent()]) as client:
        assert seen_user_agent(client) == "from-plugin/2"
