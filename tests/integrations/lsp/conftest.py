from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parents[2] / "fixtures"

CopyProject = Callable[[Path, str], Path]


def _copy(dest: Path, name: str = "lsp_project") -> Path:
    root = dest / name
    shutil.copytree(FIXTURES / name, root)
    return root


@pytest.fixture(scope="session")
def copy_project() -> CopyProject:
    """Copies a fixture project (``lsp_project``, ``lsp_project_ts``) into a folder."""
    return _copy
