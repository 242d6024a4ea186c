"""Which TypeScript server serves a project: the version of the ``tsc`` it resolves decides
(7 or later: ``tsc --lsp``; older: typescript-language-server), the project's own
``node_modules`` first but only when trusted. TypeScript installs are laid out as npm does
(``node_modules/typescript/{package.json,bin/tsc}`` and a ``.bin/tsc`` link); nothing runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zengine_jupyter.integrations.lsp import LspManager, LspManagerOptions, LspRouter
from zengine_jupyter.protocol import LspUnavailableError


def _install(prefix: Path, version: str, *, with_server: bool = False) -> Path:
    """``npm install --prefix prefix typescript@version``, as files; returns its .bin."""
    package = prefix / "node_modules" / "typescript"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text(f'{{"name": "typescript", "version": "{version}"}}')
    tsc = package / "bin" / "tsc"
    tsc.write_text("#!/bin/sh\nexit 1\n")
    tsc.chmod(0o755)
    bin_dir = prefix / "node_modules" / ".bin"
    bin_dir.mkdir()
    (bin_dir / "tsc").symlink_to("../typescript/bin/tsc")
    if with_server:
        server = bin_dir / "typescript-language-server"
        server.write_text("#!/bin/sh\nexit 1\n")
        server.chmod(0o755)
    return bin_dir


def _router(root: Path, *paths: Path, trusted: bool = True) -> LspRouter:
    return LspRouter(search_path=os.pathsep.join(map(str, paths)), root=root, trusted=trusted)


def test_typescript7_on_the_path_is_served_by_its_own_tsc(tmp_path: Path) -> None:
    """Even with typescript-language-server installed beside it (the pair `npm install
    typescript typescript-language-server` gives today, which cannot start)."""
    tools = _install(tmp_path / "tools", "7.0.2", with_server=True)
    route = _router(tmp_path / "project", tools).route("app.ts")
    assert route is not None
    assert (route.spec.name, route.program) == ("tsc", str(tools / "tsc"))
    assert route.spec.argv[1:] == ("--lsp", "--stdio")


def test_typescript5_is_served_by_typescript_language_server(tmp_path: Path) -> None:
    tools = _install(tmp_path / "tools", "5.9.3", with_server=True)
    router = _router(tmp_path / "project", tools)
    route = router.route("app.tsx")
    assert route is not None
    assert (route.spec.name, route.program) == (
        "typescript-language-server",
        str(tools / "typescript-language-server"),
    )
    assert router.typescript() is not None
    assert router.typescript().label == "TypeScript 5.9.3"  # type: ignore[union-attr]


def test_install_hints_say_what_works_today(tmp_path: Path) -> None:
    nothing = _router(tmp_path / "project", tmp_path / "empty").route("app.ts")
    assert nothing is not None
    assert nothing.program is None
    assert (nothing.spec.name, nothing.spec.install) == ("tsc", "npm install -g typescript")
    old = _install(tmp_path / "tools", "5.9.3")  # TypeScript 5 without the server
    missing = _router(tmp_path / "project", old).route("app.ts")
    assert missing is not None
    assert missing.program is None
    assert (missing.spec.name, missing.spec.install) == (
        "typescript-language-server",
        "npm install -g typescript-language-server typescript@5",
    )


def test_the_projects_own_typescript_wins_only_when_trusted(tmp_path: Path) -> None:
    project = tmp_path / "project"
    _install(project, "5.9.3")
    tools = _install(tmp_path / "tools", "7.0.2", with_server=True)
    trusted = _router(project, tools).route("app.ts")
    assert trusted is not None
    assert trusted.spec.name == "typescript-language-server"
    untrusted = _router(project, tools, trusted=False).route("app.ts")
    assert untrusted is not None
    assert (untrusted.spec.name, untrusted.program) == ("tsc", str(tools / "tsc"))


def test_the_projects_typescript7_runs_from_the_project(tmp_path: Path) -> None:
    project = tmp_path / "project"
    local = _install(project, "7.1.0")
    route = _router(project, tmp_path / "empty").route("app.ts")
    assert route is not None
    assert (route.spec.name, route.program) == ("tsc", str(local / "tsc"))


async def test_an_untrusted_project_never_runs_a_tsc_inside_it(tmp_path: Path) -> None:
    """A PATH that names the project's node_modules/.bin (direnv, an activated env): the
    project's tsc is not the TypeScript found, so nothing of the project's starts."""
    project = tmp_path / "project"
    local = _install(project, "7.0.2")
    options = LspManagerOptions(project, search_path=str(local), trusted=False)
    async with LspManager(options) as manager:
        assert manager.router.typescript() is None
        with pytest.raises(LspUnavailableError) as raised:
            await manager.client_for(project / "app.ts")
        assert "tsc is not installed" in raised.value.message
        assert manager.starts("tsc") == 0


async def test_an_untrusted_project_gets_typescript7_from_outside_in_safe_mode(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    tools = _install(tmp_path / "tools", "7.0.2")
    options = LspManagerOptions(project, search_path=str(tools), trusted=False)
    async with LspManager(options) as manager:
        rows = {row.name: row for row in manager.status()}
    assert rows["tsc"].version == "TypeScript 7.0.2"
    assert (rows["tsc"].detail or "").startswith(
        "safe mode (untrusted project: the project's node_modules/typescript is ignored, "
        "automatic type acquisition is off;"
    )
