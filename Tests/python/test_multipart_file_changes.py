"""A file part that changes size while it is uploaded: exactly the declared ``Content-Length``
goes out, the attempt fails at once as ``invalid_argument`` naming the file, and the
connection is closed, so bytes appended to the file can never reach the server as a second
request on a kept-alive connection (request smuggling) nor answer the client's next call.

The server is a raw keep-alive HTTP/1.1 socket server on loopback: it reads the request head,
changes the file (append a request, or truncate it), then reads the body by its
Content-Length and answers; whatever else the connection carries is read as the next request
and answered ``SMUGGLED-RESPONSE``.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path
from typing import Callable

import pytest

import gatewire

FILE_BYTES = 32 * 1024 * 1024  # more than libcurl's upload buffer and loopback's socket buffers
SMUGGLED = b"GET /SMUGGLED HTTP/1.1\r\nHost: x\r\n\r\n"


class ChangingServer:
    """Keep-alive server; ``change`` runs once, when the first upload's head has arrived."""

    def __init__(self, change: Callable[[], None]) -> None:
        self.change = change
        self.changed = False
        self.requests: list[list] = []  # (connection number, request line, body bytes read)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(20)
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(connection, self.connections), daemon=True).start()

    def _serve(self, connection: socket.socket, number: int) -> None:
        connection.settimeout(20)
        pending = b""
        with connection:
            while True:
                try:
                    while b"\r\n\r\n" not in pending:
                        chunk = connection.recv(65536)
                        if not chunk:
                            return
                        pending += chunk
                    head, pending = pending.split(b"\r\n\r\n", 1)
                    lines = head.split(b"\r\n")
                    length = 0
                    for line in lines[1:]:
                        name, _, value = line.partition(b":")
                        if name.strip().lower() == b"content-length":
                            length = int(value.strip())
                    request = [number, lines[0], 0]
                    self.requests.append(request)
                    if length and not self.changed:
                        self.changed = True
                        self.change()
                    while len(pending) < length:
                        request[2] = len(pending)
                        chunk = connection.recv(1 << 20)
                        if not chunk:
                            return
                        pending += chunk
                    request[2] = length
                    pending = pending[length:]
                    answer = b"SMUGGLED-RESPONSE" if b"SMUGGLED" in lines[0] else b"ok"
                    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(answer), answer))
                except OSError:
                    return

    def close(self) -> None:
        self.listener.close()


def upload_then_get(tmp_path: Path, change: Callable[[Path], None]) -> tuple[ChangingServer, BaseException, bytes]:
    path = tmp_path / "upload.bin"
    path.write_bytes(b"u" * FILE_BYTES)
    server = ChangingServer(lambda: change(path))
    try:
        with gatewire.Client(f"http://127.0.0.1:{server.port}", timeout=15) as client:
            with pytest.raises(gatewire.InvalidArgument) as failure:
                client.post("/upload", files={"file": str(path)})
            follow_up = client.get("/next").body
        return server, failure.value, follow_up
    finally:
        server.close()


def test_a_file_that_grows_sends_only_its_declared_bytes(library: str, tmp_path: Path) -> None:
    def grow(path: Path) -> None:
        with path.open("ab") as handle:
            handle.write(b"\r\n" + SMUGGLED + b"x" * 1024)

    server, error, follow_up = upload_then_get(tmp_path, grow)
    assert error.kind == gatewire.ErrorKind.invalid_argument
    assert "grew while it was sent" in str(error) and "upload.bin" in str(error)
    assert follow_up == b"ok"
    assert not any(b"SMUGGLED" in line for _, line, _ in server.requests), server.requests
    # The upload's connection was closed, not reused for the next call.
    numbers = {line: number for number, line, _ in server.requests}
    assert numbers[b"GET /next HTTP/1.1"] != numbers[b"POST /upload HTTP/1.1"]


def test_a_file_that_shrinks_fails_at_once(library: str, tmp_path: Path) -> None:
    def shrink(path: Path) -> None:
        os.truncate(path, FILE_BYTES // 2)

    server, error, follow_up = upload_then_get(tmp_path, shrink)
    assert error.kind == gatewire.ErrorKind.invalid_argument
    assert "shrank while it was sent" in str(error) and f"{FILE_BYTES} bytes were declared" in str(error)
    assert follow_up == b"ok"
    upload = [read for _, line, read in server.requests if line.startswith(b"POST")]
    assert upload and upload[0] < FILE_BYTES  # the body stayed short; the server saw the connection close


def test_file_parts_keep_libcurls_filename_and_type(server: str, library: str, key: str, tmp_path: Path) -> None:
    page = tmp_path / "page.HTML"
    page.write_bytes(b"<p>")
    with gatewire.Client(server) as client:
        result = client.post(f"/multipart/{key}/200", files=[("page", page), ("named", ("q.jpeg", page))])
    assert [(p["name"], p["filename"], p["content_type"], p["size"]) for p in json.loads(result.body)["parts"]] == [
        ("page", "page.HTML", "text/html", 3), ("named", "q.jpeg", "image/jpeg", 3)]
