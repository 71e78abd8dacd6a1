"""``gatewire call``'s live output on stderr: each --verbose attempt line as it happens, and on
a terminal (a pty here) the progress bar, the countdown of a backoff wait and the page
number of --all-pages. Asserts line order and content, never how long anything took."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from test_cli_basics import run, run_on_a_pty


def run_on_a_terminal(*argv: str) -> tuple[str, str, int]:
    """Runs the CLI with stderr on a pty (stdout a pipe); returns what the terminal got
    (escape sequences and all), stdout and the exit status."""
    screen, stdout, status = run_on_a_pty(argv, terminal="stderr")
    return screen.decode(), stdout.decode(), status


def test_verbose_prints_each_attempt_line_while_the_call_still_waits(cli: str, server: str, key: str) -> None:  # noqa: F811
    process = subprocess.Popen(
        [cli, "call", "--base-url", server, "GET", f"/fault/{key}/503+ra3,200", "--max-retries", "1", "--verbose"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stderr is not None
    first = process.stderr.readline()
    while first.startswith(("> ", "< ")):  # the request's and the response's header lines come first
        first = process.stderr.readline()
    # The line came out while the call waited its 3 s Retry-After (off a terminal the wait is
    # printed once, in the line): the process still runs.
    still_running = process.poll() is None
    stdout, rest = process.communicate(timeout=60)
    assert first.startswith("attempt 1: status 503 after ") and "; retrying in 3.000s (" in first, first
    assert still_running
    rest = "".join(line + "\n" for line in rest.splitlines() if not line.startswith(("> ", "< ")))
    assert rest.splitlines() == [rest.splitlines()[0]] and rest.startswith("attempt 2: status 200 after "), rest
    assert json.loads(stdout)["status"] == 200


def test_off_a_terminal_a_slow_download_writes_nothing_on_stderr(cli: str, httpbin: str) -> None:  # noqa: F811
    done = run(cli, "call", "--base-url", httpbin, "GET", "/drip", "--param", "numbytes=100",
               "--param", "duration=1", "--param", "delay=0")  # fmt: skip
    assert done.returncode == 0 and done.stdout == "*" * 100 + "\n"
    assert done.stderr == ""


def test_on_a_terminal_a_slow_download_draws_a_bar_that_ends_at_its_size(cli: str, httpbin: str) -> None:  # noqa: F811
    screen, stdout, status = run_on_a_terminal(cli, "call", "--base-url", httpbin, "GET", "/drip", "--param",
                                               "numbytes=1000", "--param", "duration=2", "--param", "delay=0")
    assert status == 0 and stdout == "*" * 1000 + "\n"
    frames = re.split(r"\r\x1b\[K|\r?\n", screen)
    bars = [frame for frame in frames if frame.startswith("[")]
    assert len(bars) >= 2, screen
    assert all(" / 1000 B" in bar for bar in bars), bars
    done = [int(re.search(r"\] (\d+) B", bar).group(1)) for bar in bars]  # type: ignore[union-attr]
    assert done == sorted(done)
    assert bars[-1].startswith("[====================] 1000 B / 1000 B"), bars[-1]
    assert screen.endswith("\r\n"), repr(screen[-80:])  # the final bar stays, on its own line
    assert "ETA" in bars[0] and "ETA" not in bars[-1]


def test_on_a_terminal_verbose_counts_a_backoff_wait_down(cli: str, server: str, key: str) -> None:  # noqa: F811
    screen, stdout, status = run_on_a_terminal(cli, "call", "--base-url", server, "GET", f"/fault/{key}/503+ra3,200",
                                               "--max-retries", "1", "--verbose")
    assert status == 0 and json.loads(stdout)["status"] == 200
    countdown = [int(n) for n in re.findall(r"retrying in (\d+)s", screen)]
    assert countdown[:1] == [3] and countdown == sorted(countdown, reverse=True) and len(set(countdown)) >= 2, screen
    lines = [line for line in re.split(r"\r\x1b\[K|\r?\n", screen) if line.startswith("attempt ")]
    assert [line.split(":")[0] for line in lines] == ["attempt 1", "attempt 2"], screen


def test_on_a_terminal_all_pages_shows_the_page_number(cli: str, server: str, tmp_path: Path) -> None:  # noqa: F811
    config = tmp_path / "pages.json"
    config.write_text(json.dumps({
        "baseURL": server,
        "routes": {"issues": {"method": "GET", "pathPattern": "/pages/github-issues", "pagination": {"style": "link"}}},
    }))  # fmt: skip
    screen, stdout, status = run_on_a_terminal(cli, "call", "--config", str(config), "issues", "--all-pages")
    assert status == 0 and len(stdout.splitlines()) == 5
    shown = [int(n) for n in re.findall(r"page (\d+)", screen)]
    # The 100 ms ticker may draw a page's status again after its body was printed (the print
    # clears the line): a page shown twice in a row is one page.
    pages = [page for index, page in enumerate(shown) if index == 0 or shown[index - 1] != page]
    assert pages[:5] == [1, 2, 3, 4, 5], screen
