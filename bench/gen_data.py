"""Writes the two bodies nginx serves, deterministically (fixed seed):

* small.json: a ~200-byte JSON object (workload "a");
* users.json: a ~137 KB JSON array of 1,000 user-like objects (workload "b"): nested
  objects, strings, integers, reals, booleans, nulls, ISO 8601 dates, and a count sent
  as a digit string (so the mapping coerces it to an integer).

Usage: python3 gen_data.py OUTDIR
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

SEED = 20240601
FIRST = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ida", "Jo", "Kai", "Liv"]
LAST = ["Lee", "Ng", "Oh", "Park", "Quinn", "Ruiz", "Sato", "Tran", "Ueda", "Voss"]
CITIES = ["Oslo", "Lyon", "Kyiv", "Lima", "Pune"]

SMALL = {
    "id": 42,
    "name": "gatewire",
    "status": "ok",
    "version": "0.1.0",
    "uptime": 1234567,
    "healthy": True,
    "checked_at": "2024-05-01T12:00:00Z",
    "regions": ["eu-north-1", "us-east-1"],
    "load": {"one": 0.42, "five": 0.37, "fifteen": 0.31},
    "owner": None,
}


def user(rng: random.Random, number: int) -> dict:
    city = rng.choice(CITIES)
    day = f"20{rng.randint(15, 24):02d}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    clock = f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"
    return {
        "id": number,
        "name": f"{rng.choice(FIRST)} {rng.choice(LAST)}",
        "admin": rng.random() < 0.2,
        "score": round(rng.uniform(0, 100), 1),
        "posts": str(rng.randint(0, 999)),
        "created": f"{day}T{clock}Z",
        "team": None,
        "home": {"city": city},
    }


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    users = [user(rng, 1000 + n) for n in range(1000)]
    compact = {"separators": (",", ":")}
    (out / "small.json").write_text(json.dumps(SMALL, **compact))
    (out / "users.json").write_text(json.dumps(users, **compact))


if __name__ == "__main__":
    main()
