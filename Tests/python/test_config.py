"""Config-driven calls: routes, request/response/error descriptors, validation."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import gatewire

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def user_config(base_url: str) -> dict[str, Any]:
    return {
        "baseURL": base_url,
        "routes": {"createUser": {"method": "POST", "pathPattern": "/echo/users", "objectType": "User"}},
        "mappings": {"User": {"attributes": {"full_name": "name", "email": "email"}}},
        "requestDescriptors": [{"objectType": "User", "mapping": "User", "rootKeyPath": "user"}],
    }


def test_route_with_request_descriptor_maps_the_body(server: str) -> None:
    with gatewire.Client(config=user_config(server)) as client:
        result = client.call_route("createUser", json={"name": "Ada Lovelace", "email": "ada@example.org"})

    echo = result.json()
    assert echo["method"] == "POST"
    assert echo["path"] == "/echo/users"
    assert echo["body"] == {"user": {"full_name": "Ada Lovelace", "email": "ada@example.org"}}


def test_config_as_json_text_and_route_params(server: str) -> None:
    config = user_config(server)
    config["routes"]["user"] = {"method": "GET", "pathPattern": "/echo/users/:id"}
    with gatewire.Client(config=json.dumps(config)) as client:
        result = client.call_route("user", params={"id": 7, "verbose": True})

    echo = result.json()
    assert echo["path"] == "/echo/users/7"
    assert echo["query"] == {"verbose": "true"}


def test_response_descriptor_maps_items_with_renamed_keys(server: str) -> None:
    config = {
        "baseURL": server,
        "mappings": {"Issue": {"attributes": {"number": "issueNumber", "title": "title", "state": "state"}}},
        "responseDescriptors": [
            {"mapping": "Issue", "method": "GET", "pathPattern": "/fixture/:name", "keyPath": "items", "statusCodes": "2xx"}
        ],
    }
    expected = json.loads((FIXTURES / "github-search-issues.json").read_text())["items"]

    with gatewire.Client(config=config) as client:
        result = client.call("GET", "/fixture/github-search-issues.json")

    assert result.status == 200
    assert result.mapped is not None
    assert set(result.mapped) == {"items"}
    assert result.mapped["items"] == [
        {"issueNumber": item["number"], "title": item["title"], "state": item["state"]} for item in expected
    ]


def test_error_descriptor_gives_error_objects(server: str) -> None:
    config = {
        "baseURL": server,
        "mappings": {"FieldError": {"attributes": {"resource": "resource", "code": "code", "field": "field"}}},
        "errorDescriptors": [{"mapping": "FieldError", "keyPath": "errors", "statusCodes": "4xx"}],
    }
    with gatewire.Client(config=config) as client:
        with pytest.raises(gatewire.CallError) as caught:
            client.call("GET", "/fixture/github-error-422-validation.json", params={"status": 422})

    error = caught.value
    assert isinstance(error, gatewire.HTTPStatusError)
    assert error.status == 422
    assert error.kind == gatewire.ErrorKind.http_status
    assert error.kind.name == "http_status"
    assert error.error_objects == [{"resource": "Label", "code": "invalid", "field": "color"}]
    assert b"Validation Failed" in error.body
    assert "Validation Failed" in error.body_preview
    assert error.method == "GET"
    assert error.path.startswith("/fixture/github-error-422-validation.json")


def test_check_config_names_the_field() -> None:
    with pytest.raises(gatewire.ConfigError) as caught:
        gatewire.check_config({"baseURL": "http://example.invalid", "retry": {"maxRetries": -1}})
    assert "retry.maxRetries" in str(caught.value)


def test_check_config_accepts_a_good_config(server: str) -> None:
    assert gatewire.check_config(user_config(server)) == []


def test_malformed_config_json_reports_line_and_column(library: str) -> None:
    with pytest.raises(gatewire.ConfigError) as caught:
        gatewire.Client(config="{not json")
    message = str(caught.value).lower()
    assert re.search(r"line\s*\d+", message), message
    assert re.search(r"col(umn)?\s*\d+", message), message


def test_unknown_route_is_an_invalid_request(server: str) -> None:
    with gatewire.Client(config=user_config(server)) as client:
        with pytest.raises(gatewire.InvalidRequest) as caught:
            client.call_route("noSuchRoute")
    assert caught.value.kind == gatewire.ErrorKind.invalid_argument
    assert isinstance(caught.value, gatewire.InvalidArgument)


def test_route_without_object_type_sends_json_as_is(server: str) -> None:
    config = {"baseURL": server, "routes": {"note": {"method": "POST", "pathPattern": "/echo/notes"}}}
    with gatewire.Client(config=config) as client:
        result = client.call_route("note", json={"text": "hi"}, object_type=None)
        future = client.call_async(route="note", json={"text": "async"}, object_type=None)

        assert result.json()["body"] == {"text": "hi"}
        assert future.result(timeout=10).json()["body"] == {"text": "async"}


def test_config_from_a_file(server: str, tmp_path: Path) -> None:
    path = tmp_path / "gateway.json"
    path.write_text(json.dumps(user_config(server)))
    with gatewire.Client(config_path=path) as client:
        assert client.call_route("createUser", json={"name": "B", "email": "b@example.org"}).status == 200


def test_one_config_source_the_librarys_rule(server: str, tmp_path: Path) -> None:
    path = tmp_path / "gateway.json"
    path.write_text(json.dumps(user_config(server)))
    with pytest.raises(gatewire.InvalidArgument) as both:
        gatewire.Client(server, config=user_config(server), config_path=path)
    assert str(both.value) == "gw_client_create: set config_json or config_path, not both"
    with pytest.raises(gatewire.InvalidArgument) as none:
        gatewire.Client()
    assert str(none.value) == ("Client() needs a base URL, a config or a config path: Client('http://...'), "
                               "Client(config={...}), Client(config_path=...)")


def test_base_url_replaces_the_config_dicts_base_url(server: str) -> None:
    config = user_config("http://127.0.0.1:1")
    with gatewire.Client(server, config=config) as client:
        assert client.call("GET", "/echo").status == 200


def test_object_type_names_a_type_on_a_plain_call_and_none_sends_as_is(server: str) -> None:
    with gatewire.Client(config=user_config(server)) as client:
        mapped = client.call("POST", "/echo/users", json={"name": "Ada", "email": "a@example.org"}, object_type="User")
        as_is = client.call("POST", "/echo/users", json={"name": "Ada", "email": "a@example.org"})
        future = client.call_async(route="createUser", json={"name": "Bo", "email": "b@example.org"})

        assert mapped.json()["body"] == {"user": {"full_name": "Ada", "email": "a@example.org"}}
        assert as_is.json()["body"] == {"name": "Ada", "email": "a@example.org"}
        assert future.result(timeout=10).json()["body"] == {"user": {"full_name": "Bo", "email": "b@example.org"}}


def test_empty_object_type_names_a_type_called_empty(server: str) -> None:
    with gatewire.Client(config=user_config(server)) as client:
        with pytest.raises(gatewire.InvalidRequest) as caught:
            client.call_route("createUser", json={"name": "Ada"}, object_type="")
    assert '""' in caught.value.message  # the library names the type it looked for
