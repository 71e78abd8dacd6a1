"""``gatewire call``'s result on a terminal (stdout on a pty): text is written, but output a
terminal would act on rather than show (an escape sequence, binary data) is not, unless
``--output -`` asks for it; piped, the body is written byte for byte."""

from __future__ import annotations

import base64
import subprocess
import urllib.request

from test_cli_basics import run, run_on_a_pty

# Sets the window's title, then clears the screen (ECMA-48 OSC and CSI 2 J).
ESCAPES = b"\x1b]0;owned\x07\x1b[2Jhello"


def text_path(body: bytes) -> str:
    """httpbin's /base64/VALUE, which answers with VALUE decoded (as text/html)."""
    return "/base64/" + base64.urlsafe_b64encode(body).decode()


def run_with_stdout_on_a_terminal(*argv: str) -> tuple[bytes, str, int]:
    """Runs the CLI with stdout on a pty (stderr a pipe); returns what the terminal got,
    stderr and the exit status."""
    screen, stderr, status = run_on_a_pty(argv, terminal="stdout")
    return screen, stderr.decode(), status


def test_a_terminal_gets_text_but_never_an_escape_sequence(cli: str, httpbin: str) -> None:  # noqa: F811
    screen, stderr, status = run_with_stdout_on_a_terminal(cli, "call", "--base-url", httpbin, "GET", text_path(ESCAPES))
    assert b"\x1b" not in screen and screen == b""
    assert status == 1
    assert stderr == ("gatewire: the result was not written to the terminal: it has the control character 0x1B at byte 0, "
                      "which a terminal would act on rather than show; use --output FILE to save it, or --output - to "
                      "write it here anyway\n")
    # Text with tabs, line ends and non-ASCII letters, and JSON, are written as ever.
    screen, stderr, status = run_with_stdout_on_a_terminal(cli, "call", "--base-url", httpbin, "GET",
                                                           text_path("tab\there, café\r\n".encode()))
    assert (screen, stderr, status) == ("tab\there, café\r\r\n\r\n".encode(), "", 0)  # the pty's LF -> CR LF
    screen, stderr, status = run_with_stdout_on_a_terminal(cli, "call", "--base-url", httpbin, "GET", "/get")
    assert (stderr, status) == ("", 0)
    assert b'"url": "' in screen and b"\x1b" not in screen


def test_binary_data_never_reaches_the_terminal(cli: str, httpbin: str) -> None:  # noqa: F811
    screen, stderr, status = run_with_stdout_on_a_terminal(cli, "call", "--base-url", httpbin, "GET", "/bytes/64",
                                                           "--param", "seed=7")
    assert (screen, status) == (b"", 1)
    assert "it is not UTF-8 text (binary data)" in stderr


def test_output_dash_writes_it_to_the_terminal_anyway(cli: str, httpbin: str) -> None:  # noqa: F811
    screen, stderr, status = run_with_stdout_on_a_terminal(cli, "call", "--base-url", httpbin, "GET", text_path(ESCAPES),
                                                           "--output", "-")
    assert (screen, stderr, status) == (ESCAPES + b"\r\n", "", 0)  # the pty turns the newline into CR LF


def test_piped_the_body_is_written_byte_for_byte(cli: str, httpbin: str) -> None:  # noqa: F811
    with urllib.request.urlopen(f"{httpbin}/bytes/64?seed=7", timeout=30) as response:
        binary = response.read()
    assert len(binary) == 64
    piped = subprocess.run([cli, "call", "--base-url", httpbin, "GET", "/bytes/64", "--param", "seed=7"],
                           capture_output=True, timeout=60)
    assert (piped.stdout, piped.stderr, piped.returncode) == (binary + b"\n", b"", 0)
    escapes = subprocess.run([cli, "call", "--base-url", httpbin, "GET", text_path(ESCAPES)], capture_output=True, timeout=60)
    assert (escapes.stdout, escapes.stderr, escapes.returncode) == (ESCAPES + b"\n", b"", 0)
