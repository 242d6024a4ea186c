"""Python: pytest (or unittest) run the way the project runs it; ruff, mypy, pyright.

A folder is a Python project when it has pyproject.toml, setup.cfg, setup.py, tox.ini
or pytest.ini. The runner is the project's tool when configured: uv (``uv.lock`` or
``[tool.uv]``), poetry (``poetry.lock`` or ``[tool.poetry]``), pdm, hatch (``hatch.toml``
or ``[tool.hatch.envs]``); else ``python -m`` (the runner resolves ``python`` to the
interpreter it is configured with, by default the kernel's own).
"""

from __future__ import annotations

import configparser
from typing import TYPE_CHECKING, Any

from zengine_jupyter.verify.discovery._project import Folder, ProjectView, make_check

if TYPE_CHECKING:
    from zengine_jupyter.protocol import CheckKind, CheckSpec

__all__ = ["MARKERS", "discover", "runner_prefix"]

MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "tox.ini", "pytest.ini")


def discover(project: ProjectView) -> list[CheckSpec]:
    checks: list[CheckSpec] = []
    for folder in project.folders:
        if folder.has(*MARKERS):
            checks += _folder_checks(project, folder)
    return checks


def _folder_checks(project: ProjectView, folder: Folder) -> list[CheckSpec]:
    pyproject = folder.read_toml("pyproject.toml") or {}
    tool: dict[str, Any] = pyproject.get("tool") or {}
    ini = _ini_sections(folder)
    prefix = runner_prefix(project, folder, tool)
    checks: list[CheckSpec] = []

    def add(name: str, kind: CheckKind, argv: list[str], parser: str | None = None) -> None:
        checks.append(make_check("python", name, kind, argv, folder, parser))

    tests = _test_command(folder, project, tool, ini, prefix)
    if tests is not None:
        add(tests[1], "test", tests[0], tests[1])
    if "ruff" in tool or folder.has("ruff.toml", ".ruff.toml"):
        add("ruff", "lint", _tool(prefix, "ruff", "check", "."))
        add("ruff-format", "format", _tool(prefix, "ruff", "format", "--check", "."))
    if "mypy" in tool or folder.has("mypy.ini", ".mypy.ini") or "mypy" in ini:
        settings = tool.get("mypy") or {}
        targets = [] if ("files" in settings or "packages" in settings) else ["."]
        add("mypy", "typecheck", _tool(prefix, "mypy", *targets))
    if "pyright" in tool or folder.has("pyrightconfig.json"):
        add("pyright", "typecheck", _tool(prefix, "pyright"))
    elif "basedpyright" in tool:
        add("basedpyright", "typecheck", _tool(prefix, "basedpyright"))
    return checks


def runner_prefix(project: ProjectView, folder: Folder, tool: dict[str, Any]) -> list[str]:
    """How the project runs its tools: ``uv run``, ``poetry run``, ``pdm run``, ``hatch run``."""
    places = (folder, *project.ancestors(folder))
    if "uv" in tool or any(p.has("uv.lock") for p in places):
        return ["uv", "run"]
    if "poetry" in tool or any(p.has("poetry.lock") for p in places):
        return ["poetry", "run"]
    if "pdm" in tool or any(p.has("pdm.lock") for p in places):
        return ["pdm", "run"]
    hatch = tool.get("hatch") or {}
    if "envs" in hatch or folder.has("hatch.toml"):
        return ["hatch", "run"]
    return []


def _tool(prefix: list[str], name: str, *args: str) -> list[str]:
    if prefix:
        return [*prefix, name, *args]
    if name in ("mypy", "pytest"):
        return ["python", "-m", name, *args]
    return [name, *args]


def _ini_sections(folder: Folder) -> set[str]:
    sections: set[str] = set()
    for name in ("setup.cfg", "tox.ini", "pytest.ini"):
        text = folder.read_text(name) if folder.has(name) else None
        if text is None:
            continue
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(text)
        except configparser.Error:
            continue
        for section in parser.sections():
            if section in ("pytest", "tool:pytest"):
                sections.add("pytest")
            elif section == "mypy" or section.startswith("mypy-"):
                sections.add("mypy")
    return sections


def _test_command(
    folder: Folder,
    project: ProjectView,
    tool: dict[str, Any],
    ini: set[str],
    prefix: list[str],
) -> tuple[list[str], str] | None:
    uses_pytest = (
        "pytest" in tool
        or "pytest" in ini
        or folder.has("pytest.ini", "conftest.py")
        or "pytest" in (folder.read_text("pyproject.toml") or "")
    )
    if uses_pytest:
        if prefix == ["hatch", "run"]:
            has_script = "test" in _hatch_scripts(tool.get("hatch") or {})
            return (["hatch", "run", "test"] if has_script else ["hatch", "test"]), "pytest"
        return _tool(prefix, "pytest"), "pytest"
    for place, start in (
        (folder, None),
        *((project.folder(folder.child(n)), n) for n in ("tests", "test")),
    ):
        if place is not None and any(_is_test_file(name) for name in place.files):
            python = [*prefix, "python"] if prefix else ["python"]
            # -t . keeps the project root importable, but needs the folder to be a package
            top = ["-t", "."] if place.has("__init__.py") else []
            where = ["-s", start, *top] if start else []
            return [*python, "-m", "unittest", "discover", *where], "unittest"
    return None


def _is_test_file(name: str) -> bool:
    return name.endswith(".py") and name.startswith("test")


def _hatch_scripts(hatch: dict[str, Any]) -> dict[str, Any]:
    envs = hatch.get("envs") or {}
    default = envs.get("default") or {}
    scripts = default.get("scripts") or {}
    return scripts if isinstance(scripts, dict) else {}
