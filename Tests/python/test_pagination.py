"""Client.pages beyond the shared case file: eager errors, page_count, early close."""

from __future__ import annotations

from pathlib import Path
import json

import pytest

import gatewire

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "stripe.json"


@pytest.fixture
def stripe_client(server: str, library: str):
    config = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    config["baseURL"] = server
    with gatewire.Client(config=config) as client:
        yield client


def test_pages_counts_and_ends(stripe_client: gatewire.Client) -> None:
    pages = stripe_client.pages("channels")
    assert pages.page_count == 0
    names = [[channel["name"] for channel in page.all("channels")] for page in pages]
    assert names == [["general", "random"], ["random"]]
    assert next(pages, None) is None
    assert pages.page_count == 2  # still known after the walk freed the native paginator


def test_base_url_replaces_the_config_files_base_url(server: str, library: str) -> None:
    with gatewire.Client(server, config_path=EXAMPLE) as client:
        assert client.call_route("charge").first("")["amount"] == 1061


def test_a_route_without_pagination_raises_at_once(stripe_client: gatewire.Client) -> None:
    with pytest.raises(gatewire.InvalidArgument, match="pagination"):
        stripe_client.pages("charge")
    with pytest.raises(gatewire.InvalidArgument, match='^unknown route "nope" \\(known: '):
        stripe_client.pages("nope")


def test_closing_early_stops_the_walk(stripe_client: gatewire.Client) -> None:
    with stripe_client.pages("channels") as pages:
        first = next(pages)
        assert first.count("channels") == 2
        assert pages.page_count == 1
    assert list(pages) == []
