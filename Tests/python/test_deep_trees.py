"""Mapped trees as deep as the core accepts (Jansson parses up to 2,048 levels) but deeper
than :func:`json.loads` can build under Python's recursion limit raise the binding's
MappingError, never a bare RecursionError."""

from __future__ import annotations

import pytest

import gatewire


def deep_client(server: str) -> gatewire.Client:
    return gatewire.Client(config={
        "baseURL": server,
        # {"tree": <depth arrays>}: depth + 1 levels.
        "mappings": {"Deep": {"attributes": {"tree": {"to": "tree", "type": "json"}}}},
        "responseDescriptors": [{"mapping": "Deep", "pathPattern": "/nested/:depth"}],
    })


def depth_of(tree: object) -> int:
    depth = 0
    while isinstance(tree, list):
        tree, depth = tree[0], depth + 1
    return depth


def test_a_shallow_tree_maps(server: str) -> None:
    with deep_client(server) as client:
        assert depth_of(client.call("GET", "/nested/900").mapped[""]["tree"]) == 900


@pytest.mark.parametrize("depth", [1000, 1500, 2046])
def test_a_tree_too_deep_for_python_is_a_mapping_error(server: str, depth: int) -> None:
    with deep_client(server) as client:
        with pytest.raises(gatewire.MappingError) as raised:
            client.call("GET", f"/nested/{depth}").mapped  # noqa: B018  (the access raises)
    error = raised.value
    assert error.kind == gatewire.ErrorKind.MAPPING and error.status == 200
    assert error.path == f"/nested/{depth}" and len(error.attempts) == 1
    assert "nested too deeply to build in Python" in error.message
