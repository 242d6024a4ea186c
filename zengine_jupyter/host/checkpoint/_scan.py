"""What changed since the last snapshot, from ``git status -z`` against the shadow index.

``git status`` uses the shadow index's stat cache and untracked cache, so an incremental
scan costs about what git's own status costs. Each entry is then classified: stored,
deleted, too large (over 8 MiB), or a nested repository (left out as a whole).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zengine_jupyter.host._safe_fs import Directories
from zengine_jupyter.protocol import NotStored, PathError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["MAX_FILES", "MAX_FILE_BYTES", "Scan", "classify", "parse_status", "read_index_count"]

MAX_FILE_BYTES = 8 * 1024 * 1024
"""Files larger than this (8 MiB) are not stored; each snapshot lists them."""

MAX_FILES = 50_000
"""Projects with more files than this have checkpoints turned off."""


@dataclass
class Scan:
    """The work to do for one snapshot."""

    update: list[str] = field(default_factory=list)
    """Paths to (re)store: new, modified, type-changed."""
    remove: list[str] = field(default_factory=list)
    """Paths to drop from the snapshot: deleted, or now too large."""
    not_stored: list[NotStored] = field(default_factory=list)
    untracked: int = 0


def parse_status(chunk: bytes) -> list[tuple[str, str]]:
    """``git status --porcelain=v1 -z`` records as ``(XY, path)`` (renames are off)."""
    records = []
    for raw in chunk.split(b"\0"):
        if len(raw) < 4:
            continue
        records.append((raw[:2].decode("ascii"), os.fsdecode(raw[3:])))
    return records


def classify(records: list[tuple[str, str]], root: Path, scan: Scan, *, look: bool = True) -> None:
    """Sort status records into ``scan`` (lstat of each changed path; nothing else).

    The lstat follows no symlink on the way: a path behind a folder that became a symlink
    is not in the project any more (removed from the snapshot, never read through it).
    Without ``look`` (the first snapshot, whose reader checks each file it opens) new
    files are taken as listed, with no lstat."""
    with Directories(root) as dirs:
        for xy, rel in records:
            if xy == "??":
                scan.untracked += 1
                if rel.endswith("/"):
                    scan.not_stored.append(NotStored(path=rel, reason="nested_repository"))
                    continue
                if not look:
                    scan.update.append(rel)
                    continue
            elif xy[1] == " ":
                continue  # index == work tree (only the index differs from the last commit)
            _classify_one(dirs, root, xy, rel, scan)


def _classify_one(dirs: Directories, root: Path, xy: str, rel: str, scan: Scan) -> None:
    try:
        info = dirs.lstat(root / rel)
    except PathError:
        info = None
    if info is None:
        scan.remove.append(rel)
        return
    if stat.S_ISREG(info.st_mode) and info.st_size > MAX_FILE_BYTES:
        scan.not_stored.append(NotStored(path=rel, reason="too_large", size=info.st_size))
        if xy != "??":
            scan.remove.append(rel)
        return
    scan.update.append(rel)


def read_index_count(index_file: Path) -> int:
    """Number of entries in a git index, from its 12-byte header (0 when there is none)."""
    try:
        with index_file.open("rb") as handle:
            header = handle.read(12)
    except FileNotFoundError:
        return 0
    if len(header) < 12 or header[:4] != b"DIRC":
        return 0
    return int.from_bytes(header[8:12], "big")
