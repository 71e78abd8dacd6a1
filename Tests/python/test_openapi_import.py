"""gatewire.config_from_openapi (gw_config_from_openapi): an OpenAPI document as a gateway config."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import gatewire

ROOT = Path(__file__).resolve().parents[2]
PETS = ROOT / "examples" / "pets-openapi.yaml"


def test_the_config_is_valid_and_its_request_descriptor_maps_a_body_on_loopback(server: str) -> None:
    imported = gatewire.config_from_openapi(PETS)
    assert gatewire.check_config(imported.config_json) == []
    assert imported.report == [
        {
            "message": '{region} is its default "eu" of eu, us',
            "pointer": "/servers/0/variables/region",
            "reason": "server_variable_default",
        }
    ]
    config = json.loads(imported.config_json)
    assert config["baseURL"] == "https://eu.pets.example.com/v1"
    assert config["auth"] == {"type": "bearer", "token": "<bearerAuth token>"}
    assert config["routes"]["listPets"]["pagination"] == {
        "style": "cursor", "cursorKeyPath": "next_cursor", "parameter": "cursor"}
    config["baseURL"] = server + "/echo"
    with gatewire.Client(config=config) as client:
        echo = client.call_route("createPet", json={"id": 7, "name": "Rex", "born": "2020-01-02", "extra": 1}).json()
    assert echo["path"] == "/echo/pets"
    assert echo["headers"]["authorization"] == "Bearer <bearerAuth token>"
    # The Pet mapping writes the schema's properties only ("extra" is not one), as given (a
    # request mapping does not coerce), and none the object lacks ("tags": the imported
    # request descriptor says "missingAttributes": "omit").
    assert echo["body"] == {"id": 7, "name": "Rex", "born": "2020-01-02"}


def test_the_same_bytes_as_the_cli_and_another_server(tmp_path: Path, cli: str) -> None:
    imported = gatewire.config_from_openapi(str(PETS), server=0)
    printed = subprocess.run([cli, "import", "openapi", str(PETS)],
                         capture_output=True, check=True, timeout=60)
    assert printed.stdout.decode() == imported.config_json
    document = tmp_path / "api.json"
    document.write_text(json.dumps({"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
                                    "servers": [{"url": "https://a.example"}, {"url": "https://b.example/api/"}],
                                    "paths": {}}))
    assert json.loads(gatewire.config_from_openapi(document, server=1).config_json)["baseURL"] == "https://b.example/api"


def test_bad_documents_are_config_errors_naming_the_place(tmp_path: Path) -> None:
    dangling = tmp_path / "dangling.yaml"
    dangling.write_text("openapi: 3.0.0\npaths: {/a: {$ref: '#/nope'}}\n")
    with pytest.raises(gatewire.ConfigError) as raised:
        gatewire.config_from_openapi(dangling)
    assert str(raised.value).endswith(f'{dangling}#/paths/~1a/$ref: the $ref "#/nope" names nothing: '
                                      f"{dangling}#/nope does not exist (a dangling reference)")
    with pytest.raises(gatewire.ConfigError, match="there is no server 3"):
        gatewire.config_from_openapi(PETS, server=3)
    with pytest.raises(gatewire.ConfigError, match="cannot read the file: No such file or directory"):
        gatewire.config_from_openapi(tmp_path / "missing.yaml")
    with pytest.raises(gatewire.InvalidArgument):
        gatewire.config_from_openapi(PETS, server=-2)
