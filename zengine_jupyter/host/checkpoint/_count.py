"""Count a project's files up to a limit, as ``git status`` would list them, and stop there.

Checkpoints are off past ``MAX_FILES`` files (not counting ignored ones). ``git status`` must
walk the whole tree before it prints a line, so a project over the limit cost a full status
(and a repository set up for nothing) on every turn. This walk needs no git and no stat: it
reads each folder once (the file types come with the listing), applies the same ignore files
the shadow repository's status does (the root ``.gitignore`` and the shadow's exclude file
over each folder's own ``.gitignore``), counts a nested repository as one entry as status
does, and stops at the first file past the limit.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from zengine_jupyter.host._ignore import IgnoreRules, compile_gitignore

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["FileLimit", "count_files", "project_rules"]


class FileLimit:
    """One repository's answer to "more than ``limit`` files?", remembered (per chat: the
    session keeps its repository) until the top of the project changes: a file or folder
    added or removed at the root, the root ``.gitignore`` or the exclude file edited. A new
    chat counts again."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._known: tuple[tuple[object, ...], bool] | None = None
        self.counts = 0
        """How many times the files were counted (not answered from memory)."""

    def over(self, root: Path, exclude_text: str) -> bool:
        """Blocking (a walk): run it on a worker thread."""
        key = _signature(root, exclude_text)
        if self._known is not None and self._known[0] == key:
            return self._known[1]
        self.counts += 1
        over = count_files(root, project_rules(root, exclude_text), self.limit) > self.limit
        self._known = (key, over)
        return over


def _signature(root: Path, exclude_text: str) -> tuple[object, ...]:
    parts: list[object] = [hash(exclude_text)]
    for path in (root, root / ".gitignore"):
        try:
            info = path.stat()
        except OSError:
            parts.append(None)
        else:
            parts.append((info.st_ino, info.st_mtime_ns, info.st_size))
    return tuple(parts)


def project_rules(root: Path, exclude_text: str) -> IgnoreRules:
    """The root's rules: its ``.gitignore`` over the shadow's exclude file (global excludes,
    the repository's ``info/exclude`` and zengine's own, as written for git)."""
    chain = []
    try:
        text = (root / ".gitignore").read_text("utf-8", "replace")
    except OSError:
        text = ""
    for source in (text, exclude_text):
        compiled = compile_gitignore(source, "")
        if compiled is not None:
            chain.append(compiled)
    return IgnoreRules(tuple(chain))


def count_files(root: Path, rules: IgnoreRules, limit: int) -> int:
    """How many files git would list under ``root``, counting no further than ``limit + 1``."""
    base = str(root)
    count = 0
    stack: list[tuple[str, IgnoreRules]] = [("", rules)]
    while stack:
        prefix, rules = stack.pop()
        try:
            with os.scandir(f"{base}/{prefix}" if prefix else base) as listing:
                entries = list(listing)
        except OSError:
            continue
        names = [e.name for e in entries]
        if prefix and ".git" in names:
            count += 1  # a nested repository: one entry, never entered
            continue
        if prefix and ".gitignore" in names:
            rules = rules.descend(root / prefix, prefix[:-1])
        matcher = rules.folder(prefix)
        skip = matcher.ignored_files(names) if matcher.files is not None else ()
        for entry in entries:
            name = entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if name != ".git" and not matcher.ignored(name, True):
                        stack.append((f"{prefix}{name}/", rules))
                    continue
                if not (entry.is_file(follow_symlinks=False) or entry.is_symlink()):
                    continue  # sockets, fifos, devices: git lists none
            except OSError:
                continue
            if name in skip:
                continue
            count += 1
        if count > limit:
            return count
    return count
