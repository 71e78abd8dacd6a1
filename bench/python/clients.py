"""The Python bench clients, one per run: Gatewire's binding and the peers.

Usage: python clients.py CLIENT URL_OR_CONFIG ROUTE_OR_PATH REQUESTS INFLIGHT EXPECT_BYTES MODE

CLIENT is one of gatewire, gatewire-async, requests, urllib3, httpx, httpx-async, aiohttp. For
gatewire and gatewire-async the second argument is a gateway config file and the third a route; for the peers they are the
base URL and the path. MODE is ``raw`` (check status and body length), ``parse`` (also
``json.loads`` the users array and walk every object; for gatewire: the route's response
descriptor maps every object, and the mapped objects are checked) or, for the peers,
``pydantic`` (validate the body into models with pydantic 2's ``TypeAdapter.validate_json``,
with the mapping of Gatewire's (b) config: see ``USERS``). Prints one JSON line: requests,
ok, elapsed and cpu (the timed phase only, every thread of the process).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
import threading
import time
from typing import Any, Callable


def walk(users: Any) -> bool:
    """Touch every value of every object, as the C ceiling does; True for the 1,000 users."""
    total = 0
    for user in users:
        for value in user.values():
            if isinstance(value, dict):
                total += len(value)
    return len(users) == 1000 and total > 0


def pydantic_users() -> Any:
    """A pydantic 2 ``TypeAdapter(list[User])`` with the object mapping of Gatewire's (b)
    config (bench/run.py ``gateway_config``): each source key read under its alias and stored
    under the mapped name, ``id`` and ``posts`` as integers (``posts`` comes as a digit
    string: lax mode coerces it, as Gatewire's ``"type": "integer"``), ``admin`` a boolean,
    ``score`` a number, ``created`` an ISO 8601 datetime, ``team`` kept as is (null), and
    ``home`` a nested model whose ``city`` becomes ``cityName``. Built before the timed phase."""
    import datetime

    from pydantic import BaseModel, Field, TypeAdapter

    class Place(BaseModel):
        city_name: str = Field(alias="city")

    class User(BaseModel):
        user_id: int = Field(alias="id")
        full_name: str = Field(alias="name")
        is_admin: bool = Field(alias="admin")
        score: float
        post_count: int = Field(alias="posts")
        created_at: datetime.datetime = Field(alias="created")
        team: Any = None
        home: Place

    return TypeAdapter(list[User])


USERS: Any = None  # pydantic_users(), when MODE is pydantic


def check_body(status: int, body: bytes, expect: int, parse: bool) -> bool:
    if status != 200 or len(body) != expect:
        return False
    if USERS is not None:
        users = USERS.validate_json(body)
        return len(users) == 1000 and users[0].home.city_name != ""
    return walk(json.loads(body)) if parse else True


def run_gatewire(config: str, route: str, total: int, inflight: int, expect: int, parse: bool) -> int:
    """Gatewire's fastest public Python path: ``Client.call_many`` (completion queue; results
    taken in batches by one GIL-free wait), ``inflight`` calls in flight."""
    import gatewire

    verify_all = os.environ.get("BENCH_VERIFY") == "all"
    ok = 0
    call = {"route": route}
    with gatewire.Client(config_path=config) as client:
        for done, result in enumerate(client.call_many(itertools.repeat(call, total), in_flight=inflight)):
            good = isinstance(result, gatewire.Result) and result.status == 200 and len(result.body) == expect
            if good and parse and (verify_all or done == 0):
                users = (result.mapped or {}).get("")
                good = isinstance(users, list) and len(users) == 1000 and all("userId" in u for u in users)
            ok += good
    return ok


def run_gatewire_async(config: str, route: str, total: int, inflight: int, expect: int, parse: bool) -> int:
    """Gatewire's asyncio client: ``inflight`` coroutines each awaiting
    ``AsyncClient.call_route`` in turn (as the async peers' lanes), results back in batches."""
    import gatewire

    verify_all = os.environ.get("BENCH_VERIFY") == "all"
    checked = False

    async def main() -> int:
        async with gatewire.AsyncClient(config_path=config) as client:
            async def one() -> bool:
                nonlocal checked
                result = await client.call_route(route)
                good = result.status == 200 and len(result.body) == expect
                if good and parse and (verify_all or not checked):
                    checked = True
                    users = (result.mapped or {}).get("")
                    good = isinstance(users, list) and len(users) == 1000 and all("userId" in u for u in users)
                return good

            return await _lanes(total, inflight, one)

    return asyncio.run(main())


def run_requests(base: str, path: str, total: int, inflight: int, expect: int, parse: bool) -> int:
    import requests

    ok = 0
    with requests.Session() as session:
        for _ in range(total):
            response = session.get(base + path)
            ok += check_body(response.status_code, response.content, expect, parse)
    return ok


def run_urllib3(base: str, path: str, total: int, inflight: int, expect: int, parse: bool) -> int:
    import urllib3

    ok = 0
    with urllib3.PoolManager(maxsize=1) as pool:
        for _ in range(total):
            response = pool.request("GET", base + path)
            ok += check_body(response.status, response.data, expect, parse)
    return ok


def run_httpx(base: str, path: str, total: int, inflight: int, expect: int, parse: bool) -> int:
    import httpx

    ok = 0
    with httpx.Client(base_url=base) as client:
        for _ in range(total):
            response = client.get(path)
            ok += check_body(response.status_code, response.content, expect, parse)
    return ok


async def _lanes(total: int, inflight: int, one: Callable[[], Any]) -> int:
    remaining = total
    ok = 0

    async def lane() -> None:
        nonlocal remaining, ok
        while remaining > 0:
            remaining -= 1
            good = await one()  # not "ok += await one()": that reads ok before awaiting
            ok += good

    await asyncio.gather(*(lane() for _ in range(min(inflight, total))))
    return ok


def run_httpx_async(base: str, path: str, total: int, inflight: int, expect: int, parse: bool) -> int:
    import httpx

    async def main() -> int:
        limits = httpx.Limits(max_connections=inflight, max_keepalive_connections=inflight)
        async with httpx.AsyncClient(base_url=base, limits=limits) as client:
            async def one() -> bool:
                response = await client.get(path)
                return check_body(response.status_code, response.content, expect, parse)

            return await _lanes(total, inflight, one)

    return asyncio.run(main())


def run_aiohttp(base: str, path: str, total: int, inflight: int, expect: int, parse: bool) -> int:
    import aiohttp

    async def main() -> int:
        connector = aiohttp.TCPConnector(limit=inflight)
        async with aiohttp.ClientSession(base_url=base, connector=connector) as session:
            async def one() -> bool:
                async with session.get(path) as response:
                    body = await response.read()
                    return check_body(response.status, body, expect, parse)

            return await _lanes(total, inflight, one)

    return asyncio.run(main())


CLIENTS = {
    "gatewire": run_gatewire,
    "gatewire-async": run_gatewire_async,
    "requests": run_requests,
    "urllib3": run_urllib3,
    "httpx": run_httpx,
    "httpx-async": run_httpx_async,
    "aiohttp": run_aiohttp,
}


def main() -> int:
    if len(sys.argv) != 8 or sys.argv[1] not in CLIENTS:
        print(__doc__, file=sys.stderr)
        return 2
    name, target, path = sys.argv[1:4]
    total, inflight, expect = (int(x) for x in sys.argv[4:7])
    parse = sys.argv[7] in ("parse", "mapped", "pydantic")
    if sys.argv[7] == "pydantic":
        global USERS
        USERS = pydantic_users()
    module = __import__({"gatewire-async": "gatewire", "httpx-async": "httpx"}.get(name, name))  # imports are not timed
    if module.__name__ == "gatewire":
        module.version()  # nor is loading libGatewire.so (lazy in the binding; ~10 ms), as for the C client
    start, cpu0 = time.perf_counter(), time.process_time()
    ok = CLIENTS[name](target, path, total, inflight, expect, parse)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu0
    print(json.dumps({"requests": total, "ok": ok, "elapsed": elapsed, "cpu": cpu, "threads": threading.active_count()}))
    return 0 if ok == total else 1


if __name__ == "__main__":
    sys.exit(main())
