"""Global 401 handling in Python: one observer for 401 ("log in again") and one for no
connection, plus a refreshing credential whose refresh function logs in (on a worker thread,
so it may block) when the server answers 401.

    python examples/refresh_401.py BASE_URL      (an httpbin: /bearer, /basic-auth)
"""

from __future__ import annotations

import json
import logging
import sys
import time

import gatewire


def log_in(refused: str | None) -> str:
    print(f"  refresh asked (refused token: {'<set>' if refused else 'none'})")
    time.sleep(0.05)  # pretend to call the identity provider
    return "fresh-token-from-login"


def refuse(refused: str | None) -> None:
    print("  refresh asked: the identity provider refuses")
    return None


def client_with(base_url: str, refresh) -> gatewire.Client:
    config = {"baseURL": base_url, "plugins": [{"name": "requestId"}, {"name": "log"}]}
    client = gatewire.Client(config=config, credential=gatewire.RefreshingCredential(refresh))
    client.add_failure_observer(
        lambda error: print(f"  [observer 401] {error.method} {error.path} -> {error.status} ({error.kind}): log in again"),
        status=401)
    client.add_failure_observer(lambda error: print(f"  [observer no connection] {error.kind}"), no_response=True)
    return client


def show(client: gatewire.Client, path: str, headers: dict[str, str] | None = None) -> None:
    try:
        result = client.call("GET", path, headers=headers)
        print(f"  GET {path}: ok, status {result.status}, attempts {[a.status for a in result.attempts]}")
    except gatewire.CallError as error:
        print(f"  GET {path}: {error.kind}, status {error.status}, attempts {[a.status for a in error.attempts]}")


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="  log: %(message)s")
    base_url = sys.argv[1]
    print("Python: 1. a 401, one refresh, the replay inside the same call (log lines redact the token)")
    with client_with(base_url, log_in) as client:
        show(client, "/bearer")
        print("Python: 2. a wrong basic password: the observer sees the 401 once")
        show(client, "/basic-auth/ann/secret", {"Authorization": "Basic YW5uOndyb25n"})
    print("Python: 3. a refresh that fails: AuthError (kind auth, status 401), the observer sees it")
    with client_with(base_url, refuse) as client:
        show(client, "/bearer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
