"""The fleet of ``test_fleet.py`` with its circuit breakers shared through a Redis Cluster of 3
primaries (``sharedState.redisCluster``, seeded with one node): the breaker's keys carry one
hash tag, so its script runs on the one primary of their slot, which the clients find through
``CLUSTER SLOTS`` and ``MOVED``. The same bounds as with one Redis; no key without an expiry
on any node.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Callable, Iterator

import pytest
from redis_process import RedisClusterProcesses
from test_cli_basics import cli, run  # noqa: F401 (cli is a fixture)
from test_fleet import FLEET, THRESHOLD, breaker, run_fleet, total

import gatewire


@pytest.fixture
def cluster() -> Iterator[RedisClusterProcesses]:
    servers = RedisClusterProcesses()
    try:
        yield servers
    finally:
        servers.stop()


def test_a_breaker_shared_through_a_cluster_opens_for_the_fleet(
    server: str, library: str, cluster: RedisClusterProcesses, sequence_count: Callable[[str], int]
) -> None:
    key = uuid.uuid4().hex[:12]
    config = {"baseURL": server, "retry": {"maxRetries": 0}, "circuitBreaker": breaker(30),
              # One seed: the clients learn the other primaries from it.
              "sharedState": {"redisCluster": cluster.addresses[:1], "keyPrefix": f"fleet-{uuid.uuid4().hex[:8]}:"}}
    reports = run_fleet(config, f"/sequence/{key}/503", "open:20")
    received = sequence_count(key)
    print(f"cluster: the backend received {received} calls; per instance {[r['kinds'] for r in reports]}")
    assert THRESHOLD <= received <= THRESHOLD + 2 * FLEET
    assert total(reports, "503") == received
    assert all(report["kinds"].get("circuit_open", 0) >= 20 for report in reports)
    assert sum(report["log"].count("opened for every client") for report in reports) == 1
    # The breaker's state lives on one primary (its slot's), with an expiry.
    holders = [node.port for node in cluster.nodes if any(k.endswith(":state") for k in node.keys())]
    assert len(holders) == 1, holders
    assert cluster.keys_without_expiry() == []


def test_gatewire_state_reads_every_primary_of_the_cluster(
    server: str, library: str, cli: str, cluster: RedisClusterProcesses, tmp_path: Path  # noqa: F811
) -> None:
    key = uuid.uuid4().hex[:12]
    config = {"baseURL": server, "retry": {"maxRetries": 0}, "circuitBreaker": breaker(30),
              "sharedState": {"redisCluster": cluster.addresses[:1], "keyPrefix": f"state-{uuid.uuid4().hex[:8]}:",
                              "timeout": 1}}
    # Twelve limits (one policy each: twelve hash tags) spread over the three primaries.
    with gatewire.Client(config=config) as client:
        for requests in range(100, 112):
            client.call("GET", f"/sequence/{key}/200", policy={"rateLimit": {"requests": requests, "per": 3600}})
        from_python = client.shared_state()
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    result = run(cli, "state", "--config", str(path))
    print(result.stdout)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    tats = sorted(k for k in cluster.keys() if k.endswith(":tat"))
    holders = {node.port for node in cluster.nodes if any(k.endswith(":tat") for k in node.keys())}
    assert len(tats) == 12 and len(holders) >= 2, (tats, holders)
    limits = [line for line in lines if line["type"] == "rate_limit"]
    assert len(limits) == 12 and len({line["policy"] for line in limits}) == 12
    assert [line["type"] for line in lines].count("circuit_breaker") == 1
    assert [line["type"] for line in from_python] == [line["type"] for line in lines]
    # Each limit is booked ahead by what its lease took (a slot or two, 36 s each at 100 an
    # hour), written to the millisecond.
    assert all(30 < line["ahead"] <= 72 for line in limits), limits
    assert all(re.fullmatch(r"\d+(\.\d{1,3})?", text) for text in re.findall(r'"ahead":([^,}]+)', result.stdout))
