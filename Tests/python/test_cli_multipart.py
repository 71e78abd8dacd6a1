"""``gatewire call``'s ``--form k=v`` and ``--file field=@path;type=...;filename=...`` (curl's
``-F`` syntax): what httpbin's ``/anything`` and the test server's ``/multipart`` saw, a
retry that re-sends every part, and a missing file refused before anything is sent."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from test_cli_basics import run


def test_form_and_file_parts_reach_httpbin(cli: str, httpbin: str, tmp_path: Path) -> None:  # noqa: F811
    table = tmp_path / "table.csv"
    table.write_bytes(b"a,b\n1,2\n")
    done = run(cli, "call", "--base-url", httpbin, "POST", "/anything", "--form", "title=Q3 plan",
               "--form", "at=@home", "--file", f"table=@{table};type=text/csv;filename=q3.csv")  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["form"] == {"title": "Q3 plan", "at": "@home"}
    assert seen["files"] == {"table": "a,b\n1,2\n"}
    assert seen["headers"]["Content-Type"].startswith("multipart/form-data; boundary=")


def test_a_retry_resends_the_parts_as_the_server_saw_them(cli: str, server: str, key: str, tmp_path: Path) -> None:  # noqa: F811
    report = tmp_path / "report.pdf"
    report.write_bytes(b"%PDF" * 1000)
    done = run(cli, "call", "--base-url", server, "PUT", f"/multipart/{key}/503,200", "--max-retries", "1",
               "--form", "k=v", "--file", f"report=@{report}")  # fmt: skip
    assert done.returncode == 0, done.stderr
    log = json.loads(run(cli, "call", "--base-url", server, "GET", f"/multipart/{key}/log").stdout)["attempts"]
    expected = [{"name": "k", "filename": None, "content_type": None, "size": 1,
                 "sha256": hashlib.sha256(b"v").hexdigest(), "text": "v"},
                {"name": "report", "filename": "report.pdf", "content_type": "application/pdf", "size": 4000,
                 "sha256": hashlib.sha256(b"%PDF" * 1000).hexdigest()}]
    assert [answer["status"] for answer in log] == [503, 200]
    assert [answer["parts"] for answer in log] == [expected, expected]


def test_a_missing_file_fails_before_sending_and_bad_syntax_is_a_usage_error(
    cli: str, server: str, key: str, tmp_path: Path  # noqa: F811
) -> None:
    missing = tmp_path / "absent.bin"
    done = run(cli, "call", "--base-url", server, "POST", f"/multipart/{key}/200", "--file", f"f=@{missing}")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f'gatewire: file part "f": cannot read "{missing}": No such file or directory\n'
    log = json.loads(run(cli, "call", "--base-url", server, "GET", f"/multipart/{key}/log").stdout)
    assert log == {"attempts": []}
    usage = run(cli, "call", "--base-url", server, "POST", "/echo", "--file", "f=path-without-at")
    assert (usage.returncode, usage.stderr.splitlines()[0]) == (
        2, 'gatewire: --file: expected field=@path[;type=TYPE][;filename=NAME], got "f=path-without-at"')
    both = run(cli, "call", "--base-url", server, "POST", "/echo", "--data", "a=1", "--form", "b=2")
    assert (both.returncode, both.stderr.splitlines()[0]) == (2, "gatewire: --data and --form/--file: set at most one body")
