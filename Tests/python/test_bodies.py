"""Bodies beyond JSON and query parameters of several values or other types, as a real
httpbin (the ``httpbin`` fixture) saw them: ``/anything`` echoes the decoded query
(``args``), the form fields (``form``), the raw body (``data``) and the headers."""

from __future__ import annotations

import base64

import pytest

import gatewire


def client_for(httpbin: str, style: str | None = None) -> gatewire.Client:
    config: dict[str, str] = {"baseURL": httpbin}
    if style is not None:
        config["arrayParameters"] = style
    return gatewire.Client(config=config)


@pytest.mark.parametrize(
    ("style", "path", "args"),
    [
        (None, "/anything?n=2.5&open=true&ids=1&ids=a%20b", {"ids": ["1", "a b"], "n": "2.5", "open": "true"}),
        ("repeat", "/anything?n=2.5&open=true&ids=1&ids=a%20b", {"ids": ["1", "a b"], "n": "2.5", "open": "true"}),
        ("brackets", "/anything?n=2.5&open=true&ids%5B%5D=1&ids%5B%5D=a%20b",
         {"ids[]": ["1", "a b"], "n": "2.5", "open": "true"}),
        ("comma", "/anything?n=2.5&open=true&ids=1,a%20b", {"ids": "1,a b", "n": "2.5", "open": "true"}),
    ],
)  # fmt: skip
def test_list_parameters_in_each_style_and_non_string_values(
    httpbin: str, style: str | None, path: str, args: dict[str, object]
) -> None:
    with client_for(httpbin, style) as client:
        result = client.call("GET", "/anything", params={"ids": [1, "a b"], "open": True, "n": 2.5, "none": ()})
        assert result.path == path
        assert result.json()["args"] == args


def test_a_list_never_fills_a_path_segment(httpbin: str) -> None:
    with client_for(httpbin) as client, pytest.raises(gatewire.InvalidArgument, match='missing parameter "id"'):
        client.call("GET", "/anything/:id", params={"id": [1, 2]})


def test_data_is_a_form_encoded_as_html_forms_are(httpbin: str) -> None:
    with client_for(httpbin) as client:
        result = client.call("POST", "/anything", data={"name": "Ann Lee", "note": "a+b&c=d/é~", "ids": (1, 2),
                                                         "ok": False})
        echo = result.json()
    assert echo["headers"]["Content-Type"] == "application/x-www-form-urlencoded"
    assert echo["form"] == {"name": "Ann Lee", "note": "a+b&c=d/é~", "ids": ["1", "2"], "ok": "false"}
    # the WHATWG form serializer: space "+", everything outside RFC 3986's unreserved set %XX
    assert echo["headers"]["Content-Length"] == str(len("name=Ann+Lee&note=a%2Bb%26c%3Dd%2F%C3%A9~&ids=1&ids=2&ok=false"))


def test_content_is_sent_as_it_is_with_its_content_type(httpbin: str) -> None:
    raw = bytes(range(256))
    with client_for(httpbin) as client:
        echo = client.call("PUT", "/anything", content=raw, content_type="application/x-raw").json()
        assert echo["headers"]["Content-Type"] == "application/x-raw"
        assert echo["headers"]["Content-Length"] == "256"
        assert echo["data"].startswith("data:application/octet-stream;base64,")  # httpbin's view of non-UTF-8 bytes
        assert base64.b64decode(echo["data"].split(",", 1)[1]) == raw
        text = client.call("POST", "/anything", content=bytearray(b"a,b\n1,2\n"), headers={"Content-Type": "text/csv"})
        assert text.json()["headers"]["Content-Type"] == "text/csv"
        assert text.json()["data"] == "a,b\n1,2\n"
        default = client.call("POST", "/anything", content=memoryview(b"")).json()
        assert default["headers"]["Content-Type"] == "application/octet-stream"
        assert default["headers"]["Content-Length"] == "0"


def test_two_bodies_and_wrong_types_are_refused_before_sending(httpbin: str) -> None:
    with client_for(httpbin) as client:
        with pytest.raises(gatewire.InvalidArgument, match="json and data: set at most one body"):
            client.call("POST", "/anything", json={}, data={"a": 1})
        with pytest.raises(gatewire.InvalidArgument, match="content and data: set at most one body"):
            client.call("POST", "/anything", content=b"x", data={"a": 1})
        with pytest.raises(TypeError, match="content must be bytes"):
            client.call("POST", "/anything", content="text")  # type: ignore[typeddict-item]
        with pytest.raises(TypeError, match=r"form fields must be a mapping .* not bytes \(raw bytes go in content=\)"):
            client.call("POST", "/anything", data=b"a=1")  # type: ignore[typeddict-item]
        with pytest.raises(TypeError, match="form field 'a' must be a str, int, float or bool"):
            client.call("POST", "/anything", data={"a": {"b": 1}})
        with pytest.raises(TypeError, match="parameter 'ids' must be a str, int, float or bool"):
            client.call("GET", "/anything", params={"ids": [None]})


def test_an_unknown_array_parameters_style_is_a_config_error(httpbin: str) -> None:
    with pytest.raises(gatewire.ConfigError, match='arrayParameters: unknown style "semicolon"'):
        client_for(httpbin, "semicolon")
