"""The fleet of ``test_fleet.py`` with its circuit breakers shared through a Redis Cluster of 3
primaries (``sharedState.redisCluster``, seeded with one node): the breaker's keys carry one
hash tag, so its script runs on the one primary of their slot, which the clients find through
``CLUSTER SLOTS`` and ``MOVED``. The same bounds as with one Redis; no key without an expiry
on any node.
"""

from __future__ import annotations

import uuid
from typing import Callable, Iterator

import pytest
from redis_process import RedisClusterProcesses
from test_fleet import FLEET, THRESHOLD, breaker, run_fleet, total


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
