"""The Result as requests and httpx users reach for it: headers by name (case-insensitive,
multi-valued, as httpx.Headers), status_code and content, url and elapsed,
``params={"a": None}`` leaving ``a`` out, and ``Client()``'s message."""

from __future__ import annotations

import datetime

import pytest

import gatewire


def test_headers_answer_by_name_and_stay_a_tuple_of_pairs(client: gatewire.Client) -> None:
    result = client.get("/echo")
    assert result.headers["Content-Type"] == result.headers["content-type"] == result.header("Content-Type")
    assert result.headers["Content-Type"].startswith("application/json")
    assert result.headers.get("X-Absent") is None and result.headers.get("X-Absent", "d") == "d"
    assert "CONTENT-TYPE" in result.headers
    with pytest.raises(KeyError):
        result.headers["X-Absent"]
    assert result.raw_headers == tuple(result.headers) and type(result.raw_headers) is tuple
    assert [name.lower() for name in result.headers.keys()] == [name.lower() for name, _ in result.raw_headers]
    assert result.headers.items() == [(name, result.headers[name]) for name in result.headers.keys()]


def test_repeated_fields_are_listed_and_joined() -> None:
    headers = gatewire.Response(200, (("Set-Cookie", "a=1"), ("Vary", "Accept"), ("set-cookie", "b=2")), b"").headers
    assert headers.get_list("SET-COOKIE") == headers.getlist("set-cookie") == ["a=1", "b=2"]
    assert headers["Set-Cookie"] == "a=1, b=2"
    assert headers.keys() == ["Set-Cookie", "Vary"]
    assert headers.multi_items() == [("Set-Cookie", "a=1"), ("Vary", "Accept"), ("set-cookie", "b=2")]
    assert headers[1] == ("Vary", "Accept") and ("Vary", "Accept") in headers


def test_status_code_and_content_are_status_and_body(client: gatewire.Client) -> None:
    result = client.get("/status/201")
    assert result.status_code == result.status == 201
    assert result.content == result.body == b'{"status": 201}'
    assert result.json() == {"status": 201} and result.text == '{"status": 201}'


def test_a_none_parameter_is_left_out(client: gatewire.Client) -> None:
    echoed = client.get("/echo", params={"a": None, "b": "1"}).json()
    assert echoed["query"] == {"b": "1"}


def test_a_client_without_a_source_says_how_to_make_one() -> None:
    with pytest.raises(gatewire.InvalidArgument) as caught:
        gatewire.Client()
    assert str(caught.value) == ("Client() needs a base URL, a config or a config path: Client('http://...'), "
                                 "Client(config={...}), Client(config_path=...)")


def test_url_is_the_final_responses_and_elapsed_the_whole_call(httpbin: str) -> None:
    with gatewire.Client(httpbin) as client:
        direct = client.get("/get", params={"q": "1"})
        assert direct.url == f"{httpbin}/get?q=1"
        moved = client.get("/redirect-to", params={"url": "/anything/here"})
        assert moved.path.startswith("/redirect-to?url=")
        assert moved.url == f"{httpbin}/anything/here"
        assert moved.json()["url"] == moved.url
        slow = client.get("/delay/1")
    assert isinstance(slow.elapsed, datetime.timedelta)
    last = slow.attempts[-1]
    assert slow.elapsed == datetime.timedelta(seconds=last.start + last.duration)
    assert slow.elapsed >= datetime.timedelta(seconds=1)  # httpbin waited a second before answering
