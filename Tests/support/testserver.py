#!/usr/bin/env python3
"""Scripted HTTP/1.1 test server for Gatewire's Swift, C and Python tests.

Standard library only (but /multipart, which parses with werkzeug). Binds 127.0.0.1 (port 0 unless --port), prints ``PORT <n>`` as its
first stdout line, flushes, and serves until killed. Two twins share its state (counters,
tokens) for the redirect tests' other origins: the same port on 127.0.0.2 (another host,
served like the main one, TLS included) and a second port on 127.0.0.1 that always speaks
plain HTTP (another port; the http side of an https server). Every response carries Content-Length so
keep-alive works. Endpoints (any method unless stated):

  /echo[/anything]          200 {"method", "path", "query", "headers", "body", "target"}; target:
                            the request-target as received, absolute-form
                            ("http://host:port/echo") when a client used this server as
                            its HTTP proxy (any endpoint answers an absolute-form request
                            as it would the origin-form one)
  /nested/<depth>           200 {"tree": [[...["leaf"]...]]}: arrays nested <depth> levels
  /headers                  200 {"headers": {lower-case name: value}}
  /status/<code>            that status, body {"status": code} (none for 1xx/204/304);
                            ?retry_after=<v> adds Retry-After
  /sequence/<key>/<s1>,<s2> n-th request for <key> answers s_n (the last repeats), body
                            {"key", "attempt", "status"}; ?retry_after=<v> on non-2xx
  /sequence/<key>/count     GET: {"count": n} for <key>, not counted itself
  /sequence/<key>/traces    GET: {"traceparent": [...], "tracestate": [...]}: those fields of each
                            counted request for <key> in order (null where absent), not counted itself
  /cacheable/<key>          counted as /sequence's keys; 304 when ?etag=<e> is given and the
                            request's If-None-Match is it, else 200 {"key", "attempt",
                            "headers"}; ?cc=, ?vary=, ?etag=, ?set_cookie= set Cache-Control,
                            Vary, ETag, Set-Cookie
  /delay/<ms>               sleeps, then 200 {"delayed_ms": ms}
  /fixture/<name>           a file from --fixtures; ?status=<code>, ?content_type=<type>
  /pages/<name>             real fixtures served across pages (the paginator tests):
                            github-issues?page=N (1..5): the issues list with GitHub's Link
                            header (next/last/prev/first, this server's URL) and its recorded
                            headers, and Last-Modified; github-search?page=N&per_page=K: the search envelope with
                            items sliced, total_count kept; slack?cursor=C: the Slack list,
                            then (cursor = its next_cursor) its second channel with
                            next_cursor ""; twitter?cursor=C: the ids list, then (cursor =
                            1305102810874389703, exactly) the ids reversed with next_cursor 0;
                            stripe-charges?starting_after=ID: Stripe's list of its recorded
                            charge as ch_1...ch_5, two a page, has_more; twilio-messages?Page=N
                            (0...2): one message a page and next_page_uri (null on the last)
  /gzip                     gzip-encoded JSON when Accept-Encoding allows gzip
  /bytes/<n>                200 application/octet-stream of n bytes ("0123456789" repeated),
                            streamed in 64 KiB writes with Content-Length n; ?chunked=1 sends
                            them chunked, without Content-Length (HEAD: the headers only)
  /gzip-bomb/<n>            200 Content-Encoding: gzip whatever the request accepts: n zero
                            bytes once decoded, about n/1000 on the wire (Content-Length
                            the compressed size; made once per n and kept); ?marked=1: each
                            1 MiB of it starts with its number (8 bytes, big-endian), so a
                            byte out of place shows
  /encoded/<codings>/<n>    200 of the first n bytes of "line 00000000\\n", "line 00000001\\n", ...
                            encoded by each coding of the comma-separated list in turn (gzip,
                            x-gzip, deflate: zlib-wrapped, rawdeflate: sent as deflate without
                            the zlib header, gzip2: two gzip members sent as gzip, br: sent as
                            br but not encoded, identity), with Content-Encoding naming them
                            whatever the request accepts; X-Accept-Encoding echoes the
                            request's Accept-Encoding
  /reset                    reads the request, then closes the socket without answering
  /fault/<key>/<step>,...   scripted faults: the n-th request for <key> runs step n (the last
                            repeats). A step is a base and optional "+" modifiers:
                              <status>        that status, body {"key", "attempt", "status"}
                              reset-before    reset (RST) after the request head, body unread
                              reset-after     read the whole request, then reset (RST)
                              partial         200 with Content-Length 100, 10 bytes, then close
                              stall<ms>       200 with 20 bytes: 10, a pause of <ms>, 10 more
                              delay<ms>       wait <ms> before the headers, then 200
                              folded          the exact bytes `HTTP/1.1 200 OK\r\n  "id": 1\r\n\r\n`
                                              (a first field line that starts with spaces:
                                              obsolete line folding with nothing to fold onto)
                              folded-lf       the same with bare LF line ends
                              not-http        `{"id": 1}\r\n`, no status line (an HTTP/0.9-style reply)
                              +ra<v>          add "Retry-After: <v>" (v verbatim: seconds or text)
                              +radate<s>      add Retry-After as an IMF-fixdate <s> seconds ahead
                              +delay<ms>      wait <ms> before acting
                              +keep           keep the connection open (default: every
                                              answer closes it, so each attempt uses a new
                                              connection and libcurl's own silent re-send on
                                              a dead reused connection cannot hide a fault)
                            e.g. /fault/k1/503+ra2,reset-after,200
  /fault/<key>/count        GET: {"count": n} requests seen for <key>, not counted itself
  /resume/<key>/<step>,...  a download and its resumption: the n-th request for <key> runs step
                            n (the last repeats). The representation is 10,240 bytes, byte i
                            (7i+1) % 251 (version A) or (13i+5) % 251 (version B), with
                            `ETag: "A"` (or "B") and `Last-Modified: Tue, 10 Oct 2017 16:00:00
                            GMT`. N below is the first byte the request's `Range: bytes=N-`
                            asks for (0 without one). A step is a base and "+" modifiers:
                              cut             200 of A, Content-Length 10,240; sends 5,120 bytes, closes
                              a, b            200 of A, of B (Range and If-Range ignored)
                              range           a server that honours ranges: 206 of A[N:] with
                                              `Content-Range: bytes N-10239/10240`, 200 of A without Range
                              range-b         206 of B[N:] (ETag "B"): a changed representation
                              range-end       206 of A, `bytes N-35839/10240`, 35,840 - N bytes
                              range-total     206 of A, `bytes N-35839/35840`, 35,840 - N bytes
                              range-short     206 of A, `bytes N-(N+9)/10240`, 10 bytes
                              range-more      206 of A, `bytes N-10239/10240`, 35,840 - N bytes
                              range-empty     206 of A, `bytes N-10239/10240`, Content-Length 0
                              partial206      206 of A[:5120], `bytes 0-5119/10240`, whatever was asked
                              +noetag         no ETag field
                              +lmnow          Last-Modified is the Date (this second)
                              +lm2018         Last-Modified a year later (a changed date)
                              +gzip           (cut) the body gzip-encoded, Content-Length its
                                              size; half of it is sent
                              +nolength       no Content-Length: the body ends when the connection closes
  /resume/<key>/log         GET: {"requests": [{"range", "if_range"}, ...]}: what each request
                            for <key> sent (null for a field it did not send)
  /auth/<realm>             200 {"realm", "authorized": true} only for "Authorization: Bearer
                            <current token of realm>" (no token until rotated), else 401
  /auth/<realm>/rotate      makes a new token for realm, 200 {"token", "rotations"}
  /auth/<realm>/rotations   GET: {"rotations": n, "rejected": n (401s answered)}
  /slack/<error>            200 {"ok": false, "error": <error>} (Slack-style), /slack/ok: {"ok": true}
  /redirect-to?url=<u>&status=<code>
                            <code> (default 302) with Location: <u> (verbatim: absolute or
                            relative); <u> may start with @host2 (http://127.0.0.2:<this
                            port>) or @port2 (http://127.0.0.1:<the plain twin's port>); the
                            request body is read and dropped
  /redirect/<n>             302 to /redirect/<n-1> (relative), /redirect/0 answers as /echo
  /multipart/<key>/<s1>,<s2> a multipart/form-data body parsed as it streams in (werkzeug's
                            decoder, from the venv: the one endpoint that needs more than the
                            standard library); the n-th request for <key> answers s_n (the last
                            repeats) with {"attempt", "status", "content_type", "parts"}: each
                            part in order as {"name", "filename", "content_type", "size",
                            "sha256"}, plus "text" for a part without a filename
                            ?grow=<file>: before reading the body, appends to <file> a request
                            for /sequence/<key>-smuggled/200 (what a smuggled request would
                            reach); ?shrink=<file>: truncates <file> to half its size first
  /multipart/<key>/log      GET: {"attempts": [...]}, each request's answer for <key> in order
  /raw-headers              200 {} with a hand-written header section that tests header parsing:
                            padded values, an empty value, a colon in a value, a name twice,
                            obsolete line folding; ?hints=1 sends a 103 Early Hints response
                            first; ?chunked=1 sends the body chunked with a trailer field;
                            ?redirect=1 answers 302 (with its own fields) to /raw-headers
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import socket
import ssl
import subprocess
import tempfile
import struct
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_FIXTURES = REPO_ROOT / "Tests" / "fixtures" / "real"

NO_BODY_STATUSES = {204, 304}

# The /fault steps that answer with exact bytes instead of a well-formed response.
RAW_REPLIES = {
    "folded": b'HTTP/1.1 200 OK\r\n  "id": 1\r\n\r\n',
    "folded-lf": b'HTTP/1.1 200 OK\n  "id": 1\n\n',
    "not-http": b'{"id": 1}\r\n',
}


class Server(ThreadingHTTPServer):
    request_queue_size = 128  # the default backlog of 5 stalls bursts by 1 s (SYN retransmit)
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, handler, fixtures: Path, verbose: bool):
        super().__init__(address, handler)
        self.fixtures = fixtures
        self.verbose = verbose
        self.counters: dict[str, int] = {}
        self.counters_lock = threading.Lock()
        self.tokens: dict[str, dict[str, object]] = {}  # realm -> {"token", "rotations", "rejected"}
        self.ports: dict[str, int] = {}  # "main" and "plain" (the twins'), shared by the twins
        self.bombs: dict[tuple[int, bool], bytes] = {}  # /gzip-bomb/<n>: (decoded size, marked) -> gzip body
        self.uploads: dict[str, list[dict]] = {}  # /multipart/<key>: what each request sent
        self.resumes: dict[str, list[dict]] = {}  # /resume/<key>: the Range fields of each request
        self.traces: dict[str, list[tuple]] = {}  # /sequence/<key>: (traceparent, tracestate) of each request

    def twin(self, address) -> "Server":
        """Another listener (another origin) that shares this server's state."""
        other = Server(address, self.RequestHandlerClass, self.fixtures, self.verbose)
        (other.counters, other.counters_lock, other.tokens, other.ports, other.uploads, other.resumes,
         other.traces) = (self.counters, self.counters_lock, self.tokens, self.ports, self.uploads, self.resumes,
                          self.traces)
        return other

    def handle_error(self, request, client_address):
        # Clients that hang up (tests of cancellation, /reset) are expected: stay quiet.
        if self.verbose:
            super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "GatewireTestServer/1.0"
    server: Server

    # -- plumbing -------------------------------------------------------------------------

    def log_message(self, format, *args):  # noqa: A002 (BaseHTTPRequestHandler's name)
        if self.server.verbose:
            super().log_message(format, *args)

    def _read_body(self) -> bytes:
        length = self.headers.get("Content-Length")
        if length:
            try:
                n = int(length)
            except ValueError:
                n = 0
            return self.rfile.read(n) if n > 0 else b""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                size_line = self.rfile.readline()
                size = int(size_line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        return b""

    def _send(self, status: int, body: bytes = b"", content_type: str | None = "application/json",
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        if status in NO_BODY_STATUSES or 100 <= status < 200:
            body = b""
        elif content_type:
            self.send_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if status not in NO_BODY_STATUSES and not 100 <= status < 200:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, obj, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(obj).encode(), headers=headers)

    # -- dispatch -------------------------------------------------------------------------

    def _handle(self) -> None:
        self.request_target = self.path
        if self.path.startswith(("http://", "https://")):  # absolute-form: sent to a proxy
            absolute = urlsplit(self.path)
            self.path = absolute.path + ("?" + absolute.query if absolute.query else "")
        if self.path.startswith("/fault/"):
            return self._fault()
        if self.path.startswith("/multipart/"):
            return self._multipart()
        body = self._read_body()
        url = urlsplit(self.path)
        path = url.path
        query = dict(parse_qsl(url.query, keep_blank_values=True))
        parts = [unquote(p) for p in path.split("/") if p != ""]
        head = parts[0] if parts else ""
        try:
            if head == "echo":
                return self._echo(path, query, body)
            if head == "headers" and len(parts) == 1:
                return self._json(200, {"headers": self._headers_dict()})
            if head == "status" and len(parts) == 2:
                return self._status(parts[1], query)
            if head == "sequence" and len(parts) == 3:
                return self._sequence(parts[1], parts[2], query)
            if head == "cacheable" and len(parts) == 2:
                return self._cacheable(parts[1], query)
            if head == "delay" and len(parts) == 2:
                return self._delay(parts[1])
            if head == "fixture" and len(parts) >= 2:
                return self._fixture("/".join(parts[1:]), query)
            if head == "pages" and len(parts) == 2:
                return self._pages(parts[1], query)
            if head == "gzip" and len(parts) == 1:
                return self._gzip()
            if head == "bytes" and len(parts) == 2:
                return self._bytes(parts[1], query)
            if head == "gzip-bomb" and len(parts) == 2:
                return self._gzip_bomb(parts[1], query.get("marked") == "1")
            if head == "encoded" and len(parts) == 3:
                return self._encoded(parts[1], parts[2])
            if head == "reset" and len(parts) == 1:
                return self._reset()
            if head == "resume" and len(parts) == 3:
                return self._resume(parts[1], parts[2])
            if head == "auth" and len(parts) in (2, 3):
                return self._auth(parts[1], parts[2] if len(parts) == 3 else None)
            if head == "redirect-to" and len(parts) == 1:
                return self._redirect_to(query)
            if head == "redirect" and len(parts) == 2:
                return self._redirect(parts[1], path, query, body)
            if head == "raw-headers" and len(parts) == 1:
                return self._raw_headers(query)
            if head == "nested" and len(parts) == 2:
                depth = int(parts[1])
                return self._send(200, b'{"tree": ' + b"[" * depth + b'"leaf"' + b"]" * depth + b"}")
            if head == "slack" and len(parts) == 2:
                return self._json(200, {"ok": True} if parts[1] == "ok" else {"ok": False, "error": parts[1]})
            return self._json(404, {"error": "no such endpoint", "path": path})
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client stopped reading (e.g. a size limit)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_TRACE = _handle

    def _raw_headers(self, query: dict[str, str]) -> None:
        if query.get("redirect") == "1":
            self.wfile.write(b"HTTP/1.1 302 Found\r\nLocation: /raw-headers\r\nX-Redirect: first hop\r\n"
                             b"Content-Length: 0\r\n\r\n")
            return
        if query.get("hints") == "1":
            self.wfile.write(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n")
        head = (b"HTTP/1.1 200 OK\r\n"
                b"Content-Type:   application/json  \r\n"
                b"X-Folded: first\r\n"
                b" \t  second part  \r\n"
                b"\tthird\r\n"
                b"x-twice: one\r\n"
                b"X-Twice: two\r\n"
                b"X-Empty:\r\n"
                b"X-Colon: a: b\r\n"
                b"X-Tab:\tvalue\t\r\n")
        if query.get("chunked") == "1":
            self.wfile.write(head + b"Transfer-Encoding: chunked\r\nTrailer: X-Trailer\r\n\r\n"
                             b"2\r\n{}\r\n0\r\nX-Trailer: after the body\r\n\r\n")
        else:
            self.wfile.write(head + b"Content-Length: 2\r\n\r\n{}")

    def _redirect_to(self, query: dict[str, str]) -> None:
        target = query.get("url", "")
        for alias, origin in (("@host2", f"http://127.0.0.2:{self.server.ports['main']}"),
                              ("@port2", f"http://127.0.0.1:{self.server.ports['plain']}")):
            if target.startswith(alias):
                target = origin + target[len(alias):]
        try:
            status = int(query.get("status", "302"))
        except ValueError:
            return self._json(400, {"error": "status must be an integer"})
        self._json(status, {"location": target}, headers={"Location": target})

    def _redirect(self, count_text: str, path: str, query: dict[str, str], body: bytes) -> None:
        try:
            count = int(count_text)
        except ValueError:
            return self._json(400, {"error": "the hop count must be an integer"})
        if count <= 0:
            return self._echo(path, query, body)
        self._json(302, {"hops_left": count}, headers={"Location": f"/redirect/{count - 1}"})

    def _headers_dict(self) -> dict[str, str]:
        result: dict[str, str] = {}
        for name, value in self.headers.items():
            key = name.lower()
            result[key] = f"{result[key]}, {value}" if key in result else value
        return result

    # -- endpoints ------------------------------------------------------------------------

    def _echo(self, path: str, query: dict[str, str], body: bytes) -> None:
        parsed = None
        if body:
            text = body.decode("utf-8", errors="replace")
            try:
                parsed = json.loads(text)
            except ValueError:
                parsed = text
        self._json(200, {"method": self.command, "path": path, "query": query,
                         "headers": self._headers_dict(), "body": parsed, "target": self.request_target})

    def _status(self, code_text: str, query: dict[str, str]) -> None:
        try:
            code = int(code_text)
        except ValueError:
            return self._json(400, {"error": "status must be an integer"})
        if not 100 <= code <= 599:
            return self._json(400, {"error": "status out of range"})
        headers = {"Retry-After": query["retry_after"]} if "retry_after" in query else None
        self._json(code, {"status": code}, headers=headers)

    def _sequence(self, key: str, spec: str, query: dict[str, str]) -> None:
        if spec == "count":
            with self.server.counters_lock:
                count = self.server.counters.get(key, 0)
            return self._json(200, {"count": count})
        if spec == "traces":
            with self.server.counters_lock:
                seen = list(self.server.traces.get(key, []))
            return self._json(200, {"traceparent": [t[0] for t in seen], "tracestate": [t[1] for t in seen]})
        try:
            statuses = [int(s) for s in spec.split(",") if s != ""]
        except ValueError:
            return self._json(400, {"error": "statuses must be integers"})
        if not statuses or not all(100 <= s <= 599 for s in statuses):
            return self._json(400, {"error": "need one or more statuses in 100...599"})
        with self.server.counters_lock:
            attempt = self.server.counters.get(key, 0) + 1
            self.server.counters[key] = attempt
            self.server.traces.setdefault(key, []).append(
                (self.headers.get("traceparent"), self.headers.get("tracestate")))
        status = statuses[min(attempt, len(statuses)) - 1]
        headers = None
        if "retry_after" in query and not 200 <= status < 300:
            headers = {"Retry-After": query["retry_after"]}
        self._json(status, {"key": key, "attempt": attempt, "status": status}, headers=headers)

    def _cacheable(self, key: str, query: dict[str, str]) -> None:
        with self.server.counters_lock:
            attempt = self.server.counters.get(key, 0) + 1
            self.server.counters[key] = attempt
        fields = {name: query[q] for q, name in (("cc", "Cache-Control"), ("vary", "Vary"), ("etag", "ETag"),
                                                 ("set_cookie", "Set-Cookie")) if q in query}
        if "etag" in query and self.headers.get("If-None-Match") == query["etag"]:
            return self._send(304, headers=fields)
        self._json(200, {"key": key, "attempt": attempt, "headers": self._headers_dict()}, headers=fields)

    def _delay(self, ms_text: str) -> None:
        try:
            ms = int(ms_text)
        except ValueError:
            return self._json(400, {"error": "delay must be an integer (ms)"})
        time.sleep(max(0, min(ms, 600_000)) / 1000)
        self._json(200, {"delayed_ms": ms})

    def _fixture(self, name: str, query: dict[str, str]) -> None:
        root = self.server.fixtures.resolve()
        file = (root / name).resolve()
        if root not in file.parents or not file.is_file():
            return self._json(404, {"error": "no such fixture", "name": name})
        status = int(query.get("status", "200"))
        if "content_type" in query:
            content_type = query["content_type"]
        elif file.suffix == ".json":
            content_type = "application/json"
        elif file.suffix in (".html", ".htm"):
            content_type = "text/html; charset=utf-8"
        else:
            content_type = "application/octet-stream"
        self._send(status, file.read_bytes(), content_type=content_type)

    # -- /pages: paging over real fixtures -----------------------------------------------

    def _fixture_json(self, name: str):
        return json.loads((self.server.fixtures / name).read_text(encoding="utf-8"))

    def _pages(self, name: str, query: dict[str, str]) -> None:
        base = f"http://{self.headers.get('Host', '127.0.0.1')}/pages/{name}"
        if name == "github-issues":
            recorded = self._fixture_json("github-issues-list-page1.headers.json")
            try:
                page = int(query.get("page", "1"))
            except ValueError:
                return self._json(400, {"error": "page must be an integer"})
            if not 1 <= page <= 5:
                return self._json(404, {"message": "Not Found"})
            per_page = query.get("per_page", "3")
            def link(n: int, rel: str) -> str:
                return f'<{base}?per_page={per_page}&page={n}>; rel="{rel}"'
            links = []
            if page < 5:
                links += [link(page + 1, "next"), link(5, "last")]
            if page > 1:
                links += [link(page - 1, "prev"), link(1, "first")]
            headers = {k: v for k, v in recorded["headers"].items() if k not in ("content-type", "link")}
            headers["Link"] = ", ".join(links)
            # GitHub sends Last-Modified (an HTTP-date); the recording's dates are all
            # normalised to 2017-10-10T16:00:00Z, so this one is too.
            headers["Last-Modified"] = "Tue, 10 Oct 2017 16:00:00 GMT"
            body = (self.server.fixtures / "github-issues-list-page1.json").read_bytes()
            return self._send(200, body, content_type=recorded["headers"]["content-type"], headers=headers)
        if name == "github-search":
            document = self._fixture_json("github-search-issues.json")
            try:
                page, per_page = int(query.get("page", "1")), int(query.get("per_page", "30"))
            except ValueError:
                return self._json(422, {"message": "Validation Failed"})
            document["items"] = document["items"][(page - 1) * per_page:page * per_page]
            return self._send(200, json.dumps(document, ensure_ascii=False).encode(),
                              content_type="application/json; charset=utf-8")
        if name == "slack":
            document = self._fixture_json("slack-conversations-list-cursor.json")
            cursor = query.get("cursor", "")
            if cursor == document["response_metadata"]["next_cursor"]:
                document["channels"] = document["channels"][1:]
                document["response_metadata"]["next_cursor"] = ""
            elif cursor:
                return self._json(200, {"ok": False, "error": "invalid_cursor"})
            return self._send(200, json.dumps(document, ensure_ascii=False).encode())
        if name == "twitter":
            text = (self.server.fixtures / "twitter-ids-cursor-bigint.json").read_text(encoding="utf-8")
            cursor = query.get("cursor", "")
            if cursor == "1305102810874389703":
                document = json.loads(text)
                document.update(ids=document["ids"][::-1], next_cursor=0, next_cursor_str="0",
                                previous_cursor=-1305102810874389703, previous_cursor_str="-1305102810874389703")
                text = json.dumps(document)
            elif cursor not in ("", "-1"):
                return self._json(400, {"errors": [{"code": 44, "message": "cursor parameter is invalid"}]})
            return self._send(200, text.encode())
        if name == "stripe-charges":
            # Stripe's list envelope around its recorded charge, ids ch_1...ch_5, two a page:
            # starting_after=<id> gives the two after it, has_more whether any follow.
            charge = self._fixture_json("stripe-charge.json")
            ids = [f"ch_{n}" for n in range(1, 6)]
            after = query.get("starting_after")
            if after is not None and after not in ids:
                return self._json(400, {"error": {"type": "invalid_request_error", "param": "starting_after"}})
            start = ids.index(after) + 1 if after else 0
            data = [dict(charge, id=charge_id) for charge_id in ids[start:start + 2]]
            return self._json(200, {"object": "list", "url": "/v1/charges", "has_more": start + 2 < len(ids),
                                    "data": data})
        if name == "twilio-messages":
            # Twilio's list envelope: Page=N (0...2) with its next_page_uri, an absolute path on
            # this server (null on the last page), as api.twilio.com writes it.
            try:
                page = int(query.get("Page", "0"))
            except ValueError:
                return self._json(400, {"message": "Page must be an integer"})
            following = f"/pages/twilio-messages?PageSize=1&Page={page + 1}&PageToken=PA{page + 1}" if page < 2 else None
            return self._json(200, {"messages": [{"sid": f"SM{page}", "body": f"message {page}"}], "page": page,
                                    "page_size": 1, "next_page_uri": following,
                                    "uri": f"/pages/twilio-messages?PageSize=1&Page={page}"})
        return self._json(404, {"error": "no such paged fixture", "name": name})

    def _gzip(self) -> None:
        payload = json.dumps({"gzipped": True, "message": "hello " * 20}).encode()
        accepts = [p.split(";")[0].strip().lower() for p in self.headers.get("Accept-Encoding", "").split(",")]
        if "gzip" in accepts:
            self._send(200, gzip.compress(payload), headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
        else:
            self._send(200, payload, headers={"Vary": "Accept-Encoding"})

    def _bytes(self, count_text: str, query: dict[str, str]) -> None:
        try:
            count = int(count_text)
        except ValueError:
            return self._json(400, {"error": "the byte count must be an integer"})
        chunked = query.get("chunked") == "1"
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding" if chunked else "Content-Length", "chunked" if chunked else str(count))
        self.end_headers()
        if self.command == "HEAD":
            return
        block = b"0123456789" * 6554  # 65,540 bytes
        left = count
        while left > 0:
            piece = block[:min(left, 65536)]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            left -= len(piece)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")

    @staticmethod
    def lines(count: int) -> bytes:
        """The first `count` bytes of "line 00000000\\n", "line 00000001\\n", ... (14 bytes each)."""
        return b"".join(b"line %08d\n" % i for i in range(count // 14 + 1))[:count]

    def _encoded(self, codings: str, count_text: str) -> None:
        try:
            body = self.lines(int(count_text))
        except ValueError:
            return self._json(400, {"error": "the byte count must be an integer"})
        names = []
        for coding in codings.split(","):
            if coding in ("gzip", "x-gzip"):
                body = gzip.compress(body)
            elif coding == "gzip2":
                body = gzip.compress(body[:len(body) // 2]) + gzip.compress(body[len(body) // 2:])
            elif coding == "deflate":
                body = zlib.compress(body)
            elif coding == "rawdeflate":
                raw = zlib.compressobj(9, zlib.DEFLATED, -15)
                body = raw.compress(body) + raw.flush()
            elif coding not in ("br", "identity"):
                return self._json(400, {"error": f"unknown coding {coding!r}"})
            names.append({"gzip2": "gzip", "rawdeflate": "deflate"}.get(coding, coding))
        self._send(200, body, content_type="text/plain",
                   headers={"Content-Encoding": ", ".join(names),
                            "X-Accept-Encoding": self.headers.get("Accept-Encoding", "")})

    def _gzip_bomb(self, count_text: str, marked: bool) -> None:
        try:
            count = int(count_text)
        except ValueError:
            return self._json(400, {"error": "the byte count must be an integer"})
        with self.server.counters_lock:
            body = self.server.bombs.get((count, marked))
        if body is None:
            compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: the gzip container
            zeros, pieces, left, number = bytes(1 << 20), [], count, 0
            while left > 0:
                block = struct.pack(">Q", number) + zeros[8:] if marked else zeros
                pieces.append(compressor.compress(block[:min(left, len(block))]))
                left -= min(left, len(block))
                number += 1
            body = b"".join(pieces) + compressor.flush()
            with self.server.counters_lock:
                self.server.bombs[(count, marked)] = body
        self._send(200, body, content_type="application/octet-stream", headers={"Content-Encoding": "gzip"})

    RESUME_SIZE = 10240

    @staticmethod
    def resume_version(name: str) -> bytes:
        """Version A or B of /resume's representation (10,240 bytes)."""
        step, offset = (7, 1) if name == "A" else (13, 5)
        return bytes((step * i + offset) % 251 for i in range(Handler.RESUME_SIZE))

    def _resume(self, key: str, spec: str) -> None:
        key = "resume:" + key
        if spec == "log":
            with self.server.counters_lock:
                return self._json(200, {"requests": list(self.server.resumes.get(key, []))})
        asked, validator = self.headers.get("Range"), self.headers.get("If-Range")
        with self.server.counters_lock:
            log = self.server.resumes.setdefault(key, [])
            log.append({"range": asked, "if_range": validator})
            steps = spec.split(",")
            base, *modifiers = steps[min(len(log), len(steps)) - 1].split("+")
        first = 0
        if asked and asked.startswith("bytes=") and asked.endswith("-") and asked[6:-1].isdigit():
            first = int(asked[6:-1])
        size, whole = self.RESUME_SIZE, self.resume_version("B" if base in ("b", "range-b") else "A")
        now = self.date_time_string()  # one Date for the field and +lmnow
        headers = {"Date": now, "ETag": '"B"' if base in ("b", "range-b") else '"A"',
                   "Last-Modified": "Tue, 10 Oct 2017 16:00:00 GMT", "Connection": "close"}
        if "noetag" in modifiers:
            del headers["ETag"]
        if "lmnow" in modifiers:
            headers["Last-Modified"] = now
        if "lm2018" in modifiers:
            headers["Last-Modified"] = "Wed, 10 Oct 2018 16:00:00 GMT"
        self.close_connection = True
        padding = bytes(35840)  # what a lying server sends past the representation's end
        if base == "cut":
            body = whole
            if "gzip" in modifiers:
                body = gzip.compress(whole)
                headers["Content-Encoding"] = "gzip"
            return self._resume_reply(200, headers, len(body), body[:len(body) // 2 if "gzip" in modifiers else 5120])
        if base in ("a", "b") or (base == "range" and not asked):
            return self._resume_reply(200, headers, size, whole)
        if base == "partial206":
            headers["Content-Range"] = f"bytes 0-5119/{size}"
            return self._resume_reply(206, headers, 5120, whole[:5120])
        ranges = {"range": (size - 1, size, whole[first:]), "range-b": (size - 1, size, whole[first:]),
                  "range-end": (35839, size, (whole + padding)[first:35840]),
                  "range-total": (35839, 35840, (whole + padding)[first:35840]),
                  "range-short": (first + 9, size, whole[first:first + 10]),
                  "range-more": (size - 1, size, (whole + padding)[first:35840]),
                  "range-empty": (size - 1, size, b"")}
        if base not in ranges:
            return self._json(400, {"error": f"unknown step {base!r}"})
        last, total, body = ranges[base]
        headers["Content-Range"] = f"bytes {first}-{last}/{total}"
        self._resume_reply(206, headers, None if "nolength" in modifiers else len(body), body)

    def _resume_reply(self, status: int, headers: dict[str, str], length: int | None, body: bytes) -> None:
        """A /resume answer: `length` as Content-Length (None: none, the close ends the body),
        then `body` (fewer bytes: a cut). `headers` holds the Date field (send_response would
        write another)."""
        self.log_request(status)
        self.send_response_only(status)
        self.send_header("Server", self.version_string())
        self.send_header("Content-Type", "application/octet-stream")
        for name, value in headers.items():
            self.send_header(name, value)
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _fault(self) -> None:
        parts = [unquote(p) for p in urlsplit(self.path).path.split("/") if p != ""]
        if len(parts) != 3:
            self._read_body()
            return self._json(400, {"error": "use /fault/<key>/<step>,<step>,..."})
        key, spec = "fault:" + parts[1], parts[2]
        if spec == "count":
            self._read_body()
            with self.server.counters_lock:
                count = self.server.counters.get(key, 0)
            return self._json(200, {"count": count})
        steps = [s for s in spec.split(",") if s != ""]
        if not steps:
            self._read_body()
            return self._json(400, {"error": "no steps"})
        with self.server.counters_lock:
            attempt = self.server.counters.get(key, 0) + 1
            self.server.counters[key] = attempt
        base, *modifiers = steps[min(attempt, len(steps)) - 1].split("+")
        headers: dict[str, str] = {} if "keep" in modifiers else {"Connection": "close"}
        for modifier in modifiers:
            if modifier.startswith("radate"):
                when = time.time() + float(modifier[6:])
                headers["Retry-After"] = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(when))
            elif modifier.startswith("ra"):
                headers["Retry-After"] = modifier[2:]
            elif modifier.startswith("delay"):
                time.sleep(int(modifier[5:]) / 1000)
        if base == "reset-before":
            return self._reset()
        self._read_body()
        if base == "reset-after":
            return self._reset()
        if base == "partial" or base.startswith("stall"):
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "100" if base == "partial" else "20")
            self.end_headers()
            self.close_connection = "Connection" in headers
            self.wfile.write(b"0123456789")
            self.wfile.flush()
            if base == "partial":
                self.close_connection = True
                return
            time.sleep(int(base[5:]) / 1000)
            self.wfile.write(b"abcdefghij")
            return
        raw = RAW_REPLIES.get(base)
        if raw is not None:
            self.wfile.write(raw)
            self.wfile.flush()
            self.close_connection = "Connection" in headers
            return
        if base.startswith("delay"):
            time.sleep(int(base[5:]) / 1000)
            status = 200
        else:
            try:
                status = int(base)
            except ValueError:
                return self._json(400, {"error": f"unknown step {base!r}"})
        self._json(status, {"key": parts[1], "attempt": attempt, "status": status}, headers=headers)
        if "Connection" in headers:
            self.close_connection = True
    def _multipart(self) -> None:
        parts = [unquote(p) for p in urlsplit(self.path).path.split("/") if p != ""]
        if len(parts) != 3:
            self._read_body()
            return self._json(400, {"error": "use /multipart/<key>/<status>,<status>,..."})
        key, spec = "multipart:" + parts[1], parts[2]
        if spec == "log":
            self._read_body()
            with self.server.counters_lock:
                return self._json(200, {"attempts": list(self.server.uploads.get(key, []))})
        query = dict(parse_qsl(urlsplit(self.path).query, keep_blank_values=True))
        if "grow" in query:
            with open(query["grow"], "ab") as file:
                file.write(b"\r\nGET /sequence/%s-smuggled/200 HTTP/1.1\r\nHost: x\r\n\r\n" % parts[1].encode())
        if "shrink" in query:
            os.truncate(query["shrink"], os.path.getsize(query["shrink"]) // 2)
        seen = self._multipart_parts()
        with self.server.counters_lock:
            log = self.server.uploads.setdefault(key, [])
            steps = spec.split(",")
            status = int(steps[min(len(log), len(steps) - 1)])
            answer = {"attempt": len(log) + 1, "status": status,
                      "content_type": self.headers.get("Content-Type", ""), "parts": seen}
            log.append(answer)
        self._json(status, answer)

    def _multipart_parts(self) -> list[dict] | str:
        """The parts of the request's multipart body, read in 1 MiB pieces (a file part is
        hashed as it arrives, never held whole), or why it is not one."""
        from werkzeug.http import parse_options_header
        from werkzeug.sansio.multipart import Data, Field, File, MultipartDecoder, NeedData

        kind, options = parse_options_header(self.headers.get("Content-Type", ""))
        remaining = int(self.headers.get("Content-Length") or 0)
        if kind != "multipart/form-data" or "boundary" not in options:
            self.rfile.read(remaining)
            return f"not multipart/form-data: {kind!r}"
        decoder = MultipartDecoder(options["boundary"].encode())
        parts: list[dict] = []
        digest = None
        text = b""
        while True:
            event = decoder.next_event()
            if isinstance(event, NeedData):
                if remaining == 0:
                    break
                chunk = self.rfile.read(min(remaining, 1 << 20))
                remaining -= len(chunk)
                decoder.receive_data(chunk if chunk else None)
                if not chunk:
                    remaining = 0
            elif isinstance(event, (Field, File)):
                parts.append({"name": event.name, "filename": getattr(event, "filename", None),
                              "content_type": event.headers.get("Content-Type"), "size": 0})
                digest, text = hashlib.sha256(), b""
            elif isinstance(event, Data):
                parts[-1]["size"] += len(event.data)
                digest.update(event.data)
                if parts[-1]["filename"] is None:
                    text += event.data
                if not event.more_data:
                    parts[-1]["sha256"] = digest.hexdigest()
                    if parts[-1]["filename"] is None:
                        parts[-1]["text"] = text.decode("utf-8", "replace")
        return parts

    def _auth(self, realm: str, action: str | None) -> None:
        with self.server.counters_lock:
            state = self.server.tokens.setdefault(realm, {"token": None, "rotations": 0, "rejected": 0})
            if action == "rotate":
                state["rotations"] = int(state["rotations"]) + 1
                state["token"] = f"{realm}-t{state['rotations']}-{time.monotonic_ns() % 1_000_000}"
                return self._json(200, {"token": state["token"], "rotations": state["rotations"]})
            if action == "rotations":
                return self._json(200, {"rotations": state["rotations"], "rejected": state["rejected"]})
            if action is not None:
                return self._json(404, {"error": "no such endpoint"})
            token = state["token"]
            ok = token is not None and self.headers.get("Authorization") == f"Bearer {token}"
            if not ok:
                state["rejected"] = int(state["rejected"]) + 1
        if ok:
            return self._json(200, {"realm": realm, "authorized": True})
        self._json(401, {"error": "unauthorized"}, headers={"WWW-Authenticate": f'Bearer realm="{realm}"'})

    def _reset(self) -> None:
        # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        self.close_connection = True
        try:
            self.connection.close()
        except OSError:
            pass


def self_signed_files(folder: str) -> tuple[str, str]:
    """Makes a new self-signed certificate for 127.0.0.1 (valid one day; openssl) in
    `folder`: returns the paths of the certificate and its key (PEM). No CA trusts it; a
    client can trust exactly it by using the certificate as its CA file."""
    cert, key = f"{folder}/cert.pem", f"{folder}/key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True, timeout=60)
    return cert, key


def self_signed_context() -> ssl.SSLContext:
    """A TLS server context with a new self-signed certificate (no CA trusts it)."""
    cert, key = self_signed_files(tempfile.mkdtemp(prefix="gw-tls-"))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0, help="port to bind on 127.0.0.1 (default: any free port)")
    parser.add_argument("--fixtures", type=Path, default=DEFAULT_FIXTURES,
                        help=f"fixtures directory (default: {DEFAULT_FIXTURES})")
    parser.add_argument("--verbose", action="store_true", help="log requests to stderr")
    parser.add_argument("--tls-self-signed", action="store_true",
                        help="serve HTTPS with a fresh self-signed certificate for 127.0.0.1 (made with openssl)")
    args = parser.parse_args(argv)

    for tries_left in reversed(range(20)):  # a free port on 127.0.0.1 may be taken on 127.0.0.2
        server = Server(("127.0.0.1", args.port), Handler, args.fixtures, args.verbose)
        port = server.server_address[1]
        try:
            other_host = server.twin(("127.0.0.2", port))
            break
        except OSError:
            server.server_close()
            if args.port or not tries_left:
                raise
    plain = server.twin(("127.0.0.1", 0))
    server.ports.update(main=port, plain=plain.server_address[1])
    if args.tls_self_signed:
        context = self_signed_context()
        server.socket = context.wrap_socket(server.socket, server_side=True)
        other_host.socket = context.wrap_socket(other_host.socket, server_side=True)
    for twin in (other_host, plain):
        threading.Thread(target=twin.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    sys.stdout.write(f"PORT {port}\n")
    sys.stdout.flush()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        for listener in (server, other_host, plain):
            listener.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
