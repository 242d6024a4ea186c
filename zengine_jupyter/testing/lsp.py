"""Helpers for language-server tests: find a real server (skip, or fail under CI), wait for
state the code under test owns, and ``lsp_manager_fixture``: one module-scoped ``LspManager``
fixture on a copied fixture project."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio

from zengine_jupyter.integrations.lsp import LspManager, default_search_path
from zengine_jupyter.testing.components import in_ci

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

    from zengine_jupyter.integrations.lsp import LspManagerOptions

__all__ = [
    "NPM_TOOLS",
    "lsp_manager_fixture",
    "plant_tsserver_plugin",
    "require_language_server",
    "require_typescript7",
    "search_path",
    "wait_until",
]

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


def require_typescript7(fixtures: Path) -> Path:
    """The folder holding TypeScript 7's ``tsc`` that ``npm ci --prefix tests/fixtures/npm``
    installs (``fixtures``: the tests' fixtures folder); outside CI a missing one skips."""
    folder = fixtures / "npm" / "node_modules" / ".bin"
    if (folder / "tsc").exists():
        return folder
    reason = "TypeScript 7 is not installed; run: npm ci --prefix tests/fixtures/npm"
    if in_ci():
        pytest.fail(f"CI=true and {reason}", pytrace=False)
    pytest.skip(reason)


async def wait_until(predicate: Callable[[], bool], timeout_s: float = 30.0) -> None:
    """Poll ``predicate`` until it holds; ``TimeoutError`` after ``timeout_s``."""
    async with asyncio.timeout(timeout_s):
        while not predicate():  # noqa: ASYNC110 - the state belongs to the code under test
            await asyncio.sleep(0.02)


def lsp_manager_fixture(
    project: str,
    options: Callable[[Path], LspManagerOptions],
    ready: Callable[[LspManager, Path], Awaitable[None]] | None = None,
) -> Any:
    """A module-scoped async fixture yielding a running ``LspManager`` on a copy of ``project``.

    The copy comes from the ``copy_project`` fixture (a ``tests/fixtures`` folder name -> its
    copy); ``options(root)`` builds the manager's options and may skip the module (call
    :func:`require_language_server` there); ``ready(manager, root)`` waits until the server
    has analysed what the tests need. Bind it to the fixture's name:
    ``manager = lsp_manager_fixture("lsp_project", _options)``.
    """

    @pytest_asyncio.fixture(loop_scope="module", scope="module")
    async def manager(
        tmp_path_factory: pytest.TempPathFactory, copy_project: Callable[[Path, str], Path]
    ) -> AsyncIterator[LspManager]:
        root = copy_project(tmp_path_factory.mktemp(project), project)
        async with LspManager(options(root)) as running:
            if ready is not None:
                await ready(running, root)
            yield running

    return manager


def plant_tsserver_plugin(project: Path, marker: Path, text: str = "plugin ran") -> None:
    """An attacker's tsserver plugin ``evil-plugin`` in ``project/node_modules``: loading it
    writes ``text`` to ``marker`` (name it in a tsconfig's ``plugins`` to ask for it)."""
    plugin = project / "node_modules" / "evil-plugin"
    plugin.mkdir(parents=True)
    (plugin / "package.json").write_text('{"name": "evil-plugin", "main": "index.js"}')
    (plugin / "index.js").write_text(
        f"require('fs').writeFileSync({json.dumps(str(marker))}, {json.dumps(text)});\n"
        "module.exports = () => ({ create: (info) => info.languageService });\n"
    )
