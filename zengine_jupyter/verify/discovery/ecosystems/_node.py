"""Node: ``package.json`` scripts, run with the package manager its lockfile names."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zengine_jupyter.verify.discovery._project import Folder, ProjectView, make_check

if TYPE_CHECKING:
    from zengine_jupyter.protocol import CheckKind, CheckSpec

__all__ = ["LOCKFILES", "SCRIPTS", "discover", "package_manager", "test_parser"]

LOCKFILES: tuple[tuple[str, str], ...] = (
    ("pnpm-lock.yaml", "pnpm"),
    ("yarn.lock", "yarn"),
    ("bun.lock", "bun"),
    ("bun.lockb", "bun"),
    ("package-lock.json", "npm"),
    ("npm-shrinkwrap.json", "npm"),
)
"""Which package manager a lockfile belongs to (looked for in the folder, then above it)."""

SCRIPTS: tuple[tuple[CheckKind, tuple[str, ...]], ...] = (
    ("test", ("test",)),
    ("build", ("build",)),
    ("typecheck", ("typecheck", "type-check", "tsc")),
    ("lint", ("lint",)),
    ("format", ("format:check", "check-format", "fmt:check", "format")),
)
"""Check kind -> the script names that provide it, preferred first (a checking
``format:check`` before a ``format`` that may rewrite files)."""

_NO_TEST = "no test specified"  # npm init's placeholder script


def discover(project: ProjectView) -> list[CheckSpec]:
    checks: list[CheckSpec] = []
    for folder in project.folders:
        if not folder.has("package.json") or folder.has("deno.json", "deno.jsonc"):
            continue
        manifest = folder.read_json("package.json")
        if manifest is None:
            continue
        scripts = manifest.get("scripts")
        if not isinstance(scripts, dict):
            continue
        manager = package_manager(project, folder, manifest)
        for kind, names in SCRIPTS:
            script = next((n for n in names if isinstance(scripts.get(n), str)), None)
            if script is None or (kind == "test" and _NO_TEST in scripts[script]):
                continue
            parser = test_parser(scripts[script]) if kind == "test" else None
            checks.append(make_check("node", kind, kind, _command(manager, script), folder, parser))
    return checks


def package_manager(project: ProjectView, folder: Folder, manifest: dict[str, object]) -> str:
    """npm, pnpm, yarn or bun: the ``packageManager`` field, else the nearest lockfile."""
    declared = manifest.get("packageManager")
    if isinstance(declared, str):
        name = declared.split("@", 1)[0]
        if name in ("npm", "pnpm", "yarn", "bun"):
            return name
    for place in (folder, *project.ancestors(folder)):
        for lockfile, manager in LOCKFILES:
            if place.has(lockfile):
                return manager
    return "npm"


def test_parser(script: str) -> str | None:
    """Which runner a test script calls, so its counts can be read."""
    for needle, parser in (
        ("bun test", "bun"),
        ("vitest", "vitest"),
        ("jest", "jest"),
        ("mocha", "mocha"),
        ("node --test", "node"),
        ("node:test", "node"),
        ("--test", "node"),
    ):
        if needle in script:
            return parser
    return None


def _command(manager: str, script: str) -> list[str]:
    if script == "test" and manager != "bun":  # `bun test` is bun's own runner, not the script
        return [manager, "test"]
    if manager == "yarn":
        return ["yarn", script]
    return [manager, "run", script]
