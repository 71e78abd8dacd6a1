"""The cookie jar from Python and the CLI against a real httpbin (``/cookies/set``,
``/cookies``, ``/redirect-to``) and the scripted server's ``/echo`` on 127.0.0.1 and
127.0.0.2: what each server received, what the jar holds, what reached the logs."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import gatewire
from test_cli_basics import run


def seen(client: gatewire.Client) -> dict[str, str]:
    """The cookies httpbin's /cookies received."""
    cookies: dict[str, str] = client.call("GET", "/cookies").json()["cookies"]
    return cookies


def test_a_jar_sends_back_what_it_kept_and_lists_it(httpbin: str) -> None:
    with gatewire.Client(httpbin) as jarless:
        jarless.call("GET", "/cookies/set", params={"k": "v"})
        assert seen(jarless) == {}
        assert jarless.cookies == []
    with gatewire.Client(httpbin, cookies=True) as client:
        result = client.call("GET", "/cookies/set", params={"k": "v"})
        assert result.status == 200  # the 302 to /cookies, followed with the cookie
        assert result.json() == {"cookies": {"k": "v"}}
        assert seen(client) == {"k": "v"}
        assert client.cookies == [{"domain": "127.0.0.1", "include_subdomains": False, "path": "/",
                                   "secure": False, "http_only": False, "expires": 0,
                                   "name": "k", "value": "v"}]


def test_a_cookie_of_127_0_0_1_is_not_sent_to_127_0_0_2(httpbin: str, server: str) -> None:
    port = urlsplit(server).port
    with gatewire.Client(httpbin, cookies=True) as client:
        client.call("GET", "/cookies/set", params={"k": "v"})
        same_host = client.call("GET", "/redirect-to", params={"url": f"http://127.0.0.1:{port}/echo"})
        other_host = client.call("GET", "/redirect-to", params={"url": f"http://127.0.0.2:{port}/echo"})
    assert same_host.json()["headers"].get("cookie") == "k=v"  # another port, the same host
    assert "cookie" not in other_host.json()["headers"]


def test_a_set_cookie_for_another_domain_is_refused(httpbin: str) -> None:
    with gatewire.Client(httpbin, cookies=True) as client:
        client.call("GET", "/response-headers", params={"Set-Cookie": "evil=1; Domain=example.com"})
        client.call("GET", "/response-headers", params={"Set-Cookie": "good=1"})
        assert [cookie["name"] for cookie in client.cookies] == ["good"]
        assert seen(client) == {"good": "1"}


def test_a_jar_file_persists_across_clients_and_values_never_reach_the_logs(
        httpbin: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    jar = tmp_path / "jar.txt"
    with gatewire.Client(httpbin, cookies=jar) as first:
        first.call("GET", "/cookies/set", params={"session": "PY-C00KIE"})
        assert jar.read_text() == ""  # made empty at once, written when the client closes
    assert "\tsession\tPY-C00KIE" in jar.read_text()
    assert jar.stat().st_mode & 0o777 == 0o600  # cookie values are credentials
    caplog.set_level(logging.DEBUG, logger="gatewire")
    with gatewire.Client(httpbin, cookies=str(jar)) as second:
        assert [cookie["value"] for cookie in second.cookies] == ["PY-C00KIE"]
        result = second.call("GET", "/cookies")
        assert result.json() == {"cookies": {"session": "PY-C00KIE"}}
        assert "PY-C00KIE" not in repr(result)
    assert any(record.name == "gatewire" for record in caplog.records)
    assert "PY-C00KIE" not in caplog.text


def test_cookies_with_config_path_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"baseURL": "http://127.0.0.1:1"}))
    with pytest.raises(gatewire.InvalidArgument, match="pass cookies with config or base_url"):
        gatewire.Client(config_path=str(path), cookies=True)
    with pytest.raises(TypeError, match="cookies must be"):
        gatewire.Client("http://127.0.0.1:1", cookies=1)  # type: ignore[arg-type]


def test_the_cli_cookie_jar_keeps_cookies_between_runs(cli: str, httpbin: str, tmp_path: Path) -> None:  # noqa: F811
    jar = tmp_path / "cli-jar.txt"
    done = run(cli, "call", "--base-url", httpbin, "--cookie-jar", str(jar), "--verbose",
               "GET", "/cookies/set", "--param", "k=CLI-C00KIE")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"cookies": {"k": "CLI-C00KIE"}}
    # --verbose shows attempts and header fields, never a cookie: the value appears only in the
    # request line the user typed (the query of /cookies/set), not in a Cookie or Set-Cookie field.
    showing = [line for line in done.stderr.splitlines() if "CLI-C00KIE" in line]
    assert showing == ["> GET /cookies/set?k=CLI-C00KIE HTTP/1.1"], done.stderr
    assert "\tk\tCLI-C00KIE" in jar.read_text()
    again = run(cli, "call", "--base-url", httpbin, "--cookie-jar", str(jar), "GET", "/cookies")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == {"cookies": {"k": "CLI-C00KIE"}}
    refused = run(cli, "call", "--base-url", httpbin, "--cookie-jar", "/nonexistent/dir/jar", "GET", "/cookies")
    assert refused.returncode == 2
    assert "--cookie-jar: cannot write to the directory of \"/nonexistent/dir/jar\"" in refused.stderr


VICTIM_TEXT = "127.0.0.1\tFALSE\t/\tFALSE\t0\tstolen\tVICTIM-SECRET\n"


def link_problem(path: Path) -> str:
    return (f'"{path}" is a symbolic link; a cookie jar is read and written only as a regular file, '
            "never through a link (which could point it at another file)")


def test_a_jar_path_that_is_a_symbolic_link_is_refused_and_its_target_left_alone(
        httpbin: str, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM_TEXT)
    victim.chmod(0o644)
    link = tmp_path / "jar.txt"
    link.symlink_to(victim)
    with pytest.raises(gatewire.ConfigError) as caught:
        gatewire.Client(httpbin, cookies=link)
    assert str(caught.value) == f"cookies.file: {link_problem(link)}"
    assert victim.read_text() == VICTIM_TEXT
    assert victim.stat().st_mode & 0o777 == 0o644
    assert link.is_symlink()


def test_a_dangling_symbolic_link_at_the_jar_path_creates_nothing(httpbin: str, tmp_path: Path) -> None:
    target = tmp_path / "created-by-the-jar"
    link = tmp_path / "jar.txt"
    link.symlink_to(target)
    with pytest.raises(gatewire.ConfigError, match="is a symbolic link"):
        gatewire.Client(httpbin, cookies=link)
    assert not target.exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["jar.txt"]


def test_the_jar_is_a_new_private_file_renamed_onto_the_path(httpbin: str, tmp_path: Path) -> None:
    jar = tmp_path / "jar.txt"
    jar.write_text("")
    jar.chmod(0o644)
    inode = jar.stat().st_ino
    with gatewire.Client(httpbin, cookies=jar) as first:
        first.call("GET", "/cookies/set", params={"session": "RENAMED"})
    assert jar.stat().st_ino != inode  # renamed onto the path: the old file was never opened for writing
    assert jar.stat().st_mode & 0o777 == 0o600
    text = jar.read_text()
    assert text.startswith("# Netscape HTTP Cookie File\n")
    assert text.endswith("\n\n127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tRENAMED\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["jar.txt"]  # no temporary file left
    with gatewire.Client(httpbin, cookies=jar) as second:
        assert seen(second) == {"session": "RENAMED"}


def test_the_cli_refuses_a_cookie_jar_that_is_a_symbolic_link(  # noqa: F811
        cli: str, httpbin: str, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM_TEXT)
    link = tmp_path / "jar.txt"
    link.symlink_to(victim)
    done = run(cli, "call", "--base-url", httpbin, "--cookie-jar", str(link), "GET", "/cookies/set", "--param", "k=v")
    assert done.returncode == 2
    assert f"--cookie-jar: {link_problem(link)}" in done.stderr
    assert victim.read_text() == VICTIM_TEXT
