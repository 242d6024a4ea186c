"""Write a git index (version 2) from file stats and object ids, without running git.

The first snapshot hashes and stores every file itself (``_pack.py``); the shadow index
then needs one entry per file with the stat data git compares (so the next ``git status``
costs a stat per file, not a hash) and the object id. The format is git's
``Documentation/gitformat-index.txt``: a ``DIRC`` header, entries sorted by path bytes, each
padded with NULs to a multiple of 8 bytes, and a SHA-1 of everything before it.

Racy entries (changed in the same instant the index was written) are git's to handle: it
compares their contents when the file's time is not older than the index's, as for any index.
"""

from __future__ import annotations

import hashlib
import stat
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zengine_jupyter.config import write_private

if TYPE_CHECKING:
    import os
    from collections.abc import Iterable
    from pathlib import Path

__all__ = ["IndexEntry", "git_mode", "index_bytes", "write_index"]

_ENTRY = struct.Struct(">10I20sH")
_U32 = 0xFFFFFFFF


def git_mode(st_mode: int) -> int:
    """The mode git records for a file: a symlink, or a regular file with or without exec."""
    if stat.S_ISLNK(st_mode):
        return 0o120000
    return 0o100755 if st_mode & stat.S_IXUSR else 0o100644


@dataclass(frozen=True)
class IndexEntry:
    path: bytes
    """Root-relative, ``/``-separated."""
    info: os.stat_result
    """The file's lstat (fstat of the opened file) taken before its content was read."""
    oid: bytes
    """The blob's 20-byte SHA-1."""


def index_bytes(entries: Iterable[IndexEntry]) -> bytes:
    """A whole version-2 index holding ``entries`` (any order; paths must be unique)."""
    ordered = sorted(entries, key=lambda e: e.path)
    parts = [b"DIRC", struct.pack(">II", 2, len(ordered))]
    pack = _ENTRY.pack
    for e in ordered:
        st = e.info
        name = e.path
        parts.append(
            pack(
                int(st.st_ctime) & _U32,
                st.st_ctime_ns % 1_000_000_000,
                int(st.st_mtime) & _U32,
                st.st_mtime_ns % 1_000_000_000,
                st.st_dev & _U32,
                st.st_ino & _U32,
                git_mode(st.st_mode),
                st.st_uid & _U32,
                st.st_gid & _U32,
                st.st_size & _U32,
                e.oid,
                min(len(name), 0xFFF),
            )
        )
        # 62 bytes of fields, the name, then 1-8 NULs to a multiple of 8
        parts.append(name + b"\0" * (8 - (62 + len(name)) % 8))
    body = b"".join(parts)
    return body + hashlib.sha1(body, usedforsecurity=False).digest()


def write_index(path: Path, entries: Iterable[IndexEntry]) -> None:
    """Replace the index at ``path`` in one step (``<path>.lock``, then rename), as git does."""
    data = index_bytes(entries)
    lock = path.with_name(path.name + ".lock")
    write_private(lock, data)
    lock.replace(path)
