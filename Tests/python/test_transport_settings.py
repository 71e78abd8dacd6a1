"""The config's ``proxy`` and ``noProxy`` keys and the ``verifyTLS: false`` warning, through
the binding and the CLI. The test server plays the proxy: a proxied request reaches it in
absolute-form, which /echo reports as its ``target``."""

from __future__ import annotations

import json
import logging
import subprocess
from pathlib import Path

import pytest

import gatewire


def test_a_call_goes_through_the_proxy_and_its_password_is_never_shown(server: str) -> None:
    proxy = server.replace("http://", "http://puser:PPASS_P1@")
    with gatewire.Client(config={"baseURL": "http://127.0.0.2:1", "proxy": proxy, "noProxy": ""}) as client:
        result = client.call("GET", "/echo")
    echo = result.json()
    assert echo["target"] == "http://127.0.0.2:1/echo"  # nothing listens there: the proxy answered
    assert echo["headers"]["proxy-authorization"] == "Basic cHVzZXI6UFBBU1NfUDE="  # puser:PPASS_P1
    assert "PPASS_P1" not in repr(result) + result.path + repr(result.attempts)


def test_no_proxy_hosts_are_reached_directly(server: str, closed_port: int) -> None:
    closed = f"http://127.0.0.1:{closed_port}"
    with gatewire.Client(config={"baseURL": server, "proxy": closed, "noProxy": "127.0.0.1"}) as client:
        assert client.call("GET", "/echo").json()["target"] == "/echo"
    with gatewire.Client(config={"baseURL": server, "proxy": closed, "noProxy": ""}) as client:
        with pytest.raises(gatewire.ConnectionFailed):
            client.call("GET", "/echo")


def test_a_bad_proxy_is_a_config_error_without_its_password() -> None:
    with pytest.raises(gatewire.ConfigError) as raised:
        gatewire.Client(config={"baseURL": "http://127.0.0.1:1", "proxy": "ftp://u:PPASS_P2@host"})
    assert "proxy" in str(raised.value) and "PPASS_P2" not in str(raised.value)


def test_verify_tls_false_is_logged_once_per_client(caplog: pytest.LogCaptureFixture) -> None:
    config = {"baseURL": "https://127.0.0.1:1", "verifyTLS": False, "plugins": ["log"]}
    with caplog.at_level(logging.INFO, logger="gatewire"):
        for _ in range(2):
            gatewire.Client(config=config).close()
    warnings = [r.getMessage() for r in caplog.records if "verifyTLS is false" in r.getMessage()]
    assert len(warnings) == 2, caplog.text


def test_the_cli_warns_about_verify_tls_false(cli: str, tmp_path: Path, closed_port: int) -> None:  # noqa: F811
    config = tmp_path / "insecure.json"
    config.write_text(json.dumps({"baseURL": f"https://127.0.0.1:{closed_port}", "verifyTLS": False}))
    checked = subprocess.run([cli, "check", str(config)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0
    assert "warning: verifyTLS is false: TLS certificate chains and host names are not checked" in checked.stdout
    called = subprocess.run([cli, "call", "--config", str(config), "--max-retries", "0", "GET", "/x"],
                            capture_output=True, text=True, timeout=60)
    assert called.returncode == 1
    assert called.stderr.count("gatewire: warning: verifyTLS is false") == 1, called.stderr
