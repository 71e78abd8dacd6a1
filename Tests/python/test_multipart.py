"""``files=`` multipart uploads, as httpbin's ``/anything`` (werkzeug's form parser) and the
test server's ``/multipart`` (each part's name, filename, content type, size and SHA-256 as
it streamed in) saw them: fields, paths, open files, bytes and tuples; a retry re-sends every
part; a missing file raises InvalidArgument before anything is sent; the async client."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
from pathlib import Path

import pytest

import gatewire

HELLO = hashlib.sha256(b"Hello").hexdigest()


def parts(result: gatewire.Result) -> list[tuple]:
    """The server's view of each part: (name, filename, content type, size, text or sha256)."""
    return [(p["name"], p["filename"], p["content_type"], p["size"], p.get("text", p["sha256"]))
            for p in json.loads(result.body)["parts"]]


def upload_log(client: gatewire.Client, key: str) -> list[dict]:
    return json.loads(client.get(f"/multipart/{key}/log").body)["attempts"]


def test_httpbin_sees_fields_and_files(httpbin: str, library: str, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"Hello")
    with gatewire.Client(httpbin) as client, notes.open("rb") as handle:
        result = client.post("/anything", data={"title": "Q3 plan", "ids": [1, 2]}, files={
            "notes": str(notes),
            "opened": handle,
            "blob": b"\x00\x01",
            "described": ("report.csv", "a,b\n1,2\n", "text/csv"),
            "buffer": ("memo.txt", io.BytesIO(b"memo")),
        })
    echo = json.loads(result.body)
    assert echo["headers"]["Content-Type"].startswith("multipart/form-data; boundary=")
    assert echo["form"] == {"title": "Q3 plan", "ids": ["1", "2"]}
    assert echo["files"] == {"notes": "Hello", "opened": "Hello", "blob": "\x00\x01",
                             "described": "a,b\n1,2\n", "buffer": "memo"}


def test_names_filenames_and_types_in_order(server: str, library: str, key: str, tmp_path: Path) -> None:
    report = tmp_path / "report.bin"
    report.write_bytes(b"Hello")
    with gatewire.Client(server) as client:
        result = client.post(f"/multipart/{key}/200", data={"title": "Q3"}, files=[
            ("report", report),
            ("report", ("q3.pdf", report, "application/pdf")),
            ("blob", b"Hello"),
            ("text", (None, "é")),
        ], headers={"Content-Type": "application/json"})
    assert json.loads(result.body)["content_type"].startswith("multipart/form-data; boundary=")
    assert parts(result) == [
        ("title", None, None, 2, "Q3"),
        ("report", "report.bin", "application/octet-stream", 5, HELLO),
        ("report", "q3.pdf", "application/pdf", 5, HELLO),
        ("blob", "blob", None, 5, HELLO),
        ("text", None, None, 2, "é"),
    ]


def test_a_retry_resends_every_part(server: str, library: str, key: str, tmp_path: Path) -> None:
    big = tmp_path / "big.bin"
    big.write_bytes(bytes(range(256)) * 4096)  # 1 MiB
    with gatewire.Client(server) as client:
        result = client.put(f"/multipart/{key}/503,200", files={"a": ("a.txt", "1"), "big": big},
                            policy={"retry": {"initialDelay": 0.01}})
        assert [attempt.status for attempt in result.attempts] == [503, 200]
        log = upload_log(client, key)
    expected = [["a", "a.txt", "text/plain", 1, hashlib.sha256(b"1").hexdigest()],
                ["big", "big.bin", "application/octet-stream", 1 << 20, hashlib.sha256(big.read_bytes()).hexdigest()]]
    assert [[[p[k] for k in ("name", "filename", "content_type", "size", "sha256")] for p in answer["parts"]]
            for answer in log] == [expected, expected]


def test_a_missing_file_raises_before_sending(server: str, library: str, key: str, tmp_path: Path) -> None:
    missing = tmp_path / "absent.bin"
    with gatewire.Client(server) as client:
        with pytest.raises(gatewire.InvalidArgument) as raised:
            client.post(f"/multipart/{key}/200", files={"upload": missing})
        assert str(raised.value).endswith(f'file part "upload": cannot read "{missing}": No such file or directory')
        assert raised.value.attempts == ()
        assert upload_log(client, key) == []
        with pytest.raises(TypeError, match=r"files\['n'\]: expected a path, an open file, bytes"):
            client.post(f"/multipart/{key}/200", files={"n": 3})


def test_the_async_client_uploads(server: str, library: str, key: str, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"Hello")

    async def main() -> gatewire.Result:
        async with gatewire.AsyncClient(server) as client:
            return await client.post(f"/multipart/{key}/200", files={"f": path})

    assert parts(asyncio.run(main())) == [("f", "a.txt", "text/plain", 5, HELLO)]
