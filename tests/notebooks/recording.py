"""Record a notebook's cassette against the local provider server with the scripted replies:
the same path ``zengine cassette record`` takes with a real model, minus the network."""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tests.notebooks.scripted import NOTE, SCRIPTS
from zengine_jupyter.cli._cassette import record
from zengine_jupyter.testing import provider_in_thread

if TYPE_CHECKING:
    from collections.abc import Iterator

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
LIVE_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ZENGINE_API_KEY", "ZENGINE_BASE_URL",
             "ZENGINE_MODEL", "ZENGINE_PROVIDER", "ZENGINE_CASSETTE", "ZENGINE_RECORD")  # fmt: skip
IGNORED = shutil.ignore_patterns(
    "__pycache__", ".pytest_cache", ".ipynb_checkpoints", ".*.recording", ".zengine-*"
)


def copy_notebooks(dest: Path) -> Path:
    """A copy of notebooks/ (so a run never touches the repository's files)."""
    shutil.copytree(NOTEBOOKS, dest, ignore=IGNORED)
    return dest


@contextmanager
def environment(**values: str) -> Iterator[None]:
    """``os.environ`` without any live provider setting, plus ``values``; restored after."""
    saved = dict(os.environ)
    for var in LIVE_VARS:
        os.environ.pop(var, None)
    os.environ.update(values)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def record_scripted(name: str, notebooks: Path, out: Path) -> tuple[bool, str, int]:
    """Run ``notebooks/NAME.ipynb`` live against the scripted server, recording to ``out``;
    ``(ok, message, replies left unused)``."""
    with provider_in_thread() as server:
        server.add(*SCRIPTS[name])
        with environment(ZENGINE_BASE_URL=server.openai_url, ZENGINE_MODEL="scripted-model"):
            ok, message = record(notebooks / f"{name}.ipynb", out, timeout_s=300, note=NOTE)
        left = len(server.requests)
    return ok, message, len(SCRIPTS[name]) - left


def execute_notebook(path: Path, log: Path, timeout_s: int = 180) -> list[str]:
    """Run ``path`` top to bottom in a real kernel started in its folder (nbclient, no
    frontend: ``%%agent`` cells block and approvals go by policy); the text of each cell's
    outputs. The kernel's stderr goes to ``log``. Raises on a failing cell."""
    import nbformat

    from zengine_jupyter.testing.kernel import execute_notebook as run_in_kernel

    nb = nbformat.read(path, as_version=4)
    run_in_kernel(nb, path.parent, log, timeout_s=timeout_s)
    return [
        "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in cell.outputs)
        if cell.cell_type == "code"
        else ""
        for cell in nb.cells
    ]
