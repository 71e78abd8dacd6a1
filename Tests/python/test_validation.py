"""Input validation through the Python binding, against the scripted test server: header
injection (RFC 9110 sections 5.1 and 5.5) at every boundary, messages that name no internal
function, a failing plugin's reason (gw_request_fail), built-in plugins named by a string."""

from __future__ import annotations

import uuid

import pytest

import gatewire


def _count(client: gatewire.Client, key: str) -> int:
    return int(client.call("GET", f"/sequence/{key}/count").json()["count"])


def test_call_headers_with_crlf_or_a_bad_name_raise_and_send_nothing(server: str) -> None:
    key = f"py-headers-{uuid.uuid4().hex}"
    with gatewire.Client(server) as client:
        with pytest.raises(gatewire.InvalidArgument) as raised:
            client.call("GET", f"/sequence/{key}/200", headers={"X": "a\r\nInjected: 1"})
        assert str(raised.value) == (
            'header "X": the value contains CR at byte 1 '
            "(RFC 9110 section 5.5: no control character but HTAB is allowed in a field value)"
        )
        with pytest.raises(gatewire.InvalidArgument, match='header "Bad Name": the header name contains a space'):
            client.call("GET", f"/sequence/{key}/200", headers={"Bad Name": "x"})
        with pytest.raises(gatewire.InvalidArgument, match='header "X"'):
            client.call_async("GET", f"/sequence/{key}/200", headers={"X": "a\nb"})
        assert _count(client, key) == 0
        # Valid headers still arrive.
        echoed = client.call("GET", "/echo", headers={"X-Fine": "a: b"}).json()["headers"]
        assert echoed["x-fine"] == "a: b" and "injected" not in echoed


def test_config_headers_and_plugin_settings_are_config_errors(server: str) -> None:
    with pytest.raises(gatewire.ConfigError, match=r"^headers\.X: the value contains CR at byte 1"):
        gatewire.Client(config={"baseURL": server, "headers": {"X": "a\r\nInjected: 1"}})
    with pytest.raises(gatewire.ConfigError, match=r"^plugins\[0\]\.token: the value contains LF"):
        gatewire.Client(config={"baseURL": server, "plugins": [{"name": "bearer", "token": "t\nInjected: 1"}]})
    with pytest.raises(gatewire.ConfigError, match=r"^auth\.username: the user-id contains \":\""):
        gatewire.Client(config={"baseURL": server, "auth": {"type": "basic", "username": "a:b", "password": "p"}})


class Injector(gatewire.Plugin):
    name = "Injector"

    def prepare(self, request: gatewire.PreparedRequest) -> None:
        request.set_header("X-Evil", "v\r\nInjected: yes")


class Boom(gatewire.Plugin):
    name = "Boom"

    def prepare(self, request: gatewire.PreparedRequest) -> None:
        raise RuntimeError("signer broke")


def test_a_failing_prepare_gives_its_reason(server: str) -> None:
    key = f"py-boom-{uuid.uuid4().hex}"
    with gatewire.Client(server, plugins=[Boom()]) as client:
        with pytest.raises(gatewire.PluginError) as raised:
            client.call("GET", f"/sequence/{key}/200")
        assert raised.value.message == "plugin Boom failed: RuntimeError: signer broke"
        assert raised.value.attempts == ()
    with gatewire.Client(server, plugins=[Injector()]) as client:
        with pytest.raises(gatewire.PluginError) as injected:
            client.call("GET", f"/sequence/{key}/200")
        assert injected.value.message.startswith(
            'plugin Injector failed: InvalidArgument: header "X-Evil": the value contains CR at byte 1'
        )
    with gatewire.Client(server) as client:
        assert _count(client, key) == 0


def test_messages_name_no_internal_function(server: str) -> None:
    with gatewire.Client(server) as client:
        with pytest.raises(gatewire.InvalidArgument) as raised:
            client.call("FETCH", "/echo")
        assert str(raised.value).startswith('method: unknown HTTP method "FETCH" (expected one of: GET, ')
        assert "gw_" not in str(raised.value)
        with pytest.raises(gatewire.InvalidRequest) as unknown:
            client.call_route("nope")
        assert unknown.value.message == 'unknown route "nope" (the client has no routes)'


def test_built_in_plugins_may_be_named_by_a_string(server: str) -> None:
    with gatewire.Client(config={"baseURL": server, "plugins": ["requestId"]}) as client:
        assert client.call("GET", "/echo").json()["headers"]["x-request-id"].endswith("-1")


def test_a_credential_token_with_crlf_is_refused(server: str) -> None:
    with pytest.raises(gatewire.InvalidArgument, match=r'^header "Authorization": the value contains LF'):
        gatewire.RefreshingCredential(lambda current: None, token="t\nInjected: 1")
    credential = gatewire.RefreshingCredential(lambda current: "t\r\nInjected: 1")
    with gatewire.Client(server, credential=credential) as client:
        with pytest.raises(gatewire.AuthError):  # the refreshed token cannot be sent: the refresh failed
            client.call("GET", f"/auth/py-{uuid.uuid4().hex}")
