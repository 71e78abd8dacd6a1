"""The optional C extension (gatewire._speedups) and the ctypes path give the same outcomes.

Where this interpreter has its headers, scripts/build.sh builds the extension next to the
library, so the suite's own calls go through it; each case here also runs in a child process
with GATEWIRE_NO_SPEEDUPS=1 (ctypes alone) and the two must agree field by field.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import gatewire
from gatewire import _completions, _exceptions, _native

# What each path prints: the outcomes of call_many and of AsyncClient for the same calls.
_PROGRAM = r"""
import asyncio, json, sys
import gatewire
from gatewire import _completions

server, closed = sys.argv[1], sys.argv[2]
calls = [
    {"method": "GET", "path": "/echo", "params": {"i": 1}, "headers": {"X-Probe": "p"}},
    {"method": "GET", "path": "/status/418"},
    {"method": "GET", "path": "/status/404", "accept_any_status": True},
    {"method": "POST", "path": "/echo", "json": {"name": "Ann"}},
    {"route": "nope"},
]

def describe(outcome):
    if isinstance(outcome, gatewire.Result):
        body = outcome.json()
        if isinstance(body, dict):
            body.pop("headers", None)  # the User-Agent and connection fields differ per process
        return {"type": "Result", "status": outcome.status, "method": outcome.method, "path": outcome.path,
                "body": body, "content_type": outcome.header("content-type"),
                "attempts": [a.status for a in outcome.attempts], "mapped": outcome.mapped,
                "metadata": outcome.metadata, "from_cache": outcome.from_cache}
    return {"type": type(outcome).__name__, "kind": str(getattr(outcome, "kind", "")),
            "status": getattr(outcome, "status", None), "path": getattr(outcome, "path", None),
            "attempts": [a.status for a in getattr(outcome, "attempts", ())]}

with gatewire.Client(server) as client:
    many = [describe(o) for o in client.call_many(calls, in_flight=3)]
with gatewire.Client(f"http://127.0.0.1:{closed}", timeout=2) as client:
    many += [describe(o) for o in client.call_many([{"method": "GET", "path": "/x", "max_retries": 0}])]

async def main():
    async with gatewire.AsyncClient(server) as client:
        outcomes = []
        for call in calls:
            spec = dict(call)
            route = spec.pop("route", None)
            try:
                if route:
                    outcomes.append(describe(await client.call_route(route, **spec)))
                else:
                    outcomes.append(describe(await client.call(spec.pop("method"), spec.pop("path"), **spec)))
            except gatewire.GatewireError as error:
                outcomes.append(describe(error))
        return outcomes

print(json.dumps({"speedups": _completions.speedups() is not None, "many": many, "async": asyncio.run(main())}))
"""


def _run(server: str, closed_port: int, library: str, *, speedups: bool) -> dict[str, Any]:
    env = dict(os.environ, GATEWIRE_LIB=library)
    env.pop("GATEWIRE_NO_SPEEDUPS", None)
    if not speedups:
        env["GATEWIRE_NO_SPEEDUPS"] = "1"
    done = subprocess.run([sys.executable, "-c", _PROGRAM, server, str(closed_port)], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _built_here(library: str) -> bool:
    """Whether scripts/build.sh built the extension next to ``library`` for this interpreter."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    return (Path(os.path.realpath(library)).parent / f"_speedups{suffix}").exists()


def test_the_extension_and_ctypes_give_the_same_outcomes(server: str, closed_port: int, library: str) -> None:
    fast = _run(server, closed_port, library, speedups=True)
    slow = _run(server, closed_port, library, speedups=False)

    assert slow["speedups"] is False
    assert fast["speedups"] is _built_here(library)
    assert fast["many"] == slow["many"]
    assert fast["async"] == slow["async"]
    echo, teapot, accepted, posted, unknown, refused = fast["many"]
    assert (echo["type"], echo["status"], echo["body"]["query"], echo["attempts"]) == ("Result", 200, {"i": "1"}, [200])
    assert echo["content_type"].startswith("application/json") and echo["from_cache"] is False
    assert (teapot["type"], teapot["status"], teapot["path"]) == ("HTTPStatusError", 418, "/status/418")
    assert (accepted["type"], accepted["status"]) == ("Result", 404)
    assert (posted["status"], posted["method"], posted["body"]["body"]) == (200, "POST", {"name": "Ann"})
    assert (unknown["type"], unknown["kind"]) == ("InvalidRequest", "invalid_argument")
    assert (refused["type"], refused["kind"], refused["status"]) == ("ConnectionFailed", "connect", 0)
    assert [o["type"] for o in fast["async"]] == ["Result", "HTTPStatusError", "Result", "Result", "InvalidRequest"]


def test_the_suite_runs_on_the_extension_where_it_was_built(library: str) -> None:
    # A build that has the headers must give the binding its extension: a broken extension
    # would otherwise only make everything slower, silently.
    if not _built_here(library):
        pytest.skip(f"no extension was built next to {library} (no Python.h for {sys.executable})")
    if os.environ.get("GATEWIRE_NO_SPEEDUPS"):
        pytest.skip("GATEWIRE_NO_SPEEDUPS is set")
    module = _completions.speedups()
    assert module is not None
    assert Path(module.__file__ or "").parent == Path(os.path.realpath(library)).parent


def test_the_extension_refuses_bad_arguments(library: str) -> None:
    module = _completions.speedups()
    if module is None:
        pytest.skip("the extension is not built for this interpreter")
    with pytest.raises(ValueError, match="function addresses"):
        module.bind((1, 2), gatewire.Result, object(), print)
    with pytest.raises(TypeError):
        module.bind((1, 2), gatewire.Result, object(), None)
    with pytest.raises(ValueError, match="capacity"):
        module.take(1, 0.0, 0)
    with pytest.raises(TypeError):
        module.start(0, 0, 0)
    queue = _native.ctypes.c_void_p()
    _exceptions.check(_native.lib.gw_queue_new(_native.ctypes.byref(queue)))
    try:
        # An empty queue, no wait: nothing taken.
        assert module.take(queue.value, 0.0, 8) == []
        # A NULL client is the library's invalid argument, not a crash.
        options = _native.gw_call_options_v4()
        options.version = _native.GW_CALL_OPTIONS_VERSION_4
        status, call = module.start(None, _native.ctypes.addressof(options), queue.value, 1, False)
        assert status == _native.GW_ERROR_INVALID_ARGUMENT and call == 0
    finally:
        _native.lib.gw_queue_free(queue.value)
    module.release(0)  # nothing to free: no crash


@pytest.mark.parametrize("fixture", ["github-repository.json", "twitter-tweet-unicode-emoji.json",
                                     "twitter-ids-cursor-bigint.json", "stripe-charge.json"])
def test_the_extension_builds_mapped_objects_equal_to_the_json_text(server: str, library: str, fixture: str) -> None:
    # Every value of a real payload, kept whole ("type": "json"), built by the extension's
    # walk and parsed from gw_result_mapped_json's text: the same objects, key order included.
    module = _completions.speedups()
    if module is None:
        pytest.skip("the extension is not built for this interpreter")
    config = {"baseURL": server, "mappings": {"Whole": {"attributes": {"": {"to": "whole", "type": "json"}}}},
              "responseDescriptors": [{"mapping": "Whole", "pathPattern": "/fixture/:name"}]}
    with gatewire.Client(config=config) as client:
        (result,) = client.call_many([{"method": "GET", "path": f"/fixture/{fixture}"}])
    assert isinstance(result, gatewire.Result)
    raw = result._raw
    assert isinstance(raw, module.NativeResult)
    text = _native.lib.gw_result_mapped_json(raw.pointer)
    built = result.mapped
    parsed = json.loads(text)
    assert built == parsed
    assert json.dumps(built) == json.dumps(parsed)  # the same key order and number types
    assert built is not None and built[""]["whole"] == json.loads(Path(_FIXTURES, fixture).read_bytes())


_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def test_async_calls_racing_with_close_end_as_results_or_errors(server: str, library: str) -> None:
    # Four threads, each with its own asyncio loop, keep starting calls while the client is
    # closed from this thread: with the extension the handle is read and the call started in
    # one C call (no lock), so each start either ran or found the client closed; no crash.
    for round_number in range(5):
        client = gatewire.AsyncClient(server)
        outcomes: list[object] = []
        lock = threading.Lock()

        async def keep_calling() -> None:
            while True:
                try:
                    outcome: object = await client.get("/delay/5", max_retries=0)
                except gatewire.GatewireError as error:
                    outcome = error
                with lock:
                    outcomes.append(outcome)
                if type(outcome) is gatewire.GatewireError:
                    return  # closed

        threads = [threading.Thread(target=asyncio.run, args=(keep_calling(),), daemon=True) for _ in range(4)]
        for thread in threads:
            thread.start()
        time.sleep(0.05 + 0.02 * round_number)
        asyncio.run(client.aclose())
        for thread in threads:
            thread.join(timeout=10)
        assert not any(thread.is_alive() for thread in threads)
        assert outcomes
        kinds = {type(outcome).__name__ for outcome in outcomes}
        assert kinds <= {"Result", "Cancelled", "GatewireError"}, kinds
        closed = [o for o in outcomes if type(o) is gatewire.GatewireError]
        assert len(closed) == 4 and all("closed" in str(o) for o in closed)
