"""Numbers the binding stores in narrower C fields, and waits without limit.

ctypes wraps an integer that does not fit its field (``c_int32(2**32 + 3)`` is 3: a call
with ``max_retries=2**32 + 3`` made 4 attempts, ``2**40`` one), so every such argument is
checked first and refused with :class:`gatewire.InvalidArgument` naming it and the range,
before anything is sent. A completion-queue wait of ``+inf`` waits until a result arrives,
as a negative one does (it stopped the process with SIGILL), through the C extension and
through ctypes; NaN is refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gatewire
from gatewire import _completions


def sequence_count(client: gatewire.Client, key: str) -> int:
    return int(json.loads(client.get(f"/sequence/{key}/count").body)["count"])


@pytest.mark.parametrize("value", [2**32 + 3, 2**40, -(2**31) - 1])
def test_max_retries_that_do_not_fit_are_refused_not_wrapped(client: gatewire.Client, key: str, value: int) -> None:
    with pytest.raises(gatewire.InvalidArgument) as caught:
        client.get(f"/sequence/{key}/503", max_retries=value, policy={"retry": {"initialDelay": 0.001}})
    assert str(caught.value) == (f"max_retries: {value} is out of range for the library's int32_t "
                                 "(-2147483648...2147483647)")
    assert sequence_count(client, key) == 0


def test_other_numeric_arguments(client: gatewire.Client, server: str, key: str) -> None:
    path = f"/sequence/{key}/200"
    with pytest.raises(gatewire.InvalidArgument, match=r"^download_max_bytes: 18446744073709551616 is out of range "
                                                       r"for the library's int64_t"):
        client.get(path, download_max_bytes=2**64)
    with pytest.raises(gatewire.InvalidArgument, match=r"^attempt_timeout: 1000+ is out of range for a double"):
        client.get(path, attempt_timeout=10**400)
    with pytest.raises(TypeError, match="max_retries must be an int, not float"):
        client.get(path, max_retries=1.5)
    # Within the C type, the library's own range and message.
    with pytest.raises(gatewire.InvalidArgument, match=r"^max_retries: 2147483647 is out of range \(-1 = "):
        client.get(path, max_retries=2**31 - 1)
    with pytest.raises(gatewire.InvalidArgument, match=r"^attempt_timeout: inf is out of range"):
        client.get(path, attempt_timeout=float("inf"))
    with pytest.raises(gatewire.InvalidArgument, match=r"^deadline: nan is out of range"):
        client.get(path, deadline=float("nan"))
    assert sequence_count(client, key) == 0
    for seed in (-1, 2**64):
        with pytest.raises(gatewire.InvalidArgument, match=rf"^random_seed: {seed} is out of range for the library's "
                                                           r"uint64_t \(0\.\.\.18446744073709551615\)"):
            gatewire.Client(server, random_seed=seed)
    with pytest.raises(gatewire.InvalidArgument, match=r"^max_refreshes: 4294967296 is out of range"):
        gatewire.RefreshingCredential(lambda current: None, max_refreshes=2**32)
    with pytest.raises(gatewire.InvalidArgument, match=r"^gw_credential_new: refresh_interval: nan is out of range"):
        gatewire.RefreshingCredential(lambda current: None, refresh_interval=float("nan"))
    # An id that wraps to a registered one must not remove it.
    observer_id = client.add_failure_observer(lambda error: None)
    with pytest.raises(gatewire.InvalidArgument, match=r"^observer_id: \d+ is out of range for the library's uint64_t"):
        client.remove_failure_observer(observer_id + 2**64)
    client.remove_failure_observer(observer_id)  # still registered


# Starts one queued call to /delay/200, then waits for it with the given timeout through the
# path under test; prints the status (the queue is empty when the wait starts).
_WAIT = r"""
import ctypes, sys
import gatewire
from gatewire import _completions, _exceptions, _native

server, timeout = sys.argv[1], float(sys.argv[2])
completions = _completions.Completions(4)
print("speedups" if _completions.speedups() is not None else "ctypes")
with gatewire.Client(server) as client:
    queue = ctypes.c_void_p()
    _exceptions.check(_native.lib.gw_queue_new(ctypes.byref(queue)))
    options = client._options("GET", "/delay/200", None, {})
    status, _ = completions.start_on(client._native, ctypes.addressof(options), queue.value, 7, False)
    assert status == _native.GW_OK, status
    taken = completions.take(queue.value, timeout)
    print([(tag, outcome.status) for tag, outcome in taken])
    try:
        completions.take(queue.value, float("nan"))
    except ValueError as error:
        print("NaN:", error)
    _native.lib.gw_queue_free(queue.value)
"""


@pytest.mark.parametrize("path", ["speedups", "ctypes"])
@pytest.mark.parametrize("timeout", ["inf", "-inf", "-1", "1e300"])
def test_a_queue_wait_without_limit_waits_for_the_result(server: str, library: str, path: str, timeout: str) -> None:
    if path == "speedups":
        assert _completions.speedups() is not None, "the C extension is not built next to the library"
    package_folder = str(Path(gatewire.__file__).resolve().parents[1])  # the binding this run imported
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([package_folder, os.environ.get("PYTHONPATH", "")]))
    if path == "ctypes":
        environment["GATEWIRE_NO_SPEEDUPS"] = "1"
    else:
        environment.pop("GATEWIRE_NO_SPEEDUPS", None)
    done = subprocess.run([sys.executable, "-c", _WAIT, server, timeout], env=environment, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [path, "[(7, 200)]",
                                        "NaN: timeout is NaN (0 = do not wait, < 0 or inf = no limit)"]
