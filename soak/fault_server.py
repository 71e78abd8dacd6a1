#!/usr/bin/env python3
"""The soak's HTTP/1.1 server on 127.0.0.1 (asyncio, stdlib only), scripted for faults.

    fault_server.py [--port 0] [--backlog 4096]

Prints ``PORT <n>`` on stdout once it listens, then serves until SIGTERM/SIGINT. Keep-alive
connections; the listen backlog is given (it must exceed the calls in flight, so that no SYN
is dropped and retransmitted a second later).

``GET /plain/<id>`` and ``GET /mapped/<id>`` answer 200 with the call's own body,
``{"id":<id>,"name":"call-<id>","pad":"xx..."}`` (``<id> % 97`` x's), so that a body given to
the wrong call shows. With ``?fault=<name>``, the FIRST request for that id gets the fault
and later ones (the client's retries) the body:

  reset_before      the connection is reset (RST) after the request is read, before any byte
  reset_after       the head and half the body are sent, then the connection is reset
  status_503        503, empty body
  status_503_retry  503 with ``Retry-After: 1``
  stall             nothing is sent for ``--stall`` seconds (past the client's attempt
                    timeout), then the connection is closed
  truncated         Content-Length says 50 bytes more than are sent, then the connection closes
  invalid_json      200 ``application/json`` with a body that is not JSON (use on /mapped)
  folded            the body with a folded header line after a valid header field
  folded_first      the body with a folded FIRST header line (``HTTP/1.1 200 OK\\r\\n X-...``)
  non_http          a reply that is not HTTP (an SSH banner), then the connection closes

``GET /stats`` answers JSON: requests served and faults injected, by name.

Why not http.server: its thread per connection does not keep up with 256 calls in flight
for 100,000 calls on two cores; one asyncio loop does, and it can write the broken replies.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import socket
import struct
import sys
from collections import Counter
from urllib.parse import parse_qs, urlsplit

FAULTS = ("reset_before", "reset_after", "status_503", "status_503_retry", "stall", "truncated",
          "invalid_json", "folded", "folded_first", "non_http")

seen: set[str] = set()
stats: Counter[str] = Counter()
stall_seconds = 2.0


def body_for(call_id: str) -> bytes:
    """The call's body; the soak driver builds the same bytes to compare."""
    number = int(call_id) if call_id.isdigit() else 0
    return b'{"id":%s,"name":"call-%s","pad":"%s"}' % (call_id.encode(), call_id.encode(), b"x" * (number % 97))


def head(status: str, length: int, extra: bytes = b"") -> bytes:
    return (b"HTTP/1.1 " + status.encode() + b"\r\n" + extra +
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % length)


def reset(writer: asyncio.StreamWriter) -> None:
    """Closes with RST (SO_LINGER 0) instead of FIN."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


async def answer(target: str, writer: asyncio.StreamWriter) -> bool:
    """Writes the reply to one request; False when the connection is to be dropped."""
    url = urlsplit(target)
    if url.path == "/stats":
        payload = json.dumps(dict(stats)).encode()
        writer.write(head("200 OK", len(payload)) + payload)
        return True
    parts = url.path.split("/")
    call_id = parts[2] if len(parts) == 3 else "0"
    body = body_for(call_id)
    fault = parse_qs(url.query).get("fault", [""])[0]
    stats["requests"] += 1
    if fault and call_id not in seen:
        seen.add(call_id)
        stats[fault] += 1
        if fault == "reset_before":
            reset(writer)
            return False
        if fault == "reset_after":
            writer.write(head("200 OK", len(body)) + body[: len(body) // 2])
            await writer.drain()
            reset(writer)
            return False
        if fault == "status_503":
            writer.write(head("503 Service Unavailable", 0))
            return True
        if fault == "status_503_retry":
            writer.write(head("503 Service Unavailable", 0, b"Retry-After: 1\r\n"))
            return True
        if fault == "stall":
            await asyncio.sleep(stall_seconds)
            writer.close()
            return False
        if fault == "truncated":
            writer.write(head("200 OK", len(body) + 50) + body)
            await writer.drain()
            writer.close()
            return False
        if fault == "invalid_json":
            broken = b'{"id": ' + call_id.encode() + b', "name": '
            writer.write(head("200 OK", len(broken)) + broken)
            return True
        if fault == "folded":
            writer.write(head("200 OK", len(body), b"X-Soak: first part\r\n  second part\r\n") + body)
            return True
        if fault == "folded_first":
            writer.write(b"HTTP/1.1 200 OK\r\n X-Soak: folded first line\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(body) + body)
            return True
        if fault == "non_http":
            writer.write(b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n")
            await writer.drain()
            writer.close()
            return False
    writer.write(head("200 OK", len(body)) + body)
    return True


async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            request = await reader.readuntil(b"\r\n\r\n")
            target = request.split(b" ", 2)[1].decode("latin-1")
            if not await answer(target, writer):
                return
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, IndexError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


async def main() -> None:
    global stall_seconds
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--backlog", type=int, default=4096)
    parser.add_argument("--stall", type=float, default=2.0, help="seconds a stalled reply waits")
    options = parser.parse_args()
    stall_seconds = options.stall
    server = await asyncio.start_server(connection, "127.0.0.1", options.port, backlog=options.backlog)
    print("PORT", server.sockets[0].getsockname()[1], flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    async with server:
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
