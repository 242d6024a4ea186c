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

__all__ = ["BATCH", "SKIPPED_FOLDERS", "Listing", "compile_glob", "list_files", "walk_files"]

BATCH = 512
"""How many listed files the walk hands ``on_batch`` at a time."""

SKIPPED_FOLDERS = frozenset(
    {".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache",
     ".pytest_cache", ".ipynb_checkpoints", ".tox", "target", "dist", "build"}
)  # fmt: skip
"""Skipped when the listing's top folder is not a git work tree (no ignore file says more)."""

_BARE_REPOSITORY = frozenset({"HEAD", "objects", "refs"})

LEFT_OUT_NOTE = "[{n} files left out: denied by Read rules or outside the project]"


@dataclass
class Listing:
    """The files a search may read, as listed, and how many were left out.

    Paths are kept as strings (a walk of 20,000 files spent half its time building ``Path``
    objects); :attr:`files` and :attr:`targets` give them as paths."""

    names: list[str] = field(default_factory=list)
    """Each listed file, as the listed folder's path joined with the names below it."""
    links: dict[str, str] = field(default_factory=dict)
    """For a listed symlink: the file it points to (read that, never the link again)."""
    left_out: int = 0
    rgignore: bool = False
    """Whether a folder the walk entered holds a ``.rgignore`` (ripgrep's own walk reads it
    whatever its flags say, so it could leave out a listed file: ``_ripgrep_walk.py``)."""

    @property
    def files(self) -> list[Path]:
        return [Path(name) for name in self.names]

    @property
    def targets(self) -> dict[Path, Path]:
        return {Path(k): Path(v) for k, v in self.links.items()}

    def real(self, path: str) -> str:
        return self.links.get(path, path) if self.links else path

    def notes(self) -> list[str]:
        """The last line a tool adds when files were left out (none when none were)."""
        return [LEFT_OUT_NOTE.format(n=self.left_out)] if self.left_out else []


async def list_files(
    folder: Path,
    *,
    root: Path,
    check: ReadCheck | None = None,
    on_batch: Callable[[list[str], Listing], None] | None = None,
) -> Listing:
    """The files under ``folder`` (in a thread): ignore rules from the top folder (the project
    root, or ``folder`` itself when it is outside the root) down; see the module docstring.

    ``on_batch`` (called in the walk's thread) is given the files listed since its last call,
    every :data:`BATCH` files or so and once at the end, so a search can start on the first
    files while the walk lists the rest."""
    return await asyncio.to_thread(walk_files, folder, root, check, on_batch)


def walk_files(
    folder: Path,
    root: Path,
    check: ReadCheck | None = None,
    on_batch: Callable[[list[str], Listing], None] | None = None,
) -> Listing:
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
    stack: list[tuple[str, str, str, IgnoreRules]] = [
        (str(folder), os.path.realpath(folder), prefix, rules)
    ]
    given = 0
    while stack:
        if on_batch is not None and len(listing.names) - given >= BATCH:
            on_batch(listing.names[given:], listing)
            given = len(listing.names)
        path, real, prefix, rules = stack.pop()
        try:
            entries = list(os.scandir(path))
        except OSError:
            continue
        names = [e.name for e in entries]
        if _BARE_REPOSITORY.issubset(names):
            continue  # a bare repository's internals (config, hooks) are not the project's files
        if ".rgignore" in names:
            listing.rgignore = True
        if prefix and ".gitignore" in names:
            rules = rules.descend(Path(path), prefix[:-1])
        matcher = rules.folder(prefix)
        skip = matcher.ignored_files(names) if matcher.files is not None else set()
        _folder(entries, real, prefix, rules, (matcher.ignored, skip, skip_tools), stack, listing,
                check)  # fmt: skip
    if on_batch is not None:
        on_batch(listing.names[given:], listing)
    return listing


def _folder(
    entries: list[os.DirEntry[str]],
    folder_real: str,
    prefix: str,
    rules: IgnoreRules,
    skipping: tuple[Callable[[str, bool], bool], set[str], bool],
    stack: list[tuple[str, str, str, IgnoreRules]],
    listing: Listing,
    check: ReadCheck,
) -> None:
    """The entries of a folder whose real path is ``folder_real``: pushed, listed or skipped."""
    ignored, skip, skip_tools = skipping
    head = folder_real.rstrip(os.sep) + "/"
    every = check.allows_every_file_in(folder_real)  # no per-file question to ask
    keep = listing.names.append
    for entry in entries:
        name = entry.name
        if name == ".git":
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                if not (skip_tools and name in SKIPPED_FOLDERS) and not ignored(name, True):
                    stack.append((entry.path, head + name, f"{prefix}{name}/", rules))
                continue
            if name in skip:
                continue
            path = entry.path
            if entry.is_symlink():
                real = os.path.realpath(path)
                if os.path.isdir(real):  # noqa: PTH112 (strings: no Path per file)
                    continue  # a symlinked folder is never followed
                if not os.path.isfile(real) or not check.allows(path, real, linked=True):  # noqa: PTH113
                    listing.left_out += 1
                    continue
                listing.links[path] = real
            elif not entry.is_file(follow_symlinks=False):
                continue  # sockets, fifos, devices
            elif not every and not check.allows(path, head + name):
                listing.left_out += 1
                continue
        except OSError:
            continue  # vanished while we walked
        keep(path)
