"""Text the binding hands to C as a NUL-terminated string, with a NUL in it: C would end it
there and send, open or write what precedes it (``files={"avatar": secret + "\\x00.png"}``
uploaded ``secret``). Every such argument is refused with :class:`gatewire.InvalidArgument`
(a ValueError) naming it, as Python's ``open()`` refuses such a path, before anything reaches
the test server; paths, part names, filenames, content types, the call's text fields, the
client's, the credential's and the plugin hooks' text."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import gatewire

NUL = "\x00"


def multipart_log(client: gatewire.Client, key: str) -> list[Any]:
    return json.loads(client.get(f"/multipart/{key}/log").body)["attempts"]


def sequence_count(client: gatewire.Client, key: str) -> int:
    return int(json.loads(client.get(f"/sequence/{key}/count").body)["count"])


def refused(argument: str, call: Any) -> None:
    """``call()`` raises InvalidArgument (a ValueError) ``"<argument>: embedded null byte"``."""
    with pytest.raises(gatewire.InvalidArgument) as caught:
        call()
    assert isinstance(caught.value, ValueError)
    assert str(caught.value) == f"{argument}: embedded null byte"


def test_multipart_paths_names_filenames_and_types(client: gatewire.Client, key: str, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_bytes(b"TOPSECRET")
    url = f"/multipart/{key}/200"
    refused("files['avatar'] path", lambda: client.post(url, files={"avatar": str(secret) + NUL + ".png"}))
    refused("files['avatar'] path", lambda: client.post(url, files={"avatar": Path(str(secret) + NUL + ".png")}))
    refused("files['avatar'] path", lambda: client.post(url, files={"avatar": ("a.png", Path(str(secret) + NUL))}))
    refused("files['a\\x00b'] name", lambda: client.post(url, files={"a" + NUL + "b": b"x"}))
    refused("files['f'] filename", lambda: client.post(url, files={"f": ("f" + NUL + ".txt", b"x")}))
    refused("files['f'] content_type", lambda: client.post(url, files={"f": ("f.txt", b"x", "text/plain" + NUL + "x")}))
    refused("form field name 'a\\x00b'", lambda: client.post(url, data={"a" + NUL + "b": "v"}, files={"f": b"x"}))
    assert multipart_log(client, key) == []
    # Content sent with its length may hold NUL bytes: they are data.
    answer = json.loads(client.post(url, files={"f": ("f.bin", "a" + NUL + "b")}).body)
    assert [(part["name"], part["filename"], part["size"]) for part in answer["parts"]] == [("f", "f.bin", 3)]


def test_the_calls_text_and_its_download_path(client: gatewire.Client, key: str, tmp_path: Path) -> None:
    path = f"/sequence/{key}/200"
    refused("download", lambda: client.get(path, download=str(tmp_path / "out.bin") + NUL + "part"))
    refused("download", lambda: client.get(path, download=Path(str(tmp_path / "out.bin") + NUL)))
    refused("method", lambda: client.call("GET" + NUL + "X", path))
    refused("path", lambda: client.get(path + NUL + "/secret"))
    refused("route", lambda: client.call_route("r" + NUL))
    refused("content_type", lambda: client.post(path, content=b"x", content_type="text/plain" + NUL + "x"))
    refused("object_type", lambda: client.post(path, json={}, object_type="User" + NUL))
    refused("parameter name 'a\\x00'", lambda: client.get(path, params={"a" + NUL: 1}))
    refused("header name 'X-A\\x00'", lambda: client.get(path, headers={"X-A" + NUL: "1"}))
    with pytest.raises(gatewire.InvalidArgument, match='header "X-A": the value contains NUL at byte 1'):
        client.get(path, headers={"X-A": "1" + NUL})  # a value reaches the library as JSON, which checks it
    assert sequence_count(client, key) == 0
    assert os.listdir(tmp_path) == []
    # A NUL in a parameter's value is percent-encoded, as any byte outside the unreserved set.
    echo = client.get("/echo", params={"q": "a" + NUL + "b"}).json()
    assert echo["query"] == {"q": "a" + NUL + "b"}


def test_the_clients_text_paths_and_config(server: str, library: str, tmp_path: Path) -> None:
    refused("base_url", lambda: gatewire.Client(server + NUL + "/x"))
    refused("config", lambda: gatewire.Client(config=json.dumps({"baseURL": server}) + NUL + "garbage"))
    refused("config", lambda: gatewire.check_config(json.dumps({"baseURL": server}) + NUL + "x"))
    refused("config_path", lambda: gatewire.Client(config_path=str(tmp_path / "c.json") + NUL))
    refused("cookies", lambda: gatewire.Client(server, cookies=str(tmp_path / "jar") + NUL + ".txt"))
    refused("cache['directory']", lambda: gatewire.Client(server, cache={"directory": str(tmp_path / "c") + NUL}))
    # The same paths inside a config dict reach the library as JSON ("\u0000"), which refuses them.
    with pytest.raises(gatewire.ConfigError, match=r"^cookies.file: the path contains NUL at byte \d+ \(C ends"):
        gatewire.Client(config={"baseURL": server, "cookies": {"file": str(tmp_path / "jar") + NUL + ".txt"}})
    with pytest.raises(gatewire.ConfigError, match=r"^cache.directory: the path contains NUL"):
        gatewire.Client(config={"baseURL": server, "cache": {"directory": str(tmp_path / "c") + NUL}})
    assert os.listdir(tmp_path) == []

    class Named(gatewire.Plugin):
        name = "tag" + NUL

    refused("plugin 0 name", lambda: gatewire.Client(server, plugins=[Named()]))


def test_the_credentials_text(library: str) -> None:
    def refresh(current: str | None) -> str | None:
        return None

    refused("token", lambda: gatewire.RefreshingCredential(refresh, token="t" + NUL + "rest"))
    refused("header", lambda: gatewire.RefreshingCredential(refresh, header="X-Token" + NUL))
    refused("prefix", lambda: gatewire.RefreshingCredential(refresh, prefix="Bearer" + NUL + " "))


def test_a_refreshed_token_with_nul_fails_the_refresh(server: str, library: str) -> None:
    realm = "nul-refresh"
    credential = gatewire.RefreshingCredential(lambda current: "t" + NUL + "rest")
    with gatewire.Client(server, credential=credential) as client:
        with pytest.raises(gatewire.AuthError):
            client.get(f"/auth/{realm}")
        rotations = json.loads(client.get(f"/auth/{realm}/rotations").body)
    assert rotations["rejected"] == 1  # the first 401 only: "t" was never sent as a token
    credential.close()


def test_plugin_hooks_refuse_text_with_nul(server: str, library: str, key: str) -> None:
    seen: list[str] = []

    class Probe(gatewire.Plugin):
        def prepare(self, request: gatewire.PreparedRequest) -> None:
            for name, probe in (("name", lambda: request.header("X-A" + NUL)),
                                ("value", lambda: request.set_header("X-A", "1" + NUL + "2")),
                                ("name", lambda: request.remove_header("X-A" + NUL)),
                                ("url", lambda: request.set_url(request.url + NUL + "/x"))):
                try:
                    probe()
                    seen.append(f"{name}: accepted")
                except gatewire.InvalidArgument as error:
                    seen.append(str(error))

        def did_receive(self, attempt: gatewire.AttemptInfo) -> None:
            try:
                attempt.header("Content-Type" + NUL)
            except gatewire.InvalidArgument as error:
                seen.append(str(error))

        def process(self, result: gatewire.FinalResult) -> None:
            for probe in (lambda: result.header("Content-Type" + NUL), lambda: result.fail("bad" + NUL + "x")):
                try:
                    probe()
                except gatewire.InvalidArgument as error:
                    seen.append(str(error))

    with gatewire.Client(server, plugins=[Probe()]) as client:
        result = client.get(f"/sequence/{key}/200")
    assert result.status == 200
    assert seen == ["name: embedded null byte", "value: embedded null byte", "name: embedded null byte",
                    "url: embedded null byte", "name: embedded null byte", "name: embedded null byte",
                    "message: embedded null byte"]


def test_a_plugins_exception_text_keeps_what_follows_a_nul(server: str, library: str, key: str) -> None:
    class Failing(gatewire.Plugin):
        def prepare(self, request: gatewire.PreparedRequest) -> None:
            raise RuntimeError("before" + NUL + "after")

    with gatewire.Client(server, plugins=[Failing()]) as client:
        with pytest.raises(gatewire.PluginError) as caught:
            client.get(f"/sequence/{key}/200")
    assert "RuntimeError: before\\x00after" in str(caught.value)
