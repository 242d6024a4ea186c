"""The project's fingerprint: a short digest of every file's path, size and mtime_ns.

Ignored files are left out (``.gitignore`` files and ``.git/info/exclude``) and ``.git``
folders are never entered. Symlinks count by their own metadata, never followed.

Why a Python walk and not ``git ls-files -co --exclude-standard``: git does not report
sizes or times, so its listing must still be stat-ed file by file; measured on a
50,000-file tree the git listing alone cost about a third of the whole bare walk,
while the walk below adds only the ignore match and the hashing to the bare
``os.scandir`` + stat floor (see ``benchmarks/bench_verify.py``).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from zengine_jupyter.host._ignore import IgnoreRules

__all__ = ["ALWAYS_SKIPPED", "Fingerprint", "fingerprint_tree", "workspace_fingerprint"]

ALWAYS_SKIPPED: frozenset[str] = frozenset({".git"})
"""Folder names never entered, whatever the ignore files say."""


@dataclass(frozen=True)
class Fingerprint:
    """``digest``: 16 hex digits; ``files``: how many files it covers."""

    digest: str
    files: int


def fingerprint_tree(root: Path) -> Fingerprint:
    """Walk ``root`` (blocking; see :func:`workspace_fingerprint` for the async form)."""
    root = Path(root)
    hasher = hashlib.blake2b(digest_size=8)
    count = 0
    # (absolute folder, root-relative prefix ending in "/" or "", rules in scope)
    stack: list[tuple[str, str, IgnoreRules]] = [(str(root), "", IgnoreRules.for_root(root))]
    while stack:
        folder, prefix, rules = stack.pop()
        rows: list[tuple[str, int, int]] = []
        add = rows.append
        check = not rules.empty
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for entry in entries:
                name = entry.name
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                if is_dir:
                    if name in ALWAYS_SKIPPED:
                        continue
                    rel = prefix + name
                    if check and rules.ignored(rel, True):
                        continue
                    stack.append((entry.path, rel + "/", rules.descend(Path(entry.path), rel)))
                    continue
                if check and rules.ignored(prefix + name, False):
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue  # vanished while we walked
                add((name, info.st_size, info.st_mtime_ns))
        if rows:
            rows.sort()
            count += len(rows)
            hasher.update(repr((prefix, rows)).encode("utf-8", "surrogateescape"))
    return Fingerprint(hasher.hexdigest(), count)


async def workspace_fingerprint(root: Path) -> Fingerprint:
    """The fingerprint of ``root``, computed on a worker thread so the event loop keeps going."""
    return await asyncio.to_thread(fingerprint_tree, root)
