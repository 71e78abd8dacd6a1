"""Issue 3's shared mapping cases (``Tests/cases/mapping_cases.json``) through the Python
binding: the same table the Swift suite and the C test program run, so the binding cannot
drift from the core. One pytest case per table entry, against the session's test server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gatewire

CASE_FILE = Path(__file__).resolve().parents[1] / "cases" / "mapping_cases.json"
CASES = json.loads(CASE_FILE.read_text(encoding="utf-8"))["cases"]


def strict_equal(a: Any, b: Any) -> bool:
    """JSON equality without Python's 1 == 1.0 == True: types must match too."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


def test_the_case_file_covers_every_decision() -> None:
    assert len(CASES) >= 50
    assert {case["decision"] for case in CASES} == set(range(1, 12))


def _call(client: gatewire.Client, request: dict[str, Any]) -> gatewire.Result:
    extra: dict[str, Any] = {}
    if "body" in request:
        extra["json"] = request["body"]
    if "objectType" in request:
        extra["object_type"] = request["objectType"]
    params = request.get("params")
    if "route" in request:
        return client.call_route(request["route"], params=params, **extra)
    return client.call(request.get("method", "GET"), request.get("path"), params=params, **extra)  # type: ignore[arg-type]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_mapping_case(case: dict[str, Any], server: str, library: str) -> None:
    config = dict(case["config"], baseURL=server)
    request, expect = case["request"], case["expect"]
    with gatewire.Client(config=config) as client:
        if request.get("allPages"):
            pages: list[Any] = []
            error: gatewire.CallError | None = None
            iterator = client.pages(request["route"], params=request.get("params"))
            try:
                for page in iterator:
                    pages.append(page.mapped)
            except gatewire.CallError as failure:
                error = failure
            assert len(pages) == len(expect["pages"]), pages
            for got, want in zip(pages, expect["pages"]):
                assert strict_equal(got, want), (got, want)
            if "pageError" in expect:
                assert error is not None
                assert error.kind.name == expect["pageError"]["kind"]
                assert error.status == expect["pageError"]["status"]
                assert list(iterator) == []  # the walk has ended
            else:
                assert error is None
            return
        if expect.get("ok", True):
            result = _call(client, request)
            if "status" in expect:
                assert result.status == expect["status"]
            if "mapped" in expect:
                assert strict_equal(result.mapped, expect["mapped"]), (result.mapped, expect["mapped"])
            for key_path, want in expect.get("at", {}).items():
                if "count" in want:
                    assert result.count(key_path) == want["count"]
                if "first" in want:
                    assert strict_equal(result.first(key_path), want["first"])
            for key, want in expect.get("metadataSubset", {}).items():
                assert result.metadata is not None and strict_equal(result.metadata[key], want)
            return
        with pytest.raises(gatewire.CallError) as raised:
            _call(client, request)
        failure = raised.value
        if "status" in expect:
            assert failure.status == expect["status"]
        if "kind" in expect:
            assert failure.kind.name == expect["kind"]
        if "message" in expect:
            assert expect["message"] in str(failure.args[0])
        if "keyPath" in expect:
            assert str(failure.args[0]).startswith(expect["keyPath"] + ": ")
        if "errorObjects" in expect:
            assert strict_equal(failure.error_objects, expect["errorObjects"])
        if "bodyPrefix" in expect:
            assert failure.body.startswith(expect["bodyPrefix"].encode("utf-8"))
