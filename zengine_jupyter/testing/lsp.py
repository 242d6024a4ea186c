"""Helpers for language-server tests: find a real server (skip, or fail under CI), and wait
for state the code under test owns."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from zengine_jupyter.integrations.lsp import default_search_path
from zengine_jupyter.testing.components import in_ci

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["NPM_TOOLS", "require_language_server", "search_path", "wait_until"]

NPM_TOOLS = Path(sys.prefix) / "npm-tools" / "node_modules" / ".bin"
"""Where ``scripts/test`` installs npm programs for the tests (``npm_tools_ensure``)."""


def search_path() -> str:
    """Where tests look for language servers: the default plus the npm test tools."""
    return f"{default_search_path()}{os.pathsep}{NPM_TOOLS}"


def require_language_server(command: str, install: str) -> str:
    """The path of a language server; outside CI a missing one skips the test, in CI it fails."""
    program = shutil.which(command, path=search_path())
    if program is not None:
        return program
    reason = f"{command} is not installed; install: {install}"
    if in_ci():
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


async def wait_until(predicate: Callable[[], bool], timeout_s: float = 30.0) -> None:
    """Poll ``predicate`` until it holds; ``TimeoutError`` after ``timeout_s``."""
    async with asyncio.timeout(timeout_s):
        while not predicate():  # noqa: ASYNC110 - the state belongs to the code under test
            await asyncio.sleep(0.02)
