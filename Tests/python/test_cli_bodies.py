"""``gatewire call``'s bodies beyond JSON (``--data``, ``--data-binary``, ``--content-type``)
and list parameters (a ``--param`` name given twice), as httpbin's ``/anything`` saw them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from test_cli_basics import run


def echo(done: subprocess.CompletedProcess[str]) -> dict[str, object]:
    assert done.returncode == 0, done.stderr
    value: dict[str, object] = json.loads(done.stdout)
    return value


@pytest.mark.parametrize(
    ("style", "args"),
    [("repeat", {"ids": ["1", "2 3"], "one": "x"}), ("brackets", {"ids[]": ["1", "2 3"], "one": "x"}),
     ("comma", {"ids": "1,2 3", "one": "x"})],
)  # fmt: skip
def test_a_param_given_twice_is_a_list_in_the_configs_style(
    cli: str, httpbin: str, tmp_path: Path, style: str, args: dict[str, object]  # noqa: F811
) -> None:
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({"baseURL": httpbin, "arrayParameters": style}))
    done = run(cli, "call", "--config", str(config), "GET", "/anything",
               "--param", "ids=1", "--param", "ids=2 3", "--param", "one=x")  # fmt: skip
    assert echo(done)["args"] == args


def test_data_sends_a_form(cli: str, httpbin: str) -> None:  # noqa: F811
    done = run(cli, "call", "--base-url", httpbin, "POST", "/anything",
               "--data", "name=Ann Lee", "--data", "note=a+b&c=d", "--data", "ids=1", "--data", "ids=2")  # fmt: skip
    seen = echo(done)
    assert seen["form"] == {"name": "Ann Lee", "note": "a+b&c=d", "ids": ["1", "2"]}
    assert seen["headers"]["Content-Type"] == "application/x-www-form-urlencoded"  # type: ignore[index]


def test_data_binary_sends_a_files_bytes_with_the_content_type(cli: str, httpbin: str, tmp_path: Path) -> None:  # noqa: F811
    upload = tmp_path / "table.csv"
    upload.write_bytes(b"a,b\r\n1,2\r\n")
    done = run(cli, "call", "--base-url", httpbin, "PUT", "/anything",
               "--data-binary", f"@{upload}", "--content-type", "text/csv")  # fmt: skip
    seen = echo(done)
    assert seen["data"] == "a,b\r\n1,2\r\n"
    assert seen["headers"]["Content-Type"] == "text/csv"  # type: ignore[index]
    assert seen["headers"]["Content-Length"] == "10"  # type: ignore[index]
    literal = echo(run(cli, "call", "--base-url", httpbin, "POST", "/anything", "--data-binary", "raw text"))
    assert literal["data"] == "raw text"
    assert literal["headers"]["Content-Type"] == "application/octet-stream"  # type: ignore[index]


def test_body_options_are_checked_before_sending(cli: str, httpbin: str, tmp_path: Path) -> None:  # noqa: F811
    both = run(cli, "call", "--base-url", httpbin, "POST", "/anything", "--body", "{}", "--data", "a=1")
    assert (both.returncode, both.stdout, both.stderr.splitlines()[0]) == (2, "", "gatewire: --body and --data: set at most one body")
    missing = tmp_path / "missing.bin"
    unread = run(cli, "call", "--base-url", httpbin, "POST", "/anything", "--data-binary", f"@{missing}")
    assert unread.returncode == 2
    assert f'--data-binary: cannot read "{missing}": No such file or directory' in unread.stderr
    lone = run(cli, "call", "--base-url", httpbin, "POST", "/anything", "--content-type", "text/plain")
    assert lone.returncode == 2
    assert "--content-type goes with --data-binary" in lone.stderr
