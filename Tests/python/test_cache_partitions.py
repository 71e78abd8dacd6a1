"""Who the HTTP cache serves, from Python and the CLI: a stored response only to a call with
the same credentials (an ``apiKey`` plugin's key, a call's ``X-Api-Key`` or ``Cookie``, the
cookie jar's cookies), and a cache folder that others can write refused with the reason.
Against the scripted server's ``/cacheable/KEY`` (counted; it echoes the request's fields)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import pytest

import gatewire
from test_cli_basics import run


def keyed_client(server: str, folder: Path, api_key: str) -> gatewire.Client:
    return gatewire.Client(config={"baseURL": server, "cache": {"directory": str(folder)},
                                   "plugins": [{"name": "apiKey", "header": "X-Api-Key", "value": api_key}]})


def test_two_api_keys_sharing_a_folder_never_see_each_others_responses(
        server: str, key: str, tmp_path: Path, sequence_count: Callable[[str], int]) -> None:
    folder = tmp_path / "cache"
    path, params = f"/cacheable/{key}", {"cc": "max-age=60"}
    with keyed_client(server, folder, "KEY_USER_A") as user_a:
        first_a = user_a.get(path, params=params)
    with keyed_client(server, folder, "KEY_USER_B") as user_b:
        first_b = user_b.get(path, params=params)
    with keyed_client(server, folder, "KEY_USER_A") as user_a:
        again_a = user_a.get(path, params=params)
    assert not first_b.from_cache
    assert first_b.json()["headers"]["x-api-key"] == "KEY_USER_B"
    assert again_a.from_cache and again_a.json() == first_a.json()
    assert sequence_count(key) == 2


@pytest.mark.parametrize("field", ["X-Api-Key", "Cookie"])
def test_a_calls_secret_header_partitions_a_private_response(
        server: str, key: str, field: str, sequence_count: Callable[[str], int]) -> None:
    params = {"cc": "private, max-age=60"}
    with gatewire.Client(server, cache=True) as client:
        client.get(f"/cacheable/{key}", params=params, headers={field: "USER_A"})
        other = client.get(f"/cacheable/{key}", params=params, headers={field: "USER_B"})
        again = client.get(f"/cacheable/{key}", params=params, headers={field: "USER_A"})
    assert not other.from_cache and other.json()["headers"][field.lower()] == "USER_B"
    assert again.from_cache
    assert sequence_count(key) == 2


def test_the_jars_cookies_partition_the_cache(server: str, key: str) -> None:
    page = {"cc": "private, max-age=60", "vary": "Cookie"}
    with gatewire.Client(server, cache=True, cookies=True) as client:
        client.get(f"/cacheable/{key}-login", params={"set_cookie": "sid=USER_A; Path=/"})
        client.get(f"/cacheable/{key}", params=page)
        client.get(f"/cacheable/{key}-login", params={"set_cookie": "sid=USER_B; Path=/"})
        as_b = client.get(f"/cacheable/{key}", params=page)
    assert not as_b.from_cache
    assert as_b.json()["headers"]["cookie"] == "sid=USER_B"


def test_a_folder_others_can_write_is_refused(server: str, tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    with pytest.raises(gatewire.ConfigError, match=r"is writable by its group or others \(mode 777\)"):
        gatewire.Client(config={"baseURL": server, "cache": {"directory": str(folder)}})


def test_the_cli_partitions_its_disk_cache_by_api_key(cli: str, server: str, key: str, tmp_path: Path,  # noqa: F811
                                                      sequence_count: Callable[[str], int]) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"baseURL": server, "cache": {"directory": str(tmp_path / "cache")}}))
    bodies = []
    for user in ("KEY_USER_A", "KEY_USER_B"):
        done = run(cli, "call", "--config", str(config), "--verbose", "GET", f"/cacheable/{key}",
                   "--param", "cc=max-age=60", "--header", f"X-Api-Key: {user}")
        assert done.returncode == 0, done.stderr
        assert "cache: hit" not in done.stderr
        bodies.append(json.loads(done.stdout))
    assert [body["headers"]["x-api-key"] for body in bodies] == ["KEY_USER_A", "KEY_USER_B"]
    assert sequence_count(key) == 2
