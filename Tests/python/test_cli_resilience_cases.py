"""The shared resilience cases (``Tests/cases/resilience_cases.json``) through the `gatewire`
command line, as a user runs it: one ``gatewire call --config FILE --verbose`` process a
call, its options translated from the case's (``--header``, ``--param``, ``--body``, and the
per-call policy's ``retry.maxRetries``, ``redirects`` and ``maxResponseBytes`` as
``--max-retries``, ``--redirects``, ``--max-redirects`` and ``--max-response-bytes``). The
Swift, C and Python runners read the same file, so the CLI is held to the same attempt
counts, kinds, statuses, delays, decisions, redirects and failure-observer calls.

What the CLI shows is read back: stdout's body (a success) or error JSON (kind, status,
message, attempt count); with --verbose, stderr's line per attempt ("attempt 2: status 503
after 0.012s; followed 302 to URL; retrying in 0.400s (why)") and per failure-observer call.
The last attempt's ``bytes_received`` is not printed, so ``expect.bytes_received`` is left
to the other runners. A case the command line cannot express runs elsewhere only, for the
reason :func:`unsupported` gives; every other case runs here.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest
from test_resilience_cases import CASES, check_echo, closed_port, count_path, substitute, unknown_keys

# Delays are printed to the millisecond ("retrying in 0.400s").
PRINTED_DELAY = 0.0005 + 1e-6
# A per-call policy of only these shapes has a CLI option; any other has none.
POLICY_OPTIONS = {"retry": {"maxRetries"}, "redirects": {"follow", "max"}, "maxResponseBytes": None}
FOLLOW = {"none": "none", "sameOrigin": "same-origin", "any": "any"}
# Cases about a kept-alive connection one call leaves to the next ("about" says so): a
# process a call opens a new one each time.
SHARED_CONNECTION = {
    "wire_folded_first_line_after_a_retryable_503", "wire_folded_first_line_bare_lf_after_a_retryable_503",
    "wire_folded_first_line_after_a_200_on_the_same_connection", "wire_timeout_on_a_reused_connection_is_a_timeout",
    "wire_timeout_after_a_warm_up_post_not_retried", "wire_reset_reused_connection_get_is_a_recorded_retry",
    "wire_reset_reused_connection_post_with_idempotency_key_is_a_recorded_retry",
    "wire_reset_post_without_idempotency_key_is_sent_once",
}
ATTEMPT = re.compile(r"^attempt (\d+): (?:status (\d+)|([a-z_]+) \(.*?\)) after [0-9.]+s"
                     r"(?:; followed (.*?))?(?:; retrying in ([0-9.]+)s \((.*)\)|; stopping \((.*)\))?$")


def unsupported(case: dict[str, Any]) -> str | None:
    """Why ``case`` cannot run through the command line, or None."""
    config = case.get("config", {})
    calls = case["calls"]
    if len(calls) > 1 and ({"retryBudget", "circuitBreaker"} & config.keys()):
        return "its calls share the client's retry budget or circuit breaker (one process a call)"
    if case["name"] in SHARED_CONNECTION:
        return "a call answers on the connection an earlier call left open (one process a call)"
    for call in calls:
        for key in ("retry_test", "cancel_after"):
            if key in call:
                return f"a call's {key} (no CLI option)"
        for name, value in (call.get("policy") or {}).items():
            if name not in POLICY_OPTIONS:
                return f"the per-call policy's {name} (no CLI option)"
            keys = POLICY_OPTIONS[name]
            if keys is not None and not set(value) <= keys:
                return f"the per-call policy's {name}.{sorted(set(value) - keys)[0]} (no CLI option)"
    return None


def arguments(call: dict[str, Any]) -> list[str]:
    """The `gatewire call` arguments after --config for ``call``."""
    args = [call["route"]] if "route" in call else [call.get("method", "GET"), call.get("path", "")]
    for name, value in (call.get("headers") or {}).items():
        args += ["--header", f"{name}: {value}"]
    for name, value in (call.get("params") or {}).items():
        args += ["--param", f"{name}={value}"]
    if "body" in call:
        args += ["--body", json.dumps(call["body"])]
    policy = call.get("policy") or {}
    if "maxRetries" in policy.get("retry", {}):
        args += ["--max-retries", str(policy["retry"]["maxRetries"])]
    redirects = policy.get("redirects", {})
    if "follow" in redirects:
        args += ["--redirects", FOLLOW[redirects["follow"]]]
    if "max" in redirects:
        args += ["--max-redirects", str(redirects["max"])]
    if "maxResponseBytes" in policy:
        args += ["--max-response-bytes", str(policy["maxResponseBytes"])]
    return args + ["--verbose"]


def parse_attempts(where: str, stderr: str) -> list[dict[str, Any]]:
    """The --verbose attempt lines: number, status (0 for a failed transfer), error kind,
    redirect statuses, delay and decision."""
    attempts = []
    for line in stderr.splitlines():
        if not line.startswith("attempt "):
            continue
        match = ATTEMPT.match(line)
        assert match, f"{where}: unreadable attempt line {line!r}"
        number, status, kind, followed, delay, retry_reason, stop_reason = match.groups()
        assert int(number) == len(attempts) + 1, f"{where}: attempt lines out of order: {stderr}"
        hops = [int(hop.split(" ", 1)[0]) for hop in followed.split(", ")] if followed else []
        attempts.append({"status": int(status) if status else 0, "error": kind, "redirects": hops,
                         "delay": float(delay) if delay else None, "decision": retry_reason or stop_reason or "",
                         "line": line})
    return attempts


def check_attempts(where: str, attempts: list[dict[str, Any]], expect: dict[str, Any]) -> None:
    if "attempt_statuses" in expect:
        assert [a["status"] for a in attempts] == expect["attempt_statuses"], f"{where}: attempt statuses"
    if "attempt_errors" in expect:
        assert [a["error"] for a in attempts] == expect["attempt_errors"], f"{where}: attempt errors"
    if "delays" in expect:
        assert len(expect["delays"]) == len(attempts), f"{where}: one delay bound per attempt"
        for attempt, bound in zip(attempts, expect["delays"]):
            if bound is None:
                assert attempt["delay"] is None, f"{where}: {attempt['line']}: expected no delay"
            else:
                assert attempt["delay"] is not None, f"{where}: {attempt['line']}: no delay"
                assert bound["min_delay"] - PRINTED_DELAY <= attempt["delay"] <= bound["max_delay"] + PRINTED_DELAY, (
                    f"{where}: {attempt['line']}: delay not in [{bound['min_delay']}, {bound['max_delay']}]")
    if "redirects" in expect:
        assert [a["redirects"] for a in attempts] == expect["redirects"], f"{where}: redirects"
    if "decisions" in expect:
        assert len(expect["decisions"]) <= len(attempts), f"{where}: more decisions than attempts"
        for attempt, needle in zip(attempts, expect["decisions"]):
            if needle is not None:
                assert needle in attempt["decision"], f"{where}: {attempt['line']} lacks {needle!r}"


def server_count(server: str, path: str) -> int:
    with urllib.request.urlopen(server + count_path(path), timeout=10) as answer:
        return int(json.load(answer)["count"])


# The cases a command line cannot express (a retry test, a cancel, state shared between
# calls, ...) are left out of the parametrisation rather than skipped: the suite treats any
# skip as a failure (gw_no_skip). test_every_case_is_run_or_named_unexpressible keeps the
# split honest.
EXPRESSIBLE = [case for case in CASES if not unsupported(case)]


def test_every_case_is_run_or_named_unexpressible() -> None:
    left_out = {case["name"]: unsupported(case) for case in CASES if unsupported(case)}
    assert len(EXPRESSIBLE) + len(left_out) == len(CASES)
    assert all(reason for reason in left_out.values())
    assert len(EXPRESSIBLE) >= 40, f"only {len(EXPRESSIBLE)} cases run through the CLI; left out: {left_out}"


@pytest.mark.parametrize("case", EXPRESSIBLE, ids=[case["name"] for case in EXPRESSIBLE])
def test_resilience_case_through_the_cli(case: dict[str, Any], cli: str, server: str, tmp_path: Path) -> None:  # noqa: F811
    assert unknown_keys(case) == []
    key = f"{case['name']}-cli-{uuid.uuid4().hex[:10]}"
    base = (f"http://127.0.0.1:{closed_port()}" if case.get("closed") else server) + case.get("base_path", "")
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"baseURL": base, **case.get("config", {})}), encoding="utf-8")
    for index, raw in enumerate(case["calls"], start=1):
        call = substitute(raw, key)
        expect = call["expect"]
        where = f"{case['name']} call {index} ({call.get('method', 'GET')} {call.get('path') or call.get('route')})"
        if "sleep_before" in call:
            time.sleep(call["sleep_before"])
        start = time.monotonic()
        done = subprocess.run([cli, "call", "--config", str(config), *arguments(call)],
                              capture_output=True, timeout=120)
        elapsed = time.monotonic() - start
        stdout, stderr = done.stdout, done.stderr.decode("utf-8", "replace")
        if "refused" in expect:
            # Refused before anything is sent: a usage error (exit 2, the reason on stderr),
            # whether the CLI checks the option itself (--header) or the core refuses the
            # request (its invalid_argument before any attempt).
            assert (done.returncode, stdout) == (2, b""), f"{where}: exit {done.returncode}: {stdout[:200]!r}"
            assert expect["refused"] in stderr, f"{where}: {stderr}"
            if "server_count" in expect:
                assert server_count(server, call["path"]) == expect["server_count"], f"{where}: server count"
            continue
        assert done.returncode in (0, 1, 2), f"{where}: exit {done.returncode}: {stderr}"
        attempts = parse_attempts(where, stderr)
        observed = re.findall(r"^observer: call failed: kind=(\S+) ", stderr, re.MULTILINE)
        if expect["ok"]:
            assert done.returncode == 0, f"{where}: expected success, got {stdout!r} {stderr}"
            status = attempts[-1]["status"] if attempts else -1
            if "body_length" in expect:
                assert len(stdout) - 1 == expect["body_length"], f"{where}: body length {len(stdout) - 1}"
            if "echo_path" in expect:
                assert json.loads(stdout)["path"] == expect["echo_path"], f"{where}: the server saw {stdout[:200]!r}"
        elif expect["kind"] == "invalid_argument" and expect["attempts"] == 0:
            # The core refused to build the request: a usage error, its reason on stderr.
            assert (done.returncode, stdout) == (2, b""), f"{where}: exit {done.returncode}: {stdout[:200]!r}"
            status = 0
            if "message_contains" in expect:
                assert expect["message_contains"] in stderr, f"{where}: {stderr}"
        else:
            assert done.returncode == 1, f"{where}: expected failure {expect['kind']}, got success {stdout[:200]!r}"
            error = json.loads(stdout)
            assert error["kind"] == expect["kind"], f"{where}: kind {error['kind']}: {error['message']}"
            assert error["attempts"] == len(attempts), f"{where}: {error['attempts']} attempts, {len(attempts)} lines"
            status = error["status"]
            if "message_contains" in expect:
                assert expect["message_contains"] in error["message"], f"{where}: message {error['message']!r}"
        assert status == expect["status"], f"{where}: status"
        assert len(attempts) == expect["attempts"], f"{where}: attempts {[a['line'] for a in attempts]}"
        assert len(observed) == expect["observer_calls"], f"{where}: observer saw {observed}"
        if observed and not expect["ok"]:
            assert observed == [expect["kind"]], f"{where}: observer saw {observed}"
        check_attempts(where, attempts, expect)
        if "echo" in expect:
            check_echo(where, json.loads(stdout), expect["echo"])
        if "min_elapsed" in expect:
            assert elapsed >= expect["min_elapsed"], f"{where}: took {elapsed:.3f} s"
        if "max_elapsed" in expect:
            assert elapsed <= expect["max_elapsed"], f"{where}: took {elapsed:.3f} s"
        if "server_count" in expect:
            counted = expect.get("count_path", call["path"])
            assert server_count(server, counted) == expect["server_count"], f"{where}: server count of {counted}"
