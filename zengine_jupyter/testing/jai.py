"""jupyter-ai in a venv of its own, for the browser test that drives its chat.

``scripts/test`` (``jai_ensure`` in ``scripts/_common.sh``) installs the latest jupyter-ai and
jupyter-ai-acp-client, our runtime dependencies and this checkout (editable, no dependencies)
into ``.jai`` at the repository root (``ZENGINE_JAI_VENV`` names another one, e.g. a venv made
once by hand). In the project's venv they would load their chat, personas and server
extensions into every lab the other tests start.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zengine_jupyter.testing.components import in_ci

__all__ = ["REPO", "jai_python", "panel_path"]

REPO = Path(__file__).resolve().parents[2]


def jai_python() -> str:
    """The jupyter-ai venv's interpreter. Missing: the test skips, or fails under ``CI=true``
    (``scripts/test`` makes the venv there)."""
    venv = Path(os.environ.get("ZENGINE_JAI_VENV") or REPO / ".jai")
    python = venv / "bin" / "python"
    made = "ZENGINE_JAI_VENV" in os.environ or (venv / ".zengine-installed").is_file()
    if python.is_file() and made:  # .jai is complete once jai_ensure wrote its stamp
        return str(python)
    reason = (
        f"no jupyter-ai venv at {venv} (scripts/test makes it: jai_ensure in "
        "scripts/_common.sh; or set ZENGINE_JAI_VENV to a venv with jupyter-ai, "
        "jupyter-ai-acp-client and this checkout installed)"
    )
    if in_ci():
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


def panel_path(folder: Path) -> dict[str, str]:
    """The environment that makes a lab of another venv load this checkout's panel as built
    now: ``folder/labextensions/zengine-jupyter`` links to the build, and ``JUPYTER_PATH``
    (searched before the venv's own copy, which an editable install froze) starts there."""
    built = REPO / "zengine_jupyter" / "labextension"
    if not (built / "package.json").is_file():
        reason = "the panel is not built (scripts/test builds it where node is)"
        if in_ci():
            pytest.fail(f"CI=true and {reason}", pytrace=False)
        pytest.skip(reason)
    link = folder / "labextensions" / "zengine-jupyter"
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.exists():
        link.symlink_to(built.resolve(), target_is_directory=True)
    paths = [str(folder), os.environ.get("JUPYTER_PATH", "")]
    return {"JUPYTER_PATH": os.pathsep.join(p for p in paths if p)}
