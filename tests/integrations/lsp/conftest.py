from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from zengine_jupyter.integrations.lsp import default_search_path
from zengine_jupyter.testing.components import in_ci

FIXTURE_PROJECT = Path(__file__).parents[2] / "fixtures" / "lsp_project"


def copy_project(dest: Path) -> Path:
    """A private copy of the fixture project (tests edit it)."""
    root = dest / "lsp_project"
    shutil.copytree(FIXTURE_PROJECT, root)
    return root


def require_server(command: str, install: str) -> str:
    """The path of a language server; outside CI a missing one skips, in CI it fails."""
    program = shutil.which(command, path=default_search_path())
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
