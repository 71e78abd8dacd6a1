"""Streaming downloads from Python: ``download=`` (a file sink) and ``Client.stream`` (an
iterator of chunks with back-pressure), against a private nginx serving a random file
(ETag, Last-Modified, ranges: ``Tests/support/nginx_files.py``), the scripted test server's
faults and httpbin's streamed bodies."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Iterator

import pytest

import gatewire
from test_cli_basics import run

SUPPORT = Path(__file__).resolve().parents[1] / "support"
SIZE = 3_000_000
FAST_RETRY = {"maxRetries": 3, "initialDelay": 0.01, "jitter": "none"}


class Nginx:
    def __init__(self, url: str, log: Path, served: bytes) -> None:
        self.url, self.log, self.served = url, log, served

    def lines(self, prefix: str) -> list[str]:
        return [line for line in self.log.read_text().splitlines() if line.startswith(prefix)]


@pytest.fixture(scope="module")
def nginx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Nginx]:
    root = tmp_path_factory.mktemp("served")
    served = os.urandom(SIZE)
    (root / "big.bin").write_bytes(served)
    process = subprocess.Popen([sys.executable, str(SUPPORT / "nginx_files.py"), "--root", str(root), "--rate", "2m"],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        words = process.stdout.readline().split()
        if len(words) != 4 or words[0] != "PORT":
            pytest.fail(f"nginx_files.py did not start: {words}")
        yield Nginx(f"http://127.0.0.1:{words[1]}", Path(words[3]), served)
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_download_writes_the_file_whole_and_keeps_no_body(nginx: Nginx, tmp_path: Path, library: str) -> None:
    target = tmp_path / "out.bin"
    with gatewire.Client(nginx.url) as client:
        result = client.get("/files/big.bin", download=target, max_response_bytes=1000)
    assert result.status == 200
    assert result.body == b""
    assert result.attempts[-1].bytes_received == SIZE
    assert hashlib.sha256(target.read_bytes()).digest() == hashlib.sha256(nginx.served).digest()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.bin"]


def test_failed_download_leaves_the_destination_and_no_temporary_file(server: str, tmp_path: Path, library: str) -> None:
    target = tmp_path / "out.json"
    target.write_text("before")
    with gatewire.Client(server) as client:
        with pytest.raises(gatewire.HTTPStatusError) as caught:
            client.get("/status/404", download=target)
    assert caught.value.status == 404
    assert b'"status": 404' in caught.value.body
    assert target.read_text() == "before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_retry_after_503_leaves_only_the_final_body(server: str, tmp_path: Path, library: str) -> None:
    key = uuid.uuid4().hex
    target = tmp_path / "out.json"
    with gatewire.Client(config={"baseURL": server, "retry": FAST_RETRY}) as client:
        result = client.get(f"/fault/{key}/503,partial,200", download=str(target))
    assert [a.status for a in result.attempts] == [503, 0, 200]
    assert b'"attempt": 3' in target.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_interrupted_download_resumes_with_range_and_if_range(nginx: Nginx, tmp_path: Path, library: str) -> None:
    target = tmp_path / "out.bin"
    retry = {"maxRetries": 10, "initialDelay": 0.01, "jitter": "none"}
    before = len(nginx.lines("/slow/"))
    with gatewire.Client(config={"baseURL": nginx.url, "retry": retry}) as client:
        # /slow/ sends 2 MB a second: 3 MB need more than one 0.6 s attempt.
        result = client.get("/slow/big.bin", download=target, attempt_timeout=0.6)
    assert target.read_bytes() == nginx.served
    # nginx logs a request cut short once it notices (after its rate limit's pause): the
    # lines may come late and out of order, so wait for them and match them by Range.
    deadline = time.monotonic() + 5
    while len(lines := nginx.lines("/slow/")[before:]) < len(result.attempts) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(lines) == len(result.attempts) >= 2
    assert result.attempts[0].error == "timeout"
    assert sum('range="-"' in line for line in lines) == 1
    offset = result.attempts[0].bytes_received
    for attempt in result.attempts[1:]:
        line = next(line for line in lines if f'range="bytes={offset}-"' in line)
        assert ' 206 ' in line and 'if_range="-"' not in line, line
        offset += attempt.bytes_received
    assert offset == SIZE


def resume_version(name: str) -> bytes:
    """Version A or B of the test server's /resume/ representation (10,240 bytes)."""
    step, offset = (7, 1) if name == "A" else (13, 5)
    return bytes((step * i + offset) % 251 for i in range(10240))


def resume_log(server: str, key: str) -> list[str | None]:
    """The Range field each request for /resume/<key>/ sent (None: none)."""
    with gatewire.Client(server) as client:
        return [r["range"] for r in json.loads(client.get(f"/resume/{key}/log").body)["requests"]]


@pytest.mark.parametrize("steps, reason", [
    ("cut,range-b,a", 'the 206 has ETag "B", the partial file ETag "A": another representation'),
    ("cut,range-end,a", 'the 206 has Content-Range "bytes 5120-35839/10240", not "bytes first-last/length" '
                        'with first <= last < length'),
    ("cut,range-total,a", 'asked for the rest from byte 5120; the 206 has Content-Range "bytes 5120-35839/35840", '
                          'not "bytes 5120-10239/10240"'),
    ("cut,range-short,a", 'asked for the rest from byte 5120; the 206 has Content-Range "bytes 5120-5129/10240", '
                          'not "bytes 5120-10239/10240"'),
    ("cut,range-more+nolength,a", "the 206 sent more bytes than its Content-Range declares (up to byte 10239)"),
], ids=["another-etag", "lying-end", "lying-total", "short-range", "more-bytes"])
def test_a_206_that_does_not_continue_the_file_is_never_spliced(
        server: str, tmp_path: Path, library: str, steps: str, reason: str) -> None:
    key, target = uuid.uuid4().hex, tmp_path / "out.bin"
    with gatewire.Client(config={"baseURL": server, "retry": FAST_RETRY}) as client:
        result = client.get(f"/resume/{key}/{steps}", download=target)
    assert target.read_bytes() == resume_version("A")
    assert [a.error for a in result.attempts] == ["network", "protocol", None]
    assert result.attempts[1].message == reason + "; the partial file was dropped"
    assert resume_log(server, key) == [None, "bytes=5120-", None]


def test_a_206_mismatch_without_retries_fails_and_leaves_no_file(server: str, tmp_path: Path, library: str) -> None:
    key, target = uuid.uuid4().hex, tmp_path / "out.bin"
    with gatewire.Client(config={"baseURL": server, "retry": {**FAST_RETRY, "maxRetries": 1}}) as client:
        with pytest.raises(gatewire.ProtocolError, match="another representation; the partial file was dropped"):
            client.get(f"/resume/{key}/cut,range-b", download=target)
        with pytest.raises(gatewire.ProtocolError, match="a 206 answered a request without Range"):
            client.get(f"/resume/{uuid.uuid4().hex}/partial206", download=target)
    assert list(tmp_path.iterdir()) == []


def test_a_replaced_destination_keeps_its_mode(server: str, tmp_path: Path, library: str) -> None:
    kept, new = tmp_path / "kept.bin", tmp_path / "new.bin"
    kept.write_bytes(b"secret")
    kept.chmod(0o600)
    umask = int(next(line for line in Path("/proc/self/status").read_text().splitlines()
                     if line.startswith("Umask:")).split()[1], 8)
    with gatewire.Client(server) as client:
        client.get("/bytes/1000", download=kept)
        client.get("/bytes/1000", download=new)
    assert len(kept.read_bytes()) == 1000
    assert (kept.stat().st_mode & 0o777, new.stat().st_mode & 0o777) == (0o600, 0o666 & ~umask)


def test_download_cap_and_unwritable_folder(nginx: Nginx, tmp_path: Path, library: str) -> None:
    with gatewire.Client(nginx.url) as client:
        with pytest.raises(gatewire.ResponseTooLarge):
            client.get("/files/big.bin", download=tmp_path / "out.bin", download_max_bytes=1_000_000)
        assert list(tmp_path.iterdir()) == []
        with pytest.raises(gatewire.InvalidArgument, match="/nonexistent-folder/"):
            client.get("/files/big.bin", download="/nonexistent-folder/out.bin")


def test_stream_chunks_concatenate_to_the_body_with_a_slow_reader(nginx: Nginx, library: str) -> None:
    with gatewire.Client(nginx.url) as client:
        with client.stream("GET", "/files/big.bin", buffer_bytes=64 << 10) as body:
            chunks = []
            for chunk in body.iter_bytes():
                chunks.append(chunk)
                if len(chunks) < 30:
                    time.sleep(0.002)
            assert body.result.status == 200
    assert b"".join(chunks) == nginx.served
    assert len(chunks) > 1


def test_stream_from_httpbin_in_order(httpbin: str, library: str) -> None:
    path = "/stream-bytes/100000?seed=7&chunk_size=997"
    with gatewire.Client(httpbin) as client:
        whole = client.get(path).body
        with client.stream("GET", path) as body:
            streamed = b"".join(body.iter_bytes())
        with client.stream("GET", "/drip?numbytes=10&duration=0.5&delay=0") as drip:
            drops = list(drip.iter_bytes())
    assert len(whole) == 100000 and streamed == whole
    assert b"".join(drops) == b"*" * 10 and len(drops) >= 2


def test_stream_raises_the_error_and_never_streams_an_error_body(server: str, library: str) -> None:
    key = uuid.uuid4().hex
    with gatewire.Client(config={"baseURL": server, "retry": FAST_RETRY}) as client:
        with client.stream("GET", f"/fault/{key}/503,200") as body:
            streamed = b"".join(body.iter_bytes())
        assert b'"attempt": 2' in streamed
        with client.stream("GET", "/status/404") as failed:
            with pytest.raises(gatewire.HTTPStatusError):
                list(failed.iter_bytes())


def test_stream_is_not_retried_once_chunks_arrived(server: str, library: str) -> None:
    key = uuid.uuid4().hex
    with gatewire.Client(config={"baseURL": server, "retry": FAST_RETRY}) as client:
        with client.stream("GET", f"/fault/{key}/partial,200") as body:
            got = []
            with pytest.raises(gatewire.ConnectionFailed) as caught:
                for chunk in body.iter_bytes():
                    got.append(chunk)
    assert b"".join(got) == b"0123456789"
    assert len(caught.value.attempts) == 1
    assert "already reached the chunk consumer" in caught.value.attempts[0].decision


STREAM_200_MIB = """
import sys, time, gatewire
def peak():
    return next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) * 1024
size, block, total, count = 200 << 20, 1 << 20, 0, 0
with gatewire.Client(sys.argv[1]) as client:
    before = peak()
    with client.stream("GET", f"/gzip-bomb/{size}?marked=1", buffer_bytes=64 << 10, attempt_timeout=300) as body:
        for chunk in body.iter_bytes():
            for offset in range(-total % block, len(chunk), block):  # where a 1 MiB block starts
                number = ((total + offset) // block).to_bytes(8, "big")
                assert chunk[offset:offset + 8] == number[:len(chunk) - offset], total + offset
            total += len(chunk)
            count += 1
            if count % 16 == 0:
                time.sleep(0.001)
        status = body.result.status
print(status, total, peak() - before)
"""


def test_stream_of_a_200_mib_gzip_body_read_slowly_completes_in_bounded_memory(server: str, library: str) -> None:
    # A child process, so its peak memory is the stream's alone. The 64 KiB buffer pauses
    # the transfer after every chunk; libcurl 7.88's own decoding failed it at once
    # ("network: Out of memory") as one read decoded to ~100 MB.
    done = subprocess.run([sys.executable, "-c", STREAM_200_MIB, server], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    status, total, growth = map(int, done.stdout.split())
    assert (status, total) == (200, 200 << 20)
    assert growth < 16 << 20  # measured: about 2 MB; libcurl's pause buffer alone may take 64 MiB


def test_stream_of_a_gzip_bomb_past_its_cap_is_response_too_large(server: str, library: str) -> None:
    received = 0
    with gatewire.Client(server) as client:
        with client.stream("GET", f"/gzip-bomb/{200 << 20}", buffer_bytes=64 << 10, download_max_bytes=10_000_000) as body:
            with pytest.raises(gatewire.ResponseTooLarge, match=r"the streamed body passed its cap \(10000000 bytes\)"):
                for chunk in body.iter_bytes():
                    received += len(chunk)
                    time.sleep(0.001)
    assert 0 < received <= 10_000_000


def test_cli_output_refuses_a_206_of_another_representation(cli: str, server: str, tmp_path: Path) -> None:  # noqa: F811
    target, key = tmp_path / "out.bin", uuid.uuid4().hex
    done = run(cli, "call", "--base-url", server, "--max-retries", "1", "GET", f"/resume/{key}/cut,range-b,a",
               "-o", str(target))
    assert done.returncode == 1
    error = json.loads(done.stderr)
    assert error["kind"] == "protocol"
    assert 'the 206 has ETag "B", the partial file ETag "A": another representation' in error["message"]
    assert list(tmp_path.iterdir()) == []
    done = run(cli, "call", "--base-url", server, "--max-retries", "2", "GET", f"/resume/{uuid.uuid4().hex}/cut,range-b,b",
               "-o", str(target))
    assert done.returncode == 0, done.stderr
    assert target.read_bytes() == resume_version("B")
    assert json.loads(done.stderr)["bytes"] == len(resume_version("B"))  # the file's, not every attempt's


def test_cli_output_writes_the_file_and_the_summary_to_stderr(cli: str, nginx: Nginx, tmp_path: Path) -> None:  # noqa: F811
    target = tmp_path / "out.bin"
    done = run(cli, "call", "--base-url", nginx.url, "GET", "/files/big.bin", "-o", str(target))
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert json.loads(done.stderr) == {"status": 200, "path": str(target), "bytes": SIZE}
    assert target.read_bytes() == nginx.served


def test_cli_output_failure_leaves_no_file(cli: str, server: str, tmp_path: Path) -> None:  # noqa: F811
    target = tmp_path / "out.json"
    done = run(cli, "call", "--base-url", server, "GET", "/status/404", "--output", str(target))
    assert done.returncode == 1
    assert done.stdout == ""
    error = json.loads(done.stderr)
    assert (error["kind"], error["status"]) == ("http_status", 404)
    assert list(tmp_path.iterdir()) == []


def test_async_stream_from_asyncio(nginx: Nginx, library: str) -> None:
    async def main() -> bytes:
        async with gatewire.AsyncClient(nginx.url) as client:
            async with client.stream("GET", "/files/big.bin", buffer_bytes=64 << 10) as body:
                chunks = [chunk async for chunk in body.aiter_bytes()]
                assert body.result.status == 200
        return b"".join(chunks)

    assert asyncio.run(main()) == nginx.served
