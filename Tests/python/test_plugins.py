"""Plugins, filtered failure observers, events and the refreshing credential, against the
scripted test server on 127.0.0.1."""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from pathlib import Path

import pytest

import gatewire
from shared_object_plugins import build_linked_plugin, build_table_plugin


class Tracer(gatewire.Plugin):
    def __init__(self, name: str, log: list[str]) -> None:
        self.name = name
        self.log = log

    def prepare(self, request: gatewire.PreparedRequest) -> None:
        self.log.append(f"{self.name}.prepare")

    def will_send(self, request: gatewire.PreparedRequest) -> None:
        self.log.append(f"{self.name}.will_send")

    def did_receive(self, attempt: gatewire.AttemptInfo) -> None:
        self.log.append(f"{self.name}.did_receive#{attempt.number}")

    def process(self, result: gatewire.FinalResult) -> None:
        self.log.append(f"{self.name}.process:{result.status}")


class OkField(gatewire.Plugin):
    """Slack-style APIs answer 200 with {"ok": false, "error": "..."}."""

    def process(self, result: gatewire.FinalResult) -> None:
        if result.ok and result.json().get("ok") is False:
            result.fail(f"API error: {result.json()['error']}")


def test_hook_order_is_an_onion_across_a_retried_call(server: str, key: str) -> None:
    log: list[str] = []
    config = {"baseURL": server, "retry": {"maxRetries": 2, "initialDelay": 0.01, "jitter": "none"}}
    with gatewire.Client(config=config, plugins=[Tracer("A", log), Tracer("B", log)]) as client:
        assert client.call("GET", f"/sequence/{key}/503,200").status == 200
    once = ["A.prepare", "B.prepare", "A.will_send", "B.will_send"]
    assert log == once + ["B.did_receive#1", "A.did_receive#1"] + once + ["B.did_receive#2", "A.did_receive#2",
                                                                           "B.process:200", "A.process:200"]


def test_process_turns_an_ok_false_body_into_a_failure(server: str) -> None:
    seen: list[int] = []
    with gatewire.Client(server, plugins=[OkField()]) as client:
        client.add_failure_observer(lambda error: seen.append(error.kind))
        with pytest.raises(gatewire.PluginError) as raised:
            client.call("GET", "/slack/channel_not_found")
        assert raised.value.status == 200 and "channel_not_found" in str(raised.value)
        assert client.call("GET", "/slack/ok").status == 200
    assert seen == [gatewire.ErrorKind.plugin]


def _rotate(server: str, realm: str) -> str:
    with gatewire.Client(server) as other:
        return other.call("POST", f"/auth/{realm}/rotate").json()["token"]


def test_twenty_concurrent_401s_share_one_refresh(server: str, key: str) -> None:
    _rotate(server, key)
    refreshed: list[str | None] = []

    def refresh(current: str | None) -> str | None:
        refreshed.append(current)
        return _rotate(server, key)  # a blocking call with another client, on a worker thread

    credential = gatewire.RefreshingCredential(refresh, token="stale")
    with gatewire.Client(server, credential=credential) as client:
        futures = [client.call_async("GET", f"/auth/{key}") for _ in range(20)]
        results = [future.result(timeout=30) for future in futures]
    assert [result.status for result in results] == [200] * 20
    assert refreshed == ["stale"]
    assert credential.refresh_count == 1
    assert all([a.status for a in result.attempts] in ([200], [401, 200]) for result in results)


def _wait_for_rejections(server: str, realm: str, count: int) -> None:
    """Block (at most 10 s) until the server has answered ``count`` requests of ``realm`` with
    401, so a failing refresh answers only when every call is waiting on it."""
    deadline = time.monotonic() + 10
    with gatewire.Client(server) as other:
        while other.call("GET", f"/auth/{realm}/rotations").json()["rejected"] < count:
            assert time.monotonic() < deadline, "the calls did not all reach the server"
            time.sleep(0.01)


def test_a_failed_refresh_gives_auth_failures_and_one_observer_call_each(server: str, key: str) -> None:
    _rotate(server, key)
    credential = gatewire.RefreshingCredential(lambda current: _wait_for_rejections(server, key, 20), token="stale")
    observed: list[int] = []
    with gatewire.Client(server, credential=credential) as client:
        client.add_failure_observer(lambda error: observed.append(error.status), status=401)
        futures = [client.call_async("GET", f"/auth/{key}") for _ in range(20)]
        errors = [future.exception(timeout=30) for future in futures]
    assert all(isinstance(error, gatewire.AuthError) and error.status == 401 for error in errors)
    assert observed == [401] * 20
    assert credential.refresh_count == 1


def test_filtered_observers_fire_only_for_theirs(server: str, closed_port: int) -> None:
    unauthorized: list[int] = []
    offline: list[int] = []
    for base in (server, f"http://127.0.0.1:{closed_port}"):
        with gatewire.Client(base) as client:
            client.add_failure_observer(lambda error: unauthorized.append(error.status), status=401)
            client.add_failure_observer(lambda error: offline.append(error.status), no_response=True)
            for path in ("/status/401", "/status/500"):
                with pytest.raises(gatewire.CallError):
                    client.call("GET", path)
    assert unauthorized == [401]
    assert offline == [0, 0]


def test_an_observer_that_raises_does_not_break_the_call(server: str, caplog: pytest.LogCaptureFixture) -> None:
    after: list[int] = []

    def broken(error: gatewire.CallError) -> None:
        raise RuntimeError("observer bug")

    with gatewire.Client(server) as client:
        client.add_failure_observer(broken)
        client.add_failure_observer(lambda error: after.append(error.status))
        with caplog.at_level(logging.ERROR, logger="gatewire"), pytest.raises(gatewire.HTTPStatusError):
            client.call("GET", "/status/500")
    assert after == [500]
    assert "observer bug" in caplog.text


def test_logs_never_contain_secrets(server: str, caplog: pytest.LogCaptureFixture) -> None:
    secret = "py-s3cr3t-token"
    config = {"baseURL": server, "plugins": [
        {"name": "bearer", "token": secret},
        {"name": "apiKey", "query": "api_key", "value": secret},
        {"name": "apiKey", "header": "X-Api-Key", "value": secret},
        {"name": "requestId"},
        {"name": "log", "redactHeaders": ["X-Api-Key"], "headers": True},
        {"name": "metrics"},
    ]}
    with caplog.at_level(logging.INFO, logger="gatewire"), gatewire.Client(config=config) as client:
        echo = client.call("GET", "/echo").json()
        with pytest.raises(gatewire.HTTPStatusError) as raised:
            client.call("GET", "/status/403")
        metrics = client.metrics()
    assert echo["headers"]["authorization"] == f"Bearer {secret}"
    assert echo["query"]["api_key"] == secret
    assert echo["headers"]["x-request-id"]
    assert "<redacted>" in caplog.text and "/echo" in caplog.text
    assert secret not in caplog.text
    assert secret not in str(raised.value)
    assert metrics["calls"] == 2 and metrics["attempts"] == 2 and metrics["status_classes"] == {"2xx": 1, "4xx": 1}


def test_event_monitor_sees_every_step(server: str, key: str) -> None:
    events: list[str] = []
    config = {"baseURL": server, "retry": {"maxRetries": 1, "initialDelay": 0.01}}
    with gatewire.Client(config=config) as client:
        monitor = client.add_event_monitor(lambda event: events.append(f"{event['event']}:{event['status']}"))
        client.call("GET", f"/sequence/{key}/503,200")
        client.remove_event_monitor(monitor)
        client.call("GET", "/echo")
    assert events == ["call_started:0", "attempt_started:0", "attempt_finished:503", "retry_scheduled:503",
                      "attempt_started:0", "attempt_finished:200", "call_finished:200"]


def test_a_plugin_from_a_shared_object_adds_a_header(server: str, tmp_path: Path) -> None:
    # Written against the gw_plugin_api table, not linked against libGatewire: it calls the one
    # core of this process, the binding's libGatewire.
    library = build_table_plugin(tmp_path)
    config = {"baseURL": server, "plugins": [{"path": str(library)}]}
    with gatewire.Client(config=config) as client:
        headers = client.call("GET", "/echo").json()["headers"]
        assert (headers["x-from-shared-object"], headers["x-mapped-gatewire"]) == ("table", "1")
        with pytest.raises(gatewire.PluginError, match="202 is not done"):
            client.call("GET", "/status/202")
    with pytest.raises(gatewire.ConfigError, match=r"plugins\[0\].*version 99"):
        gatewire.Client(config={"baseURL": server, "plugins": [{"path": str(library), "symbol": "wrong_version"}]})
    with pytest.raises(gatewire.ConfigError, match=r"plugins\[0\].*no symbol"):
        gatewire.Client(config={"baseURL": server, "plugins": [{"path": str(library), "symbol": "missing"}]})
    with pytest.raises(gatewire.ConfigError, match=r"plugins\[0\]\.path"):
        gatewire.Client(config={"baseURL": server, "plugins": [{"path": str(tmp_path / "none.so")}]})


def test_a_plugin_linked_against_libgatewire_still_loads(server: str, tmp_path: Path) -> None:
    # The older kind (a one-argument entry, gw_plugin version 2): its libGatewire is the one
    # already in the process, so there is still one core.
    libdir = str(Path(gatewire._native.library_path()).resolve().parent)
    library = build_linked_plugin(tmp_path, libdir)
    with gatewire.Client(config={"baseURL": server, "plugins": [{"path": str(library)}]}) as client:
        headers = client.call("GET", "/echo").json()["headers"]
        assert (headers["x-from-shared-object"], headers["x-mapped-gatewire"]) == ("linked", "1")
