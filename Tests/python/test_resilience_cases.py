"""The shared resilience cases (``Tests/cases/resilience_cases.json``) through the Python
binding. The Swift (``ResilienceCaseTests.swift``) and C (``test_resilience_cases.c``) runners
read the same file, so the three languages are held to the same attempt counts, kinds,
statuses, delays and failure-observer calls. The file's ``schema`` member documents the fields.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

import gatewire

CASES_FILE = Path(__file__).resolve().parents[1] / "cases" / "resilience_cases.json"
CASES: list[dict[str, Any]] = json.loads(CASES_FILE.read_text(encoding="utf-8"))["cases"]
EPSILON = 1e-6  # for delays read back from the attempt history
GAP_SLACK = 0.002  # seconds: rounding of start/duration offsets in the history
SETTLE = 0.3  # seconds waited after a cancelled call's completion
# The same file with a misspelt key in every object this runner reads.
MISSPELT_FILE = CASES_FILE.parent / "unknown_keys" / "resilience_cases.json"

# The keys this runner reads; any other key is a mistake that would check nothing.
CASE_KEYS = {"name", "about", "closed", "config", "calls", "base_path"}
CALL_KEYS = {"method", "path", "headers", "body", "policy", "sleep_before", "route", "params", "retry_test",
             "cancel_after", "expect"}
EXPECT_KEYS = {"ok", "kind", "status", "attempts", "observer_calls", "server_count", "delays", "attempt_statuses",
               "attempt_errors", "decisions", "min_elapsed", "max_elapsed", "redirects", "count_path", "echo",
               "echo_path", "body_length", "bytes_received", "message_contains", "refused"}
ECHO_KEYS = {"method", "path", "body", "headers_present", "headers_absent", "query", "query_absent"}
DELAY_KEYS = {"min_delay", "max_delay"}
BYTES_KEYS = {"min", "max"}


def unknown_keys(case: dict[str, Any]) -> list[str]:
    """Every key of ``case`` this runner does not read, as ``case "NAME": unknown key "PATH"``
    (PATH from the case, e.g. ``calls[0].expect.atempts``): the case, then per call the call,
    its expect, ``echo``, each ``delays`` bound and ``bytes_received``, each object's keys in
    file order."""
    found: list[str] = []

    def check(value: Any, known: set[str], prefix: str) -> None:
        if isinstance(value, dict):
            found.extend(prefix + key for key in value if key not in known)

    check(case, CASE_KEYS, "")
    for index, call in enumerate(case.get("calls") or []):
        where = f"calls[{index}]."
        check(call, CALL_KEYS, where)
        expect = call.get("expect") if isinstance(call, dict) else None
        check(expect, EXPECT_KEYS, where + "expect.")
        if isinstance(expect, dict):
            check(expect.get("echo"), ECHO_KEYS, where + "expect.echo.")
            for bound_index, bound in enumerate(expect.get("delays") or []):
                check(bound, DELAY_KEYS, f"{where}expect.delays[{bound_index}].")
            check(expect.get("bytes_received"), BYTES_KEYS, where + "expect.bytes_received.")
    return [f'case "{case.get("name", "?")}": unknown key "{path}"' for path in found]


def test_case_file_is_complete() -> None:
    names = [case["name"] for case in CASES]
    assert len(names) >= 16
    assert len(set(names)) == len(names), "case names must be unique"
    for case in CASES:
        assert case["calls"], case["name"]
        for call in case["calls"]:
            expect = call["expect"]
            if "refused" in expect:
                continue
            assert {"ok", "status", "attempts", "observer_calls"} <= expect.keys(), case["name"]
            assert expect["ok"] or "kind" in expect, case["name"]


def test_every_case_uses_only_keys_the_runner_reads() -> None:
    assert [problem for case in CASES for problem in unknown_keys(case)] == []


def test_a_misspelt_key_is_named_with_its_case() -> None:
    cases = json.loads(MISSPELT_FILE.read_text(encoding="utf-8"))["cases"]
    assert [problem for case in cases for problem in unknown_keys(case)] == [
        'case "misspelt keys": unknown key "comment"',
        'case "misspelt keys": unknown key "calls[0].retries"',
        'case "misspelt keys": unknown key "calls[0].expect.atempts"',
        'case "misspelt keys": unknown key "calls[0].expect.echo.methd"',
        'case "misspelt keys": unknown key "calls[0].expect.bytes_received.mx"',
    ]


class Observer:
    """The one failure observer per case: counts its calls and keeps the kinds it saw."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.kinds: list[str] = []

    def __call__(self, error: gatewire.CallError) -> None:
        with self.lock:
            self.kinds.append(str(error.kind))

    def snapshot(self) -> list[str]:
        with self.lock:
            return list(self.kinds)


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def substitute(value: Any, key: str) -> Any:
    if isinstance(value, str):
        return value.replace("{key}", key)
    if isinstance(value, dict):
        return {k: substitute(v, key) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, key) for v in value]
    return value


def check_echo(where: str, echo: dict[str, Any], expect: dict[str, Any]) -> None:
    """The final response is an /echo answer (``echo``, its JSON): what the last server
    received. The CLI's runner checks its output with this too."""
    headers, query = echo["headers"], echo["query"]
    for key in ("method", "path", "body"):
        if key in expect:
            assert echo[key] == expect[key], f"{where}: echo {key} {echo[key]!r}"
    for name in expect.get("headers_present", ()):
        assert name in headers, f"{where}: header {name} did not arrive: {sorted(headers)}"
    for name in expect.get("headers_absent", ()):
        assert name not in headers, f"{where}: header {name} arrived"
    for name, value in expect.get("query", {}).items():
        assert query.get(name) == value, f"{where}: query {name}: {query}"
    for name in expect.get("query_absent", ()):
        assert name not in query, f"{where}: query parameter {name} arrived"


def retry_after_or_1(attempt: gatewire.AttemptInfo) -> float | None:
    """The README's retry test: a 429 retries after its Retry-After seconds (1 when absent)."""
    if attempt.status == 429:
        return float(attempt.header("Retry-After") or 1)
    return None


RETRY_TESTS = {"retry_after_or_1": retry_after_or_1}


def count_path(path: str) -> str:
    """``/fault/<key>/...`` -> ``/fault/<key>/count`` (the same for /sequence)."""
    parts = path.split("?")[0].split("/")
    assert len(parts) >= 3 and parts[1] in ("fault", "sequence"), f"server_count needs a /fault or /sequence path: {path}"
    return f"/{parts[1]}/{parts[2]}/count"


@pytest.fixture
def server_count(server: str, library: str) -> Iterator[Callable[[str], int]]:
    """Requests the server saw for a call path's key, through a plain client (the breaker under
    test is per host and client)."""
    with gatewire.Client(server) as plain:
        yield lambda path: int(plain.call("GET", count_path(path)).json()["count"])


def run_call(client: gatewire.Client, call: dict[str, Any]) -> tuple[gatewire.Result | None, gatewire.CallError | None, float, int]:
    """Runs one call; returns (result, error, elapsed seconds, completions)."""
    arguments: dict[str, Any] = {"headers": call.get("headers"), "policy": call.get("policy"), "params": call.get("params")}
    if "retry_test" in call:
        arguments["retry_test"] = RETRY_TESTS[call["retry_test"]]
    if "body" in call:
        arguments["json"] = call["body"]
    method, path = call.get("method", "GET"), call.get("path", "")
    start = time.monotonic()
    if "route" in call:
        try:
            outcome: Any = client.call_route(call["route"], **arguments)
        except gatewire.CallError as error:
            outcome = error
        elapsed = time.monotonic() - start
        count = 1
    elif "cancel_after" in call:
        completions: list[Any] = []
        future = client.call_async(method, path, **arguments)
        future.add_done_callback(completions.append)
        time.sleep(call["cancel_after"])
        future.cancel()
        try:
            outcome = future.result(timeout=10)
        except gatewire.CallError as error:
            outcome = error
        elapsed = time.monotonic() - start
        time.sleep(SETTLE)  # would a second completion or a stray attempt follow?
        count = len(completions)
    else:
        try:
            outcome = client.call(method, path, **arguments)
        except gatewire.CallError as error:
            outcome = error
        elapsed = time.monotonic() - start
        count = 1
    if isinstance(outcome, gatewire.CallError):
        return None, outcome, elapsed, count
    return outcome, None, elapsed, count


def check_attempts(where: str, attempts: tuple[gatewire.Attempt, ...], expect: dict[str, Any]) -> None:
    if "attempt_statuses" in expect:
        assert [a.status for a in attempts] == expect["attempt_statuses"], f"{where}: attempt statuses"
    if "attempt_errors" in expect:
        assert [a.error for a in attempts] == expect["attempt_errors"], f"{where}: attempt errors"
    if "delays" in expect:
        bounds = expect["delays"]
        assert len(bounds) == len(attempts), f"{where}: one delay bound per attempt"
        for attempt, bound in zip(attempts, bounds):
            if bound is None:
                assert attempt.delay is None, f"{where}: attempt {attempt.attempt} delay {attempt.delay}, expected none"
            else:
                assert attempt.delay is not None, f"{where}: attempt {attempt.attempt} has no delay"
                assert bound["min_delay"] - EPSILON <= attempt.delay <= bound["max_delay"] + EPSILON, (
                    f"{where}: attempt {attempt.attempt} delay {attempt.delay} not in "
                    f"[{bound['min_delay']}, {bound['max_delay']}]"
                )
        for previous, following in zip(attempts, attempts[1:]):
            earliest = previous.start + previous.duration + (previous.delay or 0.0)
            assert following.start >= earliest - GAP_SLACK, (
                f"{where}: attempt {following.attempt} started at {following.start:.4f}, "
                f"before {earliest:.4f} (previous start + duration + delay)"
            )
    if "redirects" in expect:
        assert [[status for status, _ in a.redirects] for a in attempts] == expect["redirects"], f"{where}: redirects"
    if "decisions" in expect:
        assert len(expect["decisions"]) <= len(attempts), f"{where}: more decisions than attempts"
        for attempt, needle in zip(attempts, expect["decisions"]):
            if needle is not None:
                assert needle in attempt.decision, f"{where}: attempt {attempt.attempt} decision {attempt.decision!r} lacks {needle!r}"


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_resilience_case(case: dict[str, Any], server: str, library: str, server_count: Callable[[str], int]) -> None:
    assert unknown_keys(case) == []
    key = f"{case['name']}-py-{uuid.uuid4().hex[:10]}"
    base = (f"http://127.0.0.1:{closed_port()}" if case.get("closed") else server) + case.get("base_path", "")
    config = {"baseURL": base, **case.get("config", {})}
    observer = Observer()
    with gatewire.Client(config=config) as client:
        client.add_failure_observer(observer)
        for index, raw in enumerate(case["calls"], start=1):
            call = substitute(raw, key)
            expect = call["expect"]
            where = f"{case['name']} call {index} ({call.get('method', 'GET')} {call.get('path') or call.get('route')})"
            if "sleep_before" in call:
                time.sleep(call["sleep_before"])
            if "refused" in expect:
                with pytest.raises(gatewire.InvalidArgument) as refused:
                    run_call(client, call)
                assert expect["refused"] in str(refused.value), f"{where}: {refused.value}"
                if "server_count" in expect:
                    assert server_count(call["path"]) == expect["server_count"], f"{where}: server count"
                continue
            seen_before = len(observer.snapshot())
            result, error, elapsed, completions = run_call(client, call)
            seen = observer.snapshot()[seen_before:]

            assert completions == 1, f"{where}: {completions} completions"
            if expect["ok"]:
                assert error is None, f"{where}: expected success, got {error!r} attempts={error.attempts if error else ()}"
                assert result is not None
                status, attempts = result.status, result.attempts
                if "body_length" in expect:
                    assert len(result.body) == expect["body_length"], f"{where}: body length {len(result.body)}"
                if "echo_path" in expect:
                    assert result.json()["path"] == expect["echo_path"], f"{where}: the server saw {result.json()['path']}"
                    reported = result.path.split("?")[0]
                    assert case.get("base_path", "") + reported == expect["echo_path"], f"{where}: reported {result.path}"
            else:
                assert error is not None, f"{where}: expected failure {expect['kind']}, got success {result!r}"
                assert str(error.kind) == expect["kind"], f"{where}: kind {error.kind}: {error.message}"
                status, attempts = error.status, error.attempts
                if "message_contains" in expect:
                    assert expect["message_contains"] in error.message, f"{where}: message {error.message!r}"
            assert status == expect["status"], f"{where}: status"
            assert len(attempts) == expect["attempts"], f"{where}: attempts {[(a.status, a.error, a.decision) for a in attempts]}"
            assert len(seen) == expect["observer_calls"], f"{where}: observer saw {seen}"
            if seen and not expect["ok"]:
                assert seen == [expect["kind"]], f"{where}: observer saw {seen}"
            check_attempts(where, attempts, expect)
            if "echo" in expect:
                assert result is not None, f"{where}: no response to read the echo from"
                check_echo(where, result.json(), expect["echo"])
            if "bytes_received" in expect:
                received = attempts[-1].bytes_received if attempts else -1
                bound = expect["bytes_received"]
                assert bound["min"] <= received <= bound["max"], f"{where}: the last attempt received {received} bytes"
            if "min_elapsed" in expect:
                assert elapsed >= expect["min_elapsed"], f"{where}: took {elapsed:.3f} s"
            if "max_elapsed" in expect:
                assert elapsed <= expect["max_elapsed"], f"{where}: took {elapsed:.3f} s"
            if "server_count" in expect:
                counted = expect.get("count_path", call["path"])
                assert server_count(counted) == expect["server_count"], f"{where}: server count of {counted}"
