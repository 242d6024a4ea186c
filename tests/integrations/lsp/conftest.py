from __future__ import annotations

import asyncio
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from zengine_jupyter.integrations.lsp import default_search_path
from zengine_jupyter.testing.components import in_ci

FIXTURES = Path(__file__).parents[2] / "fixtures"
NPM_TOOLS = Path(sys.prefix) / "npm-tools" / "node_modules" / ".bin"
"""Where scripts/test installs npm programs for the tests (npm_tools_ensure)."""


def copy_project(dest: Path, name: str = "lsp_project") -> Path:
    """A private copy of a fixture project (tests edit it)."""
    root = dest / name
    shutil.copytree(FIXTURES / name, root)
    return root


def search_path() -> str:
    """Where the tests look for language servers: the default plus the npm test tools."""
    return f"{default_search_path()}{os.pathsep}{NPM_TOOLS}"


def require_server(command: str, install: str) -> str:
    """The path of a language server; outside CI a missing one skips, in CI it fails."""
    program = shutil.which(command, path=search_path())
    if program is not None:
        return program
    reason = f"{command} is not installed; install: {install}"
    if in_ci():
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


async def wait_until(predicate: Callable[[], bool], timeout_s: float = 30.0) -> None:
    """Poll ``predicate`` until true; fail the test after ``timeout_s``."""
    async with asyncio.timeout(timeout_s):
        while not predicate():  # noqa: ASYNC110 - polling state owned by the code under test
            await asyncio.sleep(0.02)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_project(tmp_path)
