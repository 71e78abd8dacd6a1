"""``gatewire`` as a curl or httpie user meets it in the first hour: each command's own help,
a time limit for the whole call and for one attempt, the header fields both ways with
--verbose (redacted), an HTTP cache folder, a URL alone, and one exit status and one error
format per class of problem (2: the command line or a file it names, text on stderr; 1: a
call that failed, JSON)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from test_cli_basics import run


def count(cli: str, server: str, key: str) -> int:  # noqa: F811
    """Requests the test server saw for /sequence/<key>/... and /cacheable/<key>."""
    return json.loads(run(cli, "call", "--base-url", server, "GET", f"/sequence/{key}/count").stdout)["count"]


def test_each_command_has_its_own_help(cli: str) -> None:  # noqa: F811
    overview = run(cli, "--help")
    assert overview.returncode == 0
    assert "gatewire help [call | check | state | import]" in overview.stdout and "--cookie-jar" not in overview.stdout
    assert run(cli, "help").stdout == overview.stdout
    call = run(cli, "call", "--help")
    assert call.returncode == 0
    assert call.stdout.startswith("usage: gatewire call ") and "gatewire check" not in call.stdout
    assert "--timeout SECONDS" in call.stdout and "--cache-dir DIR" in call.stdout
    assert run(cli, "help", "call").stdout == call.stdout
    check = run(cli, "check", "--help")
    assert check.returncode == 0
    assert check.stdout.startswith("usage: gatewire check [--no-load-plugins] CONFIG\n")
    assert "--base-url" not in check.stdout and "--no-load-plugins" in check.stdout
    assert run(cli, "help", "check").stdout == check.stdout
    imported = run(cli, "import", "--help")
    assert imported.returncode == 0
    assert imported.stdout.startswith("usage: gatewire import openapi DOCUMENT [--server N] [--out FILE] [--report FILE]\n")
    assert "--server N" in imported.stdout and "--base-url" not in imported.stdout
    assert run(cli, "help", "import").stdout == imported.stdout
    unknown = run(cli, "help", "frobnicate")
    assert (unknown.returncode, unknown.stdout) == (2, "")
    assert unknown.stderr.startswith('gatewire: unknown command "frobnicate"\nusage: gatewire call')


def test_a_usage_error_prints_the_usage_of_its_own_command(cli: str, tmp_path: Path) -> None:  # noqa: F811
    bare_check = run(cli, "check")
    assert (bare_check.returncode, bare_check.stdout) == (2, "")
    assert bare_check.stderr == ("gatewire: check needs a CONFIG file\n"
                                 "usage: gatewire check [--no-load-plugins] CONFIG\n")
    two = run(cli, "check", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert two.returncode == 2 and two.stderr.endswith("\nusage: gatewire check [--no-load-plugins] CONFIG\n")
    option = run(cli, "check", "--strict", str(tmp_path / "a.json"))
    assert option.returncode == 2 and option.stderr.startswith("gatewire: unknown option --strict\nusage: gatewire check ")
    call = run(cli, "call", "--base-url", "http://127.0.0.1:1", "GET", "/x", "--bogus")
    assert call.returncode == 2
    assert call.stderr.splitlines() == ["gatewire: unknown option --bogus", call_usage(cli)]
    missing = run(cli, "call", "--base-url", "http://127.0.0.1:1", "GET", "/x", "--timeout")
    assert missing.returncode == 2 and missing.stderr.splitlines() == ["gatewire: --timeout needs a value", call_usage(cli)]


def call_usage(cli: str) -> str:  # noqa: F811
    """The first line of `gatewire call --help`: call's usage line."""
    return run(cli, "call", "--help").stdout.splitlines()[0]


def test_the_help_gives_the_exit_statuses_and_the_limits_with_their_units(cli: str) -> None:  # noqa: F811
    overview = run(cli, "--help").stdout
    statuses = re.findall(r"^  ([0-9])  (\S.*)$", overview, re.MULTILINE)
    assert [status for status, _ in statuses] == ["0", "1", "2"], overview
    words = " ".join(overview.split())
    assert "1 the call failed (it was made" in words and "the error as JSON" in words
    assert "2 the command line, or a file it names, is wrong, and nothing was sent" in words and '"gatewire: why" on stderr' in words
    # The range the help states is the one the core enforces (its message, not a copy).
    refused = run(cli, "call", "--base-url", "http://127.0.0.1:1", "GET", "/x", "--attempt-timeout", "1e9")
    assert refused.returncode == 2
    limits = re.search(r"or ([0-9.]+\.\.\.[0-9.]+) seconds\)", refused.stderr)
    assert limits, refused.stderr
    call = " ".join(run(cli, "call", "--help").stdout.split())
    assert f"--timeout SECONDS the whole call's time limit: every attempt, redirect and retry wait included, {limits[1]} seconds" in call
    assert "--attempt-timeout SECONDS one attempt's time limit" in call and f"{limits[1]} seconds (0: the config's timeouts.attempt)" in call


def test_timeout_and_max_time_limit_the_whole_call(cli: str, server: str) -> None:  # noqa: F811
    for flag in ("--timeout", "-m", "--max-time"):
        done = run(cli, "call", "--base-url", server, "GET", "/delay/3000", flag, "0.3")
        assert done.returncode == 1, (flag, done.stderr)
        error = json.loads(done.stdout)
        assert (error["kind"], error["status"]) == ("deadline", 0), (flag, error)
    refused = run(cli, "call", "--base-url", server, "GET", "/delay/0", "-m", "100000")
    assert refused.returncode == 2
    assert refused.stderr.startswith("gatewire: -m: 100000.0 is out of range (0 = the client's, or "), refused.stderr


def test_attempt_timeout_limits_one_attempt(cli: str, server: str, key: str) -> None:  # noqa: F811
    done = run(cli, "call", "--base-url", server, "GET", f"/fault/{key}/delay3000,200", "--attempt-timeout", "0.3",
               "--max-retries", "1", "--verbose")
    assert done.returncode == 0, done.stdout + done.stderr
    attempts = [line for line in done.stderr.splitlines() if line.startswith("attempt ")]
    assert attempts[0].startswith("attempt 1: timeout (") and attempts[1].startswith("attempt 2: status 200 "), attempts


def test_verbose_shows_each_attempts_header_fields_redacted(cli: str, server: str, key: str, tmp_path: Path) -> None:  # noqa: F811
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({"baseURL": server, "redactHeaders": ["X-Session"]}))
    done = run(cli, "call", "--config", str(config), "GET", f"/cacheable/{key}", "--param", "token=QUERY-SECRET",
               "--param", "set_cookie=sid=s1", "--header", "Authorization: Bearer HEADER-SECRET",
               "--header", "X-Session: CONFIG-SECRET", "--header", "X-Trace: t1", "-v")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["headers"]["x-session"] == "CONFIG-SECRET"  # sent as given, hidden in the log
    assert "SECRET" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    request_line = re.fullmatch(rf"> GET /cacheable/{key}\?(\S+) HTTP/1\.1", lines[0])
    assert request_line and sorted(request_line[1].split("&")) == ["set_cookie=sid%3Ds1", "token=<redacted>"], lines
    port = server.rsplit(":", 1)[1]
    assert lines[1:5] == [f"> Host: 127.0.0.1:{port}", "> Authorization: <redacted>", "> X-Session: <redacted>", "> X-Trace: t1"]
    response = lines[5:-1]
    assert response[0] == "< HTTP/1.1 200" and all(line.startswith("< ") for line in response), lines
    assert "< Set-Cookie: <redacted>" in response and "< Content-Type: application/json" in response
    assert lines[-1].startswith("attempt 1: status 200 after ")


def test_verbose_shows_every_attempts_exchange_as_it_happens(cli: str, server: str, key: str) -> None:  # noqa: F811
    done = run(cli, "call", "--base-url", server, "GET", f"/sequence/{key}/503,200", "--param", "retry_after=0", "--verbose")
    assert done.returncode == 0, done.stderr
    shown = [line.split(" after ")[0] if line.startswith("attempt ") else line
             for line in done.stderr.splitlines() if line.startswith(("> GET", "< HTTP", "attempt "))]
    assert shown == [f"> GET /sequence/{key}/503,200?retry_after=0 HTTP/1.1", "< HTTP/1.1 503", "attempt 1: status 503",
                     f"> GET /sequence/{key}/503,200?retry_after=0 HTTP/1.1", "< HTTP/1.1 200", "attempt 2: status 200"]
    assert "< Retry-After: 0" in done.stderr


def test_cache_dir_keeps_responses_across_runs(cli: str, server: str, key: str, tmp_path: Path) -> None:  # noqa: F811
    folder = tmp_path / "cache"
    call = ("call", "GET", f"{server}/cacheable/{key}", "--param", "cc=max-age=60", "--cache-dir", str(folder), "-v")
    first = run(cli, *call)
    assert first.returncode == 0, first.stderr
    assert (folder.stat().st_mode & 0o777) == 0o700
    second = run(cli, *call)
    assert second.returncode == 0, second.stderr
    assert second.stderr == "cache: hit (no request sent)\n"  # no attempt, no request line
    assert json.loads(second.stdout) == json.loads(first.stdout)
    assert count(cli, server, key) == 1
    open_folder = tmp_path / "shared"
    open_folder.mkdir()
    os.chmod(open_folder, 0o777)
    refused = run(cli, "call", "GET", f"{server}/cacheable/{key}", "--cache-dir", str(open_folder))
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr.startswith(f'gatewire: --cache-dir: the cache folder "{open_folder}" is writable by its group or others')
    assert count(cli, server, key) == 1


def test_a_url_alone_is_enough(cli: str, server: str) -> None:  # noqa: F811
    done = run(cli, "call", "GET", f"{server}/echo/alone?q=1")
    assert done.returncode == 0, done.stderr
    echo = json.loads(done.stdout)
    assert (echo["path"], echo["query"]) == ("/echo/alone", {"q": "1"})
    assert echo["headers"]["host"] == server.removeprefix("http://")
    other = run(cli, "call", "--base-url", server, "GET", server.replace("127.0.0.1", "127.0.0.2") + "/echo/x")
    assert (other.returncode, other.stdout) == (2, "")  # refused before anything is sent
    assert other.stderr.startswith("gatewire: ") and "127.0.0.2" in other.stderr
    bad = run(cli, "call", "GET", "ftp://127.0.0.1/x")
    assert (bad.returncode, bad.stdout) == (2, "")
    assert bad.stderr.startswith("gatewire: PATH: baseURL: "), bad.stderr


def test_a_file_the_command_line_names_is_a_usage_error(cli: str, server: str, key: str, tmp_path: Path) -> None:  # noqa: F811
    missing = tmp_path / "absent.bin"
    multipart = run(cli, "call", "--base-url", server, "POST", f"/sequence/{key}/200", "--file", f"f=@{missing}")
    assert (multipart.returncode, multipart.stdout) == (2, "")
    assert multipart.stderr == f'gatewire: file part "f": cannot read "{missing}": No such file or directory\n'
    binary = run(cli, "call", "--base-url", server, "POST", f"/sequence/{key}/200", "--data-binary", f"@{missing}")
    assert (binary.returncode, binary.stdout) == (2, "")
    assert binary.stderr == f'gatewire: --data-binary: cannot read "{missing}": No such file or directory\n'
    output = tmp_path / "no-such-folder" / "x.json"
    download = run(cli, "call", "--base-url", server, "GET", f"/sequence/{key}/200", "-o", str(output))
    assert (download.returncode, download.stdout) == (2, "")
    assert download.stderr == (f'gatewire: --output: cannot write "{output}": the folder "{output.parent}": '
                               "No such file or directory\n")
    into_folder = run(cli, "call", "--base-url", server, "GET", f"/sequence/{key}/200", "-o", str(tmp_path))
    assert into_folder.returncode == 2 and into_folder.stderr == f'gatewire: --output: "{tmp_path}" is a folder; name the file to write\n'
    assert count(cli, server, key) == 0


def test_a_missing_route_parameter_is_a_usage_error(cli: str, server: str, key: str, tmp_path: Path) -> None:  # noqa: F811
    config = tmp_path / "routes.json"
    config.write_text(json.dumps({"baseURL": server, "routes": {"item": {"method": "GET", "pathPattern": f"/sequence/{key}/:status"}}}))
    done = run(cli, "call", "--config", str(config), "item")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f'gatewire: missing parameter "status" for path pattern /sequence/{key}/:status'), done.stderr
    assert count(cli, server, key) == 0
    failed = run(cli, "call", "--config", str(config), "item", "--param", "status=404")  # sent, and failed: JSON, 1
    assert failed.returncode == 1 and json.loads(failed.stdout)["status"] == 404


def test_a_config_that_does_not_load_is_a_usage_error_of_call_and_checks_verdict(cli: str, tmp_path: Path) -> None:  # noqa: F811
    config = tmp_path / "typo.json"
    config.write_text('{"baseURL": "http://127.0.0.1:1", "retry": {"maxRetires": 3}}')
    called = run(cli, "call", "--config", str(config), "GET", "/x")
    assert (called.returncode, called.stdout) == (2, "")
    assert called.stderr.startswith(f"gatewire: {config}: retry.maxRetires: unknown field"), called.stderr
    checked = run(cli, "check", str(config))
    assert checked.returncode == 1 and checked.stderr.startswith(f"{config}: error: retry.maxRetires: unknown field")
