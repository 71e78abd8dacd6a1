"""The `gatewire` command line: `call` and `check` as a user runs them, against the test server."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(cli: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=60)


def run_on_a_pty(argv: tuple[str, ...], terminal: str) -> tuple[bytes, bytes, int]:
    """Runs ``argv`` with ``terminal`` ("stdout" or "stderr") on a pseudo-terminal and the
    other stream on a pipe; returns what the terminal got (escape sequences and all), the
    other stream's bytes and the exit status (waited for at most 60 s)."""
    master, slave = os.openpty()
    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, terminal: slave}
    process = subprocess.Popen(argv, stdout=streams["stdout"], stderr=streams["stderr"])
    os.close(slave)
    screen = b""
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the last writer closed the pty
            break
        if not data:
            break
        screen += data
    os.close(master)
    stdout, stderr = process.communicate(timeout=60)
    return screen, (stderr if terminal == "stdout" else stdout) or b"", process.returncode


def test_call_prints_the_body_as_json(cli: str, server: str) -> None:
    done = run(cli, "call", "--base-url", server, "GET", "/echo/:name", "--param", "name=ann", "--param", "q=1")
    assert done.returncode == 0, done.stderr
    echo = json.loads(done.stdout)
    assert echo["path"] == "/echo/ann"
    assert echo["query"] == {"q": "1"}
    assert done.stderr == ""


def test_failed_call_prints_the_error_and_exits_1(cli: str, server: str, key: str) -> None:
    done = run(cli, "call", "--base-url", server, "GET", f"/sequence/{key}/503", "--max-retries", "2", "--verbose")
    assert done.returncode == 1
    error = json.loads(done.stdout)
    assert (error["kind"], error["status"], error["attempts"]) == ("http_status", 503, 3)
    lines = done.stderr.splitlines()
    assert sum(line.startswith("observer: call failed: kind=http_status status=503") for line in lines) == 1
    attempts = [line for line in lines if line.startswith("attempt ")]
    assert len(attempts) == 3
    assert "retrying in" in attempts[0] and "stopping (retries exhausted (2))" in attempts[2]


def test_connection_refused_is_status_zero(cli: str, closed_port: int) -> None:
    done = run(cli, "call", "--base-url", f"http://127.0.0.1:{closed_port}", "GET", "/x", "--max-retries", "0")
    assert done.returncode == 1
    error = json.loads(done.stdout)
    assert (error["kind"], error["status"]) == ("connect", 0)


def test_check_names_the_misspelt_field(cli: str, tmp_path: Path) -> None:
    config = tmp_path / "typo.json"
    config.write_text('{"baseURL": "http://127.0.0.1:1", "retry": {"maxRetires": 3}}')
    done = run(cli, "check", str(config))
    assert done.returncode == 1
    assert "retry.maxRetires: unknown field" in done.stderr
    assert done.stdout == ""


def test_check_rejects_a_duplicate_key_and_a_missing_file(cli: str, tmp_path: Path) -> None:
    config = tmp_path / "dup.json"
    config.write_text('{"baseURL": "http://a.example", "baseURL": "http://b.example"}')
    done = run(cli, "check", str(config))
    assert done.returncode == 1 and "duplicate object key" in done.stderr
    missing = run(cli, "check", str(tmp_path / "absent.json"))
    assert missing.returncode == 1 and "unable to open" in missing.stderr


def test_check_accepts_the_example_config(cli: str) -> None:
    done = run(cli, "check", str(ROOT / "examples" / "httpbin.json"))
    assert done.returncode == 0
    assert "OK (5 routes" in done.stdout


def test_help_and_usage_errors(cli: str) -> None:
    for args in (["--help"], ["help"], ["call", "--help"], ["help", "call"]):
        done = run(cli, *args)
        assert done.returncode == 0 and "--base-url URL" in done.stdout, args
    for args in (["check", "--help"], ["help", "check"]):
        done = run(cli, *args)
        assert done.returncode == 0 and "--no-load-plugins" in done.stdout, args
    usage = run(cli, "call", "GET", "/x")
    assert usage.returncode == 2 and "give --config FILE or --base-url URL" in usage.stderr


def test_a_method_without_a_path_is_a_usage_error(cli: str, server: str) -> None:
    done = run(cli, "call", "--base-url", server, "GET")
    assert done.returncode == 2
    assert done.stderr.startswith("gatewire: missing PATH after GET"), done.stderr
    assert "unknown route" not in done.stderr and done.stdout == ""


def test_a_route_named_like_a_method_is_still_a_route(cli: str, server: str, tmp_path: Path) -> None:
    config = tmp_path / "get.json"
    config.write_text(json.dumps({"baseURL": server, "routes": {"GET": {"method": "GET", "pathPattern": "/echo/x"}}}))
    done = run(cli, "call", "--config", str(config), "GET")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["path"] == "/echo/x"


def test_an_unknown_command_is_named(cli: str) -> None:
    done = run(cli, "frobnicate")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == 'gatewire: unknown command "frobnicate"'
    assert "usage: gatewire call" in done.stderr
    bare = run(cli)
    assert bare.returncode == 2 and "unknown command" not in bare.stderr and "usage: gatewire call" in bare.stderr


def test_all_pages_with_a_path_is_a_usage_error(cli: str, server: str) -> None:
    done = run(cli, "call", "--base-url", server, "GET", "/pages/slack", "--all-pages")
    assert done.returncode == 2
    assert "--all-pages needs a ROUTE" in done.stderr and done.stdout == ""


def test_verbose_prints_the_attempts_then_the_observer_line(cli: str, server: str, key: str) -> None:
    done = run(cli, "call", "--base-url", server, "GET", f"/sequence/{key}/503", "--max-retries", "1", "--verbose")
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if not line.startswith(("> ", "< "))]  # the header lines
    assert [line.split(":")[0] for line in lines] == ["attempt 1", "attempt 2", "observer"], lines


def test_verbose_all_pages_prints_a_failed_page_attempts_then_the_observer_line(
        cli: str, server: str, key: str, tmp_path: Path) -> None:
    config = tmp_path / "pages.json"
    config.write_text(json.dumps({
        "baseURL": server, "retry": {"maxRetries": 1, "initialDelay": 0.01},
        "routes": {"pages": {"method": "GET", "pathPattern": f"/sequence/{key}/503", "pagination": {"style": "link"}}},
    }))
    done = run(cli, "call", "--config", str(config), "pages", "--all-pages", "--verbose")
    assert done.returncode == 1
    assert json.loads(done.stdout)["status"] == 503
    lines = [line for line in done.stderr.splitlines() if not line.startswith(("> ", "< "))]  # the header lines
    assert [line.split(":")[0] for line in lines] == ["attempt 1", "attempt 2", "observer"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1]", "expected an object, got an array"),
        ('{"baseURL": ', "invalid JSON at line 1"),
        ('{"baseURL": "http://h", "mapings": {}}', "mapings: unknown field"),
        ('{"baseURL": "http://h", "retry": {"maxRetries": -1}}', "retry.maxRetries: "),
    ],
)
def test_check_errors_have_one_format(cli: str, tmp_path: Path, text: str, message: str) -> None:
    config = tmp_path / "bad.json"
    config.write_text(text)
    done = run(cli, "check", str(config))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"{config}: error: {message}"), done.stderr
    assert done.stderr.count(str(config)) == 1, done.stderr
    missing = tmp_path / "absent.json"
    absent = run(cli, "check", str(missing))
    assert absent.stderr.startswith(f"{missing}: error: unable to open"), absent.stderr


def test_check_counts_in_the_singular_and_the_plural(cli: str, tmp_path: Path) -> None:
    config = tmp_path / "one.json"
    config.write_text(json.dumps({
        "baseURL": "http://127.0.0.1:1",
        "routes": {"user": {"method": "GET", "pathPattern": "/users/:id"}},
        "mappings": {"User": {"attributes": {"name": "name"}}},
        "responseDescriptors": [{"mapping": "User", "keyPath": "user"}],
    }))
    done = run(cli, "check", str(config))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{config}: OK (1 route, 1 mapping, 1 response descriptor)"


def test_header_injection_is_a_usage_error(cli: str, server: str, key: str) -> None:
    done = run(cli, "call", "--base-url", server, "GET", f"/sequence/{key}/200", "--header", "Y: b\r\nInjected2: 2")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith('gatewire: --header: header "Y": the value contains CR at byte 1 (RFC 9110 section 5.5')
    done = run(cli, "call", "--base-url", server, "GET", f"/sequence/{key}/200", "--header", "Bad Name: x")
    assert done.returncode == 2
    assert 'header "Bad Name": the header name contains a space' in done.stderr
    done = run(cli, "call", "--base-url", server, "POST", f"/sequence/{key}/200", "--body", '{"id": 1}',
               "--header", "Content-Length: 1000")
    assert done.returncode == 2
    assert 'header "Content-Length": the header frames the message or manages the connection' in done.stderr
    done = run(cli, "call", "--base-url", server, "GET", f"/sequence/{key}/200", "--header", "Y: a\x7fb")
    assert done.returncode == 2 and 'header "Y": the value contains DEL at byte 1' in done.stderr
    done = run(cli, "call", "--base-url", server, "GET", f"/sequence/{key}/200", "--user", "ann:pa\nss")
    assert done.returncode == 2 and "--user: the password contains a control character" in done.stderr
    counted = run(cli, "call", "--base-url", server, "GET", f"/sequence/{key}/count")
    assert json.loads(counted.stdout)["count"] == 0


def test_check_rejects_injected_config_headers_and_warns_about_delays(cli: str, tmp_path: Path) -> None:
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({"baseURL": "http://127.0.0.1:1", "headers": {"X": "a\r\nInjected: 1"}}))
    done = run(cli, "check", str(config))
    assert done.returncode == 1
    assert f"{config}: error: headers.X: the value contains CR" in done.stderr
    config.write_text(json.dumps({"baseURL": "http://127.0.0.1:1", "retry": {"maxDelay": 0.1, "initialDelay": 5},
                                  "routes": {"x": {"method": "GET", "pathPattern": "/x/:id/:id"}}}))
    done = run(cli, "check", str(config))
    assert done.returncode == 1 and 'routes.x.pathPattern: parameter ":id" appears twice' in done.stderr
    config.write_text(json.dumps({"baseURL": "http://127.0.0.1:1", "retry": {"maxDelay": 0.1, "initialDelay": 5}}))
    done = run(cli, "check", str(config))
    assert done.returncode == 0
    assert "warning: retry.maxDelay (0.1 s) is less than retry.initialDelay (5 s)" in done.stdout


@pytest.mark.parametrize("method", ["GET", "DELETE", "OPTIONS", "PUT", "PATCH", "POST"])
def test_call_with_a_body_sends_the_method_asked(cli: str, server: str, method: str) -> None:
    done = run(cli, "call", "--base-url", server, method, "/echo/method", "--body", '{"n": 1}')
    assert done.returncode == 0, done.stderr
    echo = json.loads(done.stdout)
    assert (echo["method"], echo["body"]) == (method, {"n": 1})


def test_head_with_a_body_is_refused_before_sending(cli: str, server: str) -> None:
    done = run(cli, "call", "--base-url", server, "HEAD", "/echo/method", "--body", '{"n": 1}')
    assert (done.returncode, done.stdout) == (2, "")  # the core's invalid_argument: a usage error
    assert done.stderr.startswith("gatewire: ") and "HEAD request cannot have a body" in done.stderr

def test_redirect_options(cli: str, server: str) -> None:
    """--redirects and --max-redirects: a hop to another host drops the credentials and shows
    in --verbose; following none or too few hops fails with kind redirect; a bad word exits 2."""
    hop = ("--param", "status=302", "--param", "url=@host2/echo/x")
    done = run(cli, "call", "--base-url", server, "GET", "/redirect-to", *hop, "--user", "ann:PW-SECRET",
               "--header", "Cookie: c=C-SECRET", "--verbose")
    assert done.returncode == 0, done.stderr
    echo = json.loads(done.stdout)
    assert echo["headers"]["host"].startswith("127.0.0.2:")
    assert "authorization" not in echo["headers"] and "cookie" not in echo["headers"]
    port = server.rsplit(":", 1)[1]
    assert f"attempt 1: status 200 after " in done.stderr
    assert f"; followed 302 to http://127.0.0.2:{port}/echo/x" in done.stderr

    refused = run(cli, "call", "--base-url", server, "GET", "/redirect-to", *hop, "--redirects", "none")
    assert refused.returncode == 1
    error = json.loads(refused.stdout)
    assert (error["kind"], error["status"]) == ("redirect", 302)
    assert 'following redirects is off (redirects.follow is "none")' in error["message"]
    same = run(cli, "call", "--base-url", server, "GET", "/redirect-to", *hop, "--redirects", "same-origin")
    assert json.loads(same.stdout)["kind"] == "redirect"
    limited = run(cli, "call", "--base-url", server, "GET", "/redirect/2", "--max-redirects", "1")
    assert limited.returncode == 1
    assert "more than 1 redirects (redirects.max)" in json.loads(limited.stdout)["message"]

    bad = run(cli, "call", "--base-url", server, "GET", "/x", "--redirects", "sameOrigin")
    assert bad.returncode == 2
    assert bad.stderr.strip() == 'gatewire: --redirects expects none, same-origin or any, got "sameOrigin"'
    assert run(cli, "call", "--base-url", server, "GET", "/x", "--max-redirects", "51").returncode == 2
    help_text = run(cli, "call", "--help").stdout
    assert "--redirects WHICH" in help_text and "--max-redirects N" in help_text
