"""Debian's ``redis-server``, started by a test on a free loopback port, for the fleet tests
(and three of them as one Redis Cluster: ``RedisClusterProcesses``).

No persistence (``--save '' --appendonly no``), its files and log in a temporary folder of its
own. A missing ``redis-server`` fails the test (``pytest.fail``), never skips it. Stopped by
PID (SIGCONT, then SIGTERM, SIGKILL after 5 s) in ``stop()``; ``signal()`` sends SIGSTOP,
SIGCONT or SIGKILL, and ``restart()`` starts it again on the same port (its data gone).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest


class RedisProcess:
    def __init__(self, cluster: bool = False) -> None:
        """Starts the server; with ``cluster``, in cluster mode (its nodes.conf in its folder)."""
        if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
            pytest.fail("redis-server and redis-cli are needed (bash scripts/bootstrap.sh installs them)")
        self.directory = Path(tempfile.mkdtemp(prefix="gatewire-redis-"))
        self.process: subprocess.Popen[bytes] | None = None
        self.cluster = ["--cluster-enabled", "yes", "--cluster-config-file", str(self.directory / "nodes.conf"),
                        "--cluster-node-timeout", "5000"] if cluster else []
        for _ in range(5):  # redis-server 7.0 cannot listen on port 0: take one just freed
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                s.bind(("127.0.0.1", 0))
                self.port = s.getsockname()[1]
            if self._launch():
                return
        self.stop()
        pytest.fail(f"redis-server did not start: {self._log()[-2000:]}")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def _log(self) -> str:
        path = self.directory / "redis.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def _launch(self) -> bool:
        """Starts the server and waits (at most 20 s) for it to accept connections."""
        (self.directory / "redis.log").unlink(missing_ok=True)
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.directory), "--logfile", str(self.directory / "redis.log"), "--daemonize", "no",
             *self.cluster],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if "Ready to accept connections" in self._log():
                return True
            if self.process.poll() is not None:
                return False
            time.sleep(0.02)
        self.process.kill()
        self.process.wait(timeout=10)
        return False

    def signal(self, number: int) -> None:
        """Sends ``number`` to the server; SIGKILL also reaps it."""
        if self.process is None:
            return
        os.kill(self.process.pid, number)
        if number == signal.SIGKILL:
            self.process.wait(timeout=10)
            self.process = None

    def restart(self) -> None:
        """Starts the server again on the same port (after SIGKILL)."""
        if not self._launch():
            pytest.fail(f"redis-server did not restart: {self._log()[-2000:]}")

    def stop(self) -> None:
        if self.process is not None:
            os.kill(self.process.pid, signal.SIGCONT)
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
            self.process = None
        shutil.rmtree(self.directory, ignore_errors=True)

    def cli(self, *arguments: str) -> str:
        """``redis-cli -p PORT ARGUMENTS...``'s output (bounded by 20 s)."""
        done = subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(self.port), *arguments],
                              capture_output=True, text=True, timeout=20, check=True)
        return done.stdout

    def keys(self) -> list[str]:
        """Every key, by ``SCAN`` (never ``KEYS``)."""
        return [k for k in self.cli("--scan").splitlines() if k]

    def keys_without_expiry(self) -> list[str]:
        """The keys whose ``PTTL`` is -1 (no expiry); a key gone meanwhile (-2) is fine."""
        return [k for k in self.keys() if self.cli("PTTL", k).strip() == "-1"]


class RedisClusterProcesses:
    """Three ``RedisProcess`` nodes in cluster mode made one Redis Cluster of 3 primaries (no
    replicas) by ``redis-cli --cluster create``; ready once every node says ``cluster_state:ok``
    (waited for at most 30 s). ``stop()`` stops every node."""

    def __init__(self) -> None:
        self.nodes: list[RedisProcess] = []
        try:
            for _ in range(3):
                self.nodes.append(RedisProcess(cluster=True))
            created = subprocess.run(["redis-cli", "--cluster", "create", *self.addresses, "--cluster-yes"],
                                     capture_output=True, text=True, timeout=60)
            if "[OK] All 16384 slots covered" not in created.stdout:
                pytest.fail(f"redis-cli --cluster create failed: {created.stdout}{created.stderr}")
            deadline = time.monotonic() + 30
            while not all("cluster_state:ok" in node.cli("CLUSTER", "INFO") for node in self.nodes):
                if time.monotonic() > deadline:
                    pytest.fail("the cluster did not reach cluster_state:ok within 30 s")
                time.sleep(0.1)
        except BaseException:
            self.stop()
            raise

    @property
    def addresses(self) -> list[str]:
        """Each node's ``host:port``, as ``sharedState.redisCluster`` lists them."""
        return [f"127.0.0.1:{node.port}" for node in self.nodes]

    def keys_without_expiry(self) -> list[str]:
        """The keys without an expiry, on every node."""
        return [key for node in self.nodes for key in node.keys_without_expiry()]

    def keys(self) -> list[str]:
        """Every key, on every node."""
        return [key for node in self.nodes for key in node.keys()]

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
