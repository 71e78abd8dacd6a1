"""Errors reported in a 2xx body: the ``bodyErrors`` built-in (Slack's ``ok: false``, GraphQL's
``errors``) and ``FinalResult.fail(errors=...)``, from Python and the ``gatewire`` CLI, against the
scripted test server (``/slack/<error>``; ``/echo`` answers 200 with the request's body under
``body``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gatewire
from test_cli_basics import run


def config(server: str) -> dict[str, Any]:
    return {
        "baseURL": server,
        "retry": {"maxRetries": 3, "initialDelay": 0.01, "jitter": "none"},
        "mappings": {"SlackError": {"attributes": {"error": "code"}},
                     "GraphQLError": {"attributes": {"message": "text", "path": "path"}}},
        "plugins": [
            {"name": "bodyErrors", "when": {"keyPath": "ok", "equals": False},
             "errors": {"keyPath": "", "mapping": "SlackError"}},
            {"name": "bodyErrors", "when": {"keyPath": "body.errors", "notEquals": []},
             "errors": {"keyPath": "body.errors", "mapping": "GraphQLError"}},
        ],
    }


def test_slack_ok_false_fails_once_with_the_mapped_error(server: str) -> None:
    seen: list[gatewire.CallError] = []
    with gatewire.Client(config=config(server)) as client:
        client.add_failure_observer(seen.append)
        with pytest.raises(gatewire.PluginError) as raised:
            client.call("GET", "/slack/channel_not_found")
        assert raised.value.kind == gatewire.ErrorKind.plugin
        assert raised.value.status == 200
        assert raised.value.message == "bodyErrors: the body of status 200 reports an error (ok equals false)"
        assert raised.value.error_objects == [{"code": "channel_not_found"}]
        assert len(raised.value.attempts) == 1  # final: not retried
        assert client.call("GET", "/slack/ok").json() == {"ok": True}
    assert [(error.kind, error.error_objects) for error in seen] == [
        (gatewire.ErrorKind.plugin, [{"code": "channel_not_found"}])]


def test_graphql_errors_fail_with_every_error_mapped(server: str) -> None:
    seen: list[gatewire.CallError] = []
    with gatewire.Client(config=config(server)) as client:
        client.add_failure_observer(seen.append)
        body = {"data": None, "errors": [{"message": "no such field", "path": ["user", "nmae"]}, {"message": "denied"}]}
        with pytest.raises(gatewire.PluginError) as raised:
            client.call("POST", "/echo", json=body)
        assert raised.value.status == 200
        assert raised.value.error_objects == [{"text": "no such field", "path": ["user", "nmae"]}, {"text": "denied"}]
        for fine in ({"data": {"id": 1}}, {"data": {"id": 1}, "errors": []}):
            assert client.call("POST", "/echo", json=fine).json()["body"] == fine
    assert len(seen) == 1


@pytest.mark.parametrize(("plugin", "message"), [
    ({"name": "bodyErrors", "when": {"keyPath": "ok", "equals": False}, "colour": 1},
     "plugins[0].colour: unknown field"),
    ({"name": "bodyErrors", "when": {"keyPath": "ok", "equal": False}}, "plugins[0].when.equal: unknown field"),
    ({"name": "bodyErrors", "when": {"keyPath": "ok", "equals": False, "notEquals": True}},
     'plugins[0].when: a condition needs exactly one of "equals" and "notEquals"'),
    ({"name": "bodyErrors", "when": {"keyPath": "ok", "equals": False}, "errors": {"mapping": "Nope"}},
     'plugins[0].errors.mapping: unknown mapping "Nope" (known: none)'),
])
def test_bad_settings_are_config_errors_naming_the_field(server: str, plugin: dict[str, Any], message: str) -> None:
    with pytest.raises(gatewire.ConfigError) as raised:
        gatewire.Client(config={"baseURL": server, "plugins": [plugin]})
    assert message in str(raised.value)


class GraphQLErrors(gatewire.Plugin):
    """A process hook that reports a GraphQL body's errors itself, renamed."""

    def process(self, result: gatewire.FinalResult) -> None:
        if result.ok and result.json()["body"].get("errors"):
            result.fail("GraphQL errors", errors=[{"text": e["message"]} for e in result.json()["body"]["errors"]])


def test_a_process_hook_fails_with_error_objects(server: str) -> None:
    seen: list[gatewire.CallError] = []
    with gatewire.Client(server, plugins=[GraphQLErrors()]) as client:
        client.add_failure_observer(seen.append)
        with pytest.raises(gatewire.PluginError) as raised:
            client.call("POST", "/echo", json={"errors": [{"message": "denied"}]})
        assert (raised.value.status, raised.value.message) == (200, "GraphQL errors")
        assert raised.value.error_objects == [{"text": "denied"}]
        assert client.call("POST", "/echo", json={"data": 1}).status == 200
    assert [error.error_objects for error in seen] == [[{"text": "denied"}]]


class BadErrors(gatewire.Plugin):
    def __init__(self, errors: Any) -> None:
        self.errors = errors
        self.raised: list[type[BaseException]] = []

    def process(self, result: gatewire.FinalResult) -> None:
        try:
            result.fail("no", errors=self.errors)
        except (TypeError, ValueError) as error:
            self.raised.append(type(error))


def test_fail_refuses_errors_that_are_not_a_json_list(server: str) -> None:
    for errors, raised in (({"code": 1}, TypeError), ([object()], TypeError), ([float("nan")], ValueError)):
        plugin = BadErrors(errors)
        with gatewire.Client(server, plugins=[plugin]) as client:
            assert client.call("GET", "/echo").status == 200  # the result is left unchanged
        assert plugin.raised == [raised]


def test_the_cli_shows_the_error_objects(cli: str, server: str, tmp_path: Path) -> None:  # noqa: F811
    path = tmp_path / "slack.json"
    path.write_text(json.dumps(config(server)))
    done = run(cli, "call", "--config", str(path), "GET", "/slack/channel_not_found")
    assert done.returncode == 1, done.stderr
    error = json.loads(done.stdout)
    assert (error["kind"], error["status"]) == ("plugin", 200)
    assert error["message"] == "bodyErrors: the body of status 200 reports an error (ok equals false)"
    assert error["error_objects"] == [{"code": "channel_not_found"}]
    ok = run(cli, "call", "--config", str(path), "GET", "/slack/ok")
    assert (ok.returncode, json.loads(ok.stdout)) == (0, {"ok": True})
    checked = run(cli, "check", str(path))
    assert checked.returncode == 0, checked.stderr
    path.write_text(json.dumps({"baseURL": server, "plugins": [{"name": "bodyErrors", "when": {"keyPath": "ok"}}]}))
    bad = run(cli, "check", str(path))
    assert bad.returncode == 1
    assert 'plugins[0].when: a condition needs exactly one of "equals" and "notEquals"' in bad.stderr
