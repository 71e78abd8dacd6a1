"""The shared mapping cases (``Tests/cases/mapping_cases.json``) through the Python
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
# The same file with a misspelt key in every object this runner reads.
MISSPELT_FILE = CASE_FILE.parent / "unknown_keys" / "mapping_cases.json"

# The keys this runner reads; any other key is a mistake that would check nothing.
CASE_KEYS = {"name", "decision", "config", "request", "expect"}
REQUEST_KEYS = {"route", "method", "path", "params", "body", "objectType", "allPages"}
EXPECT_KEYS = {"ok", "status", "mapped", "kind", "message", "keyPath", "errorObjects", "bodyPrefix", "at",
               "metadataSubset", "pages", "pageError"}
AT_KEYS = {"count", "first"}
PAGE_ERROR_KEYS = {"kind", "status"}


def unknown_keys(case: dict[str, Any]) -> list[str]:
    """Every key of ``case`` this runner does not read, as ``case "NAME": unknown key "PATH"``
    (PATH dotted from the case, e.g. ``expect.stauts``): the case, its request, its expect,
    each ``expect.at`` entry and ``expect.pageError``, in that order, each object's keys in
    file order."""
    found: list[tuple[str, str]] = []

    def check(value: Any, known: set[str], prefix: str) -> None:
        if isinstance(value, dict):
            found.extend((prefix, key) for key in value if key not in known)

    check(case, CASE_KEYS, "")
    check(case.get("request"), REQUEST_KEYS, "request.")
    expect = case.get("expect")
    check(expect, EXPECT_KEYS, "expect.")
    if isinstance(expect, dict):
        for key_path, want in (expect.get("at") or {}).items():
            check(want, AT_KEYS, f"expect.at.{key_path}.")
        check(expect.get("pageError"), PAGE_ERROR_KEYS, "expect.pageError.")
    return [f'case "{case.get("name", "?")}": unknown key "{prefix}{key}"' for prefix, key in found]


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


def test_every_case_uses_only_keys_the_runner_reads() -> None:
    assert [problem for case in CASES for problem in unknown_keys(case)] == []


def test_a_misspelt_key_is_named_with_its_case() -> None:
    cases = json.loads(MISSPELT_FILE.read_text(encoding="utf-8"))["cases"]
    assert [problem for case in cases for problem in unknown_keys(case)] == [
        'case "misspelt keys": unknown key "comment"',
        'case "misspelt keys": unknown key "request.parms"',
        'case "misspelt keys": unknown key "expect.stauts"',
        'case "misspelt keys": unknown key "expect.at.items.cout"',
        'case "misspelt keys": unknown key "expect.pageError.knd"',
    ]


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
    assert unknown_keys(case) == []
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


def test_a_nul_character_in_a_body_string_is_mapped_whole(server: str, library: str) -> None:
    # The server answers {"query": {"q": "a\u0000b"}}: valid JSON (RFC 8259, section 7).
    config = {"baseURL": server, "mappings": {"Query": {"attributes": {"q": "text"}}},
              "responseDescriptors": [{"mapping": "Query", "method": "GET", "pathPattern": "/echo", "keyPath": "query"}]}
    with gatewire.Client(config=config) as client:
        one = client.call("GET", "/echo?q=a%00b")  # the mapped JSON text through json.loads
        (many,) = client.call_many([{"method": "GET", "path": "/echo?q=a%00b"}])  # the extension's walk, if built
    for result in (one, many):
        assert isinstance(result, gatewire.Result)
        assert result.mapped == {"query": {"text": "a\x00b"}}
        assert result.json()["query"] == {"q": "a\x00b"}
