"""One reader of a native result (gatewire._reader): every path builds ``Result.mapped`` the
same way, from ``gw_result_mapped_walk`` with the extension (never from
``gw_result_mapped_json``'s text) and from that text without it, and both give what
``json.loads`` of that text gives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gatewire
from gatewire import _native

CONFIG: dict[str, Any] = {
    "mappings": {"Repo": {"attributes": {"id": "id", "full_name": "name", "private": "private",
                                         "owner.login": "owner", "topics": {"to": "topics", "type": "json"}}}},
    "responseDescriptors": [{"mapping": "Repo", "pathPattern": "/fixture/:name"}],
}


@pytest.mark.parametrize("speedups", [True, False], ids=["extension", "ctypes"])
def test_every_path_builds_the_mapped_objects_alike(
        server: str, library: str, monkeypatch: pytest.MonkeyPatch, speedups: bool) -> None:
    from gatewire import _completions, _reader

    _reader.speedups()  # bound to the library's real functions before one is wrapped below
    if not speedups:
        monkeypatch.setattr(_reader, "speedups", lambda: None)
        monkeypatch.setattr(_completions, "speedups", lambda: None)
    texts: list[int] = []
    real_text = _native.lib.gw_result_mapped_json
    with gatewire.Client(config={**CONFIG, "baseURL": server}) as client:
        monkeypatch.setattr(_native.lib, "gw_result_mapped_json", lambda pointer: texts.append(1) or real_text(pointer))
        outcomes = [client.get("/fixture/github-repository.json"),
                    client.call_async("GET", "/fixture/github-repository.json").result(timeout=10),
                    *client.call_many([{"method": "GET", "path": "/fixture/github-repository.json"}])]
        mapped = [outcome.mapped for outcome in outcomes]  # type: ignore[union-attr]
    assert texts == ([] if speedups else [1, 1, 1])
    repository = json.loads((Path(__file__).parents[1] / "fixtures" / "real" / "github-repository.json").read_text())
    want = {"id": repository["id"], "name": repository["full_name"], "private": repository["private"],
            "owner": repository["owner"]["login"], "topics": repository["topics"]}
    assert mapped == [{"": want}] * 3
