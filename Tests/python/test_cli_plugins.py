"""The `gatewire` CLI (the core and the Swift runtime linked in) with shared-object plugins: one
written against the gw_plugin_api table works and brings no second core; one linked against
libGatewire is refused by `call` and `check` alike; `check --no-load-plugins` runs no plugin code."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import gatewire
from shared_object_plugins import build_linked_plugin, build_marker_plugin, build_table_plugin
from test_cli_basics import run


def write_config(directory: Path, server: str, library: Path) -> Path:
    config = directory / "gateway.json"
    config.write_text(json.dumps({"baseURL": server, "plugins": [{"path": f"./{library.name}"}]}))
    return config


def test_a_table_plugin_runs_in_the_cli_without_a_second_core(cli: str, server: str, tmp_path: Path) -> None:  # noqa: F811
    config = write_config(tmp_path, server, build_table_plugin(tmp_path))
    done = run(cli, "call", "--config", str(config), "GET", "/echo")
    assert done.returncode == 0, done.stderr
    headers = json.loads(done.stdout)["headers"]
    assert headers["x-from-shared-object"] == "table"
    # No libGatewire was mapped: the plugin called the CLI's own core through the table ...
    assert headers["x-mapped-gatewire"] == "0"
    # ... and no Swift runtime came with it: the CLI's own, if it links one dynamically (a debug build).
    ldd = subprocess.run(["ldd", cli], capture_output=True, text=True, timeout=60, check=True).stdout
    assert headers["x-mapped-swift-core"] == ("1" if "libswiftCore" in ldd else "0")
    # The process hook reads the result and fails it through the table too.
    failed = run(cli, "call", "--config", str(config), "GET", "/status/202")
    assert failed.returncode == 1
    assert json.loads(failed.stdout)["kind"] == "plugin"
    assert "202 is not done" in failed.stdout
    checked = run(cli, "check", str(config))
    assert (checked.returncode, checked.stdout.startswith(f"{config}: OK")) == (0, True), checked.stderr


def test_the_cli_refuses_a_plugin_linked_against_libgatewire(cli: str, server: str, tmp_path: Path) -> None:  # noqa: F811
    libdir = str(Path(gatewire._native.library_path()).resolve().parent)
    config = write_config(tmp_path, server, build_linked_plugin(tmp_path, libdir))
    why = (f"plugins[0]: {tmp_path}/liblinked.so has gw_plugin version 2, a plugin linked against libGatewire: "
           "it would bring a second Gatewire core into this program")
    done = run(cli, "call", "--config", str(config), "GET", "/echo")
    assert done.returncode == 2  # a --config that does not load: a usage error
    assert done.stdout == ""
    assert done.stderr.startswith(f"gatewire: {config}: {why}"), done.stderr
    checked = run(cli, "check", str(config))
    assert checked.returncode == 1
    assert checked.stderr.startswith(f"{config}: error: {why}"), checked.stderr


def test_check_without_loading_plugins_runs_none_of_their_code(cli: str, tmp_path: Path) -> None:  # noqa: F811
    library = build_marker_plugin(tmp_path)
    config = write_config(tmp_path, "http://127.0.0.1:1", library)
    marker = tmp_path / "loaded"
    environment = {**os.environ, "GW_TEST_LOAD_MARKER": str(marker)}

    def check(*flags: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([cli, "check", *flags, str(config)], capture_output=True, text=True, timeout=60,
                              env=environment)

    unloaded = check("--no-load-plugins")
    assert unloaded.returncode == 0, unloaded.stderr
    assert not marker.exists()  # the constructor never ran
    assert unloaded.stdout.splitlines() == [
        f"not loaded: plugins[0]: shared object {library} (--no-load-plugins: its code did not run, so its entry "
        '"gw_plugin_entry" and the plugin it returns are not checked)',
        f"{config}: OK (0 routes, 0 mappings, 0 response descriptors)"]
    loaded = check()
    assert loaded.returncode == 0, loaded.stderr
    assert marker.exists()  # without the flag, check loads the object as call would
    assert loaded.stdout == f"{config}: OK (0 routes, 0 mappings, 0 response descriptors)\n"
    help_text = run(cli, "check", "--help").stdout
    assert "that runs the objects' code" in help_text and "--no-load-plugins" in help_text


def test_check_without_loading_plugins_still_checks_the_rest(cli: str, tmp_path: Path) -> None:  # noqa: F811
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({"baseURL": "http://127.0.0.1:1", "plugins": [{"path": "./absent.so"}]}))
    absent = run(cli, "check", "--no-load-plugins", str(config))
    assert absent.returncode == 1
    assert absent.stderr == (f"{config}: error: plugins[0].path: cannot read the plugin's shared object "
                             f"({tmp_path}/absent.so): No such file or directory\n")
    config.write_text(json.dumps({"baseURL": "http://127.0.0.1:1", "plugins": [
        {"name": "bodyErrors", "when": {"keyPath": "ok", "equals": False}, "errors": {"keyPath": "", "mapping": "Nope"}}]}))
    built_in = run(cli, "check", "--no-load-plugins", str(config))
    assert built_in.returncode == 1 and "plugins[0]" in built_in.stderr and "Nope" in built_in.stderr, built_in.stderr
    unknown = run(cli, "check", "--no-load-plugin", str(config))
    assert unknown.returncode == 2 and "unknown option --no-load-plugin" in unknown.stderr
