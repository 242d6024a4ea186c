"""Which files a search sees: the engine's own walk, ignore rules, symlinks and Read rules.

No git is run (issue 18.1): git reads the configuration of the repository it finds, and every
repository in a project is the project's to write (``core.fsmonitor`` runs a program, an
embedded bare repository or ``sub/.git`` is found by git's discovery). The walk reads the
ignore files itself (``host/_ignore.py``: ``.gitignore`` files and ``.git/info/exclude`` of
the listing's top folder), which measured faster than ``git ls-files`` (see
``benchmarks/bench_listing.py``). Differences from git's listing, on purpose: a tracked file
that an ignore rule matches is left out, and the user's global excludes file is not read. A
folder named explicitly is listed even when it is itself ignored (the rules still apply to the
entries inside it): asking for ``build/`` means wanting to see it.

What is never listed (issue 18.6): ``.git`` entries and the internals of any folder that looks
like a bare repository (``HEAD``, ``objects``, ``refs``); the inside of a symlinked folder (never
followed); a symlinked file whose target is not a file inside the project, an additional
directory or the listed folder; a file the Read rules would not let the model read without
asking. Files left out for those last two reasons are counted, so the tools can say so.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from zengine_jupyter.config import compile_glob
from zengine_jupyter.engine.tools._read_check import ReadCheck
from zengine_jupyter.host import IgnoreRules

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["SKIPPED_FOLDERS", "Listing", "compile_glob", "list_files", "walk_files"]

SKIPPED_FOLDERS = frozenset(
    {".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache",
     ".pytest_cache", ".ipynb_checkpoints", ".tox", "target", "dist", "build"}
)  # fmt: skip
"""Skipped when the listing's top folder is not a git work tree (no ignore file says more)."""

_BARE_REPOSITORY = frozenset({"HEAD", "objects", "refs"})

LEFT_OUT_NOTE = "[{n} files left out: denied by Read rules or outside the project]"


@dataclass
class Listing:
    """The files a search may read, as listed, and how many were left out."""

    files: list[Path] = field(default_factory=list)
    targets: dict[Path, Path] = field(default_factory=dict)
    """For a listed symlink: the file it points to (read that, never the link again)."""
    left_out: int = 0

    def real(self, path: Path) -> Path:
        return self.targets.get(path, path)

    def notes(self) -> list[str]:
        """The last line a tool adds when files were left out (none when none were)."""
        return [LEFT_OUT_NOTE.format(n=self.left_out)] if self.left_out else []


async def list_files(
    folder: Path,
    *,
    root: Path,
    check: ReadCheck | None = None,
) -> Listing:
    """The files under ``folder`` (in a thread): ignore rules from the top folder (the project
    root, or ``folder`` itself when it is outside the root) down; see the module docstring."""
    return await asyncio.to_thread(walk_files, folder, root, check)


def walk_files(folder: Path, root: Path, check: ReadCheck | None = None) -> Listing:
    """:func:`list_files`, blocking."""
    check = check or ReadCheck.build(folder, root)
    top = root if folder == root or root in folder.parents else folder
    rules = IgnoreRules.for_root(top)
    prefix = ""
    for part in folder.relative_to(top).parts:
        if prefix:  # the ancestors' own .gitignore files (the walk reads the folder's own)
            rules = rules.descend(top / prefix, prefix[:-1])
        prefix += part + "/"
    skip_tools = not (top / ".git").exists()
    listing = Listing()
    stack: list[tuple[Path, str, str, IgnoreRules]] = [
        (folder, os.path.realpath(folder), prefix, rules)
    ]
    while stack:
        path, real, prefix, rules = stack.pop()
        try:
            entries = list(os.scandir(path))
        except OSError:
            continue
        names = [e.name for e in entries]
        if _BARE_REPOSITORY.issubset(names):
            continue  # a bare repository's internals (config, hooks) are not the project's files
        if prefix and ".gitignore" in names:
            rules = rules.descend(path, prefix[:-1])
        matcher = rules.folder(prefix)
        skip = matcher.ignored_files(names) if matcher.files is not None else set()
        for entry in entries:
            _visit(entry, real, prefix, rules, (matcher.ignored, skip, skip_tools), stack, listing,
                   check)  # fmt: skip
    return listing


def _visit(
    entry: os.DirEntry[str],
    folder_real: str,
    prefix: str,
    rules: IgnoreRules,
    skipping: tuple[Callable[[str, bool], bool], set[str], bool],
    stack: list[tuple[Path, str, str, IgnoreRules]],
    listing: Listing,
    check: ReadCheck,
) -> None:
    """One entry of a folder whose real path is ``folder_real``: pushed, listed or skipped."""
    name = entry.name
    if name == ".git":
        return
    ignored, skip, skip_tools = skipping
    try:
        if entry.is_dir(follow_symlinks=False):
            if not (skip_tools and name in SKIPPED_FOLDERS) and not ignored(name, True):
                real = f"{folder_real.rstrip(os.sep)}/{name}"
                stack.append((Path(entry.path), real, f"{prefix}{name}/", rules))
            return
        if name in skip:
            return
        path = Path(entry.path)
        if entry.is_symlink():
            real = os.path.realpath(entry.path)
            if Path(real).is_dir():
                return  # a symlinked folder is never followed
            if not Path(real).is_file() or not check.allows(path, real, linked=True):
                listing.left_out += 1
                return
            listing.targets[path] = Path(real)
        elif not entry.is_file(follow_symlinks=False):
            return  # sockets, fifos, devices
        elif not check.allows(path, f"{folder_real.rstrip(os.sep)}/{name}"):
            listing.left_out += 1
            return
    except OSError:
        return  # vanished while we walked
    listing.files.append(path)
