"""The project as discovery sees it: the folders (up to four deep) and the files in each.

The walk skips ``.git``, vendored and build-output folders and anything the project's
ignore files exclude. Nothing is run; build files are only read.
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zengine_jupyter.host import IgnoreRules
from zengine_jupyter.protocol import CheckKind, CheckSpec

__all__ = [
    "MAX_DEPTH",
    "SKIPPED_FOLDERS",
    "Folder",
    "ProjectView",
    "check_id",
    "make_check",
    "scan_project",
]

MAX_DEPTH = 4
"""Folders deeper than this below the project root are not read."""

SKIPPED_FOLDERS: frozenset[str] = frozenset(
    {
        ".git",
        "node_modules",
        ".venv",
        "venv",
        "target",
        "vendor",
        "dist",
        "build",
        "__pycache__",
        ".ipynb_checkpoints",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".gradle",
        ".z-engine",
    }
)
"""Vendored, virtual-environment and build-output folders, never entered."""


@dataclass(frozen=True)
class Folder:
    """One folder of the project: ``rel`` is ``.`` at the root, else ``a/b``."""

    rel: str
    path: Path
    files: frozenset[str]
    depth: int

    def has(self, *names: str) -> bool:
        return any(name in self.files for name in names)

    def read_text(self, name: str) -> str | None:
        try:
            return (self.path / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    def read_toml(self, name: str) -> dict[str, Any] | None:
        text = self.read_text(name)
        if text is None:
            return None
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return None

    def read_json(self, name: str) -> dict[str, Any] | None:
        text = self.read_text(name)
        if text is None:
            return None
        try:
            value = json.loads(text)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def child(self, name: str) -> str:
        """The root-relative path of ``name`` inside this folder."""
        return name if self.rel == "." else f"{self.rel}/{name}"

    def is_inside(self, other: str) -> bool:
        """Whether this folder is ``other`` or below it."""
        return other == "." or self.rel == other or self.rel.startswith(other + "/")


@dataclass(frozen=True)
class ProjectView:
    """Every folder discovery looked at, sorted shallow first, plus the notebooks found."""

    root: Path
    folders: tuple[Folder, ...]
    notebooks: tuple[str, ...] = ()
    _index: dict[str, Folder] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._index.update((f.rel, f) for f in self.folders)

    def folder(self, rel: str) -> Folder | None:
        return self._index.get(rel)

    def ancestors(self, folder: Folder) -> list[Folder]:
        """The folders above ``folder`` up to the root, nearest first."""
        out: list[Folder] = []
        rel = folder.rel
        while rel != ".":
            rel = rel.rsplit("/", 1)[0] if "/" in rel else "."
            found = self.folder(rel)
            if found is not None:
                out.append(found)
        return out


def check_id(ecosystem: str, name: str, folder: Folder) -> str:
    """``ecosystem:name`` at the root, ``ecosystem:name@sub/folder`` below it."""
    base = f"{ecosystem}:{name}"
    return base if folder.rel == "." else f"{base}@{folder.rel}"


def make_check(
    ecosystem: str,
    name: str,
    kind: CheckKind,
    command: list[str] | str,
    folder: Folder,
    parser: str | None = None,
) -> CheckSpec:
    """A discovered check run from ``folder``."""
    return CheckSpec(
        id=check_id(ecosystem, name, folder),
        kind=kind,
        command=command,
        cwd=folder.rel,
        source="discovered",
        ecosystem=ecosystem,
        parser=parser,
    )


def scan_project(root: Path, max_depth: int = MAX_DEPTH) -> ProjectView:
    """Read the folder tree (blocking; the file system only, nothing is run)."""
    root = Path(root)
    folders: list[Folder] = []
    notebooks: list[str] = []
    stack: list[tuple[Path, str, int, IgnoreRules]] = [(root, "", 0, IgnoreRules.for_root(root))]
    while stack:
        path, prefix, depth, rules = stack.pop()
        try:
            entries = list(os.scandir(path))
        except OSError:
            continue
        if prefix and any(e.name == ".gitignore" for e in entries):
            rules = rules.descend(path, prefix[:-1])
        matcher = rules.folder(prefix)
        files: set[str] = set()
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if depth >= max_depth or name in SKIPPED_FOLDERS or name.startswith("."):
                    continue
                if not matcher.ignored(name, True):
                    stack.append((Path(entry.path), f"{prefix}{name}/", depth + 1, rules))
            elif not matcher.ignored(name, False):
                files.add(name)
                if name.endswith(".ipynb"):
                    notebooks.append(prefix + name)
        folders.append(Folder(prefix.rstrip("/") or ".", path, frozenset(files), depth))
    folders.sort(key=lambda f: (f.depth, f.rel))
    return ProjectView(root, tuple(folders), tuple(sorted(notebooks)))
