"""A file object given as a multipart part sends what the object reads, as requests does:
``gzip.open(path)`` the decompressed bytes (not the compressed file found by its ``name``), a
file read partway the rest. A plain binary file at its start still streams from disk. As the
test server's ``/multipart`` saw each part (name, filename, content type, size, SHA-256)."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import json
from pathlib import Path

import gatewire

TEXT = b"plain text, compressed on disk\n" * 1000


def seen(result: gatewire.Result) -> list[tuple]:
    return [(p["name"], p["filename"], p["size"], p["sha256"]) for p in json.loads(result.body)["parts"]]


def test_a_decompressing_file_object_sends_its_decompressed_bytes(client: gatewire.Client, key: str,
                                                                   tmp_path: Path) -> None:
    packed = tmp_path / "notes.txt.gz"
    with gzip.open(packed, "wb") as writer:
        writer.write(TEXT)
    squeezed = tmp_path / "notes.txt.bz2"
    squeezed.write_bytes(bz2.compress(TEXT))
    with gzip.open(packed) as unzipped, bz2.open(squeezed) as unsqueezed:
        result = client.post(f"/multipart/{key}/200", files={"gz": unzipped, "bz": unsqueezed})
    digest = hashlib.sha256(TEXT).hexdigest()
    # A BZ2File has no name, so no filename (requests' guess_filename finds none either).
    assert seen(result) == [("gz", "notes.txt.gz", len(TEXT), digest), ("bz", None, len(TEXT), digest)]


def test_a_file_read_partway_sends_the_rest_and_one_at_its_start_streams_from_disk(
        client: gatewire.Client, key: str, tmp_path: Path) -> None:
    path = tmp_path / "report.bin"
    path.write_bytes(b"HEADER" + TEXT)
    with path.open("rb") as partway, path.open("rb") as whole, path.open("r", encoding="utf-8") as text:
        partway.read(6)
        result = client.post(f"/multipart/{key}/200",
                             files=[("rest", partway), ("whole", whole), ("text", text), ("memory", io.BytesIO(TEXT))])
    assert seen(result) == [
        ("rest", "report.bin", len(TEXT), hashlib.sha256(TEXT).hexdigest()),
        ("whole", "report.bin", len(TEXT) + 6, hashlib.sha256(b"HEADER" + TEXT).hexdigest()),
        ("text", "report.bin", len(TEXT) + 6, hashlib.sha256(b"HEADER" + TEXT).hexdigest()),
        ("memory", None, len(TEXT), hashlib.sha256(TEXT).hexdigest()),
    ]
