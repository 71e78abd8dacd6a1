"""Redirects through the Python binding: https to http refused (a TLS test server whose plain
twin port serves the http side), the hop record, ``@metadata.url`` and ``redirects=`` values.
The shared cases (``redirect_*`` in resilience_cases.json) cover the origin rules too."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

import gatewire

SECRETS = ("T-SECRET", "K-SECRET")


def redirect(target: str, status: int = 302) -> str:
    return f"/redirect-to?status={status}&url=" + quote(target, safe="@/")


def config(base: str, **extra: Any) -> dict[str, Any]:
    return {"baseURL": base, "verifyTLS": False, "retry": {"maxRetries": 0},
            "auth": {"type": "bearer", "token": "T-SECRET"},
            "plugins": [{"name": "apiKey", "header": "X-Api-Key", "value": "K-SECRET"}], **extra}


def test_https_to_http_is_refused_unless_allowed(tls_server: str, library: str) -> None:
    with gatewire.Client(config=config(tls_server)) as client:
        with pytest.raises(gatewire.RedirectError) as refused:
            client.call("GET", redirect("@port2/fault/py-downgrade/200", 301))
        assert refused.value.status == 301
        assert refused.value.message.endswith("it would downgrade https to http (redirects.allowDowngrade is false)")
        assert client.call("GET", "/fault/py-downgrade/count").json()["count"] == 0  # nothing reached http
        followed = client.call("GET", redirect("@port2/echo/plain", 301), redirects={"allowDowngrade": True})
    echo = followed.json()
    assert echo["path"] == "/echo/plain"
    assert not any(secret in followed.body.decode() for secret in SECRETS)
    (hop,) = followed.attempts[0].redirects
    assert hop[0] == 301 and hop[1].startswith("http://127.0.0.1:") and hop[1].endswith("/echo/plain")


def test_hops_are_recorded_redacted_and_the_final_url_is_in_the_metadata(server: str, library: str) -> None:
    mapped = {"mappings": {"Echo": {"attributes": {"path": "path"}}},
              "responseDescriptors": [{"mapping": "Echo", "pathPattern": "/redirect-to"}]}
    with gatewire.Client(config=config(server, **mapped)) as client:
        result = client.call("GET", redirect("/echo/next?token=Q-SECRET&page=2"))
    assert result.attempts[0].redirects == ((302, f"{server}/echo/next?token=<redacted>&page=2"),)
    assert result.metadata is not None and result.metadata["url"] == f"{server}/echo/next?token=<redacted>&page=2"
    assert result.json()["query"] == {"token": "Q-SECRET", "page": "2"}  # the same origin got it


@pytest.mark.parametrize("value, message", [
    ("same-origin", 'redirects.follow: unknown value "same-origin" (expected one of: "none", "sameOrigin", "any")'),
    ({"max": 99}, "redirects.max: 99 is out of range 0...50"),
    (True, "redirects: expected false (follow none) or an object"),
])
def test_a_bad_redirects_value_names_the_field(client: gatewire.Client, value: Any, message: str) -> None:
    with pytest.raises(gatewire.InvalidArgument) as error:
        client.call("GET", "/echo", redirects=value)
    assert str(error.value).startswith(message)


def test_redirects_words_and_false(client: gatewire.Client, server: str) -> None:
    with pytest.raises(gatewire.RedirectError) as off:
        client.call("GET", redirect("/echo/x"), redirects=False)
    assert off.value.status == 302 and off.value.attempts[0].redirects == ()
    assert ("Location", "/echo/x") in off.value.headers  # the caller can follow it itself
    with pytest.raises(gatewire.RedirectError):
        client.call("GET", redirect("@host2/echo/x"), redirects="sameOrigin")
    assert client.call("GET", redirect("/echo/x"), redirects="sameOrigin").json()["path"] == "/echo/x"


def test_call_many_takes_redirects(client: gatewire.Client) -> None:
    spec = {"method": "GET", "path": redirect("/echo/x")}
    refused, followed = client.call_many([{**spec, "redirects": "none"}, spec])
    assert isinstance(refused, gatewire.RedirectError) and refused.status == 302
    assert isinstance(followed, gatewire.Result) and followed.attempts[0].redirects[0][0] == 302
