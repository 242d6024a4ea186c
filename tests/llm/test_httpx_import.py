"""httpx loads without its command-line client (``zengine_jupyter/llm/_httpx.py``): the first turn
of a fresh kernel does not pay for click, rich and pygments, and nothing else changes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

_PROBE = """
import json, sys
{before}
import zengine_jupyter.llm._http
import httpx
loaded = {{name: name in sys.modules for name in ("httpx._main", "rich", "click")}}
marked = "httpx._main" in sys.modules and sys.modules["httpx._main"] is None
import httpx._main  # still importable on purpose afterwards
print(json.dumps({{"loaded": loaded, "marked": marked, "client": httpx.Client.__name__,
                  "cli_after": callable(httpx._main.main)}}))
"""


def _probe(before: str = "") -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(before=before)],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_httpx_loads_without_its_cli_which_stays_importable() -> None:
    pytest.importorskip("click")  # the CLI's own dependencies, installed beside JupyterLab
    pytest.importorskip("rich")
    found = _probe()
    assert found["loaded"] == {"httpx._main": False, "rich": False, "click": False}
    assert found["marked"] is False  # the mark is gone once httpx is loaded
    assert found["client"] == "Client"
    assert found["cli_after"] is True


def test_an_httpx_the_user_imported_first_is_left_as_it_is() -> None:
    pytest.importorskip("click")
    found = _probe("import httpx")
    assert found["loaded"] == {"httpx._main": True, "rich": True, "click": True}
