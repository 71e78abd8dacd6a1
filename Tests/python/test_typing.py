"""``mypy --strict`` is clean on a user script that uses every public call
(``typed/user_script.py``), and it does see the binding's types (a wrong use is reported)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).resolve().parent / "typed" / "user_script.py"


def mypy(path: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, MYPYPATH=str(REPO / "bindings" / "python"))
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--cache-dir", str(cache), str(path)],
        capture_output=True, text=True, timeout=300, env=environment, cwd=REPO)


def test_mypy_strict_is_clean_on_a_script_of_the_whole_api(tmp_path: Path) -> None:
    checked = mypy(SCRIPT, tmp_path / "cache")
    assert (checked.returncode, checked.stdout + checked.stderr) == (0, "")


def test_mypy_sees_the_binding_types(tmp_path: Path) -> None:
    wrong = tmp_path / "wrong.py"
    wrong.write_text(
        "import gatewire\n"
        "async def main(client: gatewire.AsyncClient) -> None:\n"
        "    result = await client.get('/a')\n"
        "    status: str = result.status\n"
        "    value = result.json()\n"
        "    value['id']\n", encoding="utf-8")
    checked = mypy(wrong, tmp_path / "cache")
    assert checked.returncode == 1
    errors = [line.split(":", 1)[1] for line in checked.stdout.splitlines() if ": error: " in line]
    assert errors[0] == ('4: error: Incompatible types in assignment (expression has type "int", variable has type '
                         '"str")  [assignment]')
    # Result.json() is the JSON alias, not Any: indexing it unnarrowed is an error.
    assert errors[1] == ('6: error: Value of type "int | float | str | list[JSON] | dict[str, JSON] | None" is not '
                         'indexable  [index]')
