"""The checkpoint ref and commits read and written in Python: two git runs fewer per snapshot.

A snapshot after a few changes costs about what ``git status`` + ``update-index`` +
``write-tree`` cost; reading the ref (``rev-parse``) and writing the commit
(``commit-tree``) and the ref (``update-ref``) added three more processes for a few hundred
bytes. Here, as git's files backend and loose-object format define them:

* the ref is ``refs/zengine/checkpoints`` (a loose file, else a line of ``packed-refs``),
  written to ``<ref>.lock`` and renamed over, under the repository's lock;
* a commit is a loose object: ``commit <size>\\0`` + its text, deflated, named by its SHA-1,
  written under a temporary name and renamed into ``objects/xx/``;
* the last commit's tree is read from its loose object (a packed one, after retention
  rewrote the chain, is left to ``git rev-parse``: the caller falls back).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import secrets
import zlib
from typing import TYPE_CHECKING

from zengine_jupyter.config import PRIVATE_DIR_MODE, private_dir, write_private

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

__all__ = ["commit_date", "commit_tree", "fan_out", "read_ref", "write_commit", "write_ref"]

_HEX40 = re.compile(r"[0-9a-f]{40}")
_DATE = re.compile(r"([0-9]+) ([+-][0-9]{4})")


def read_ref(git_dir: Path, ref: str) -> str | None:
    """The commit ``ref`` names (a loose ref file wins over ``packed-refs``), or None."""
    try:
        text = (git_dir / ref).read_text("ascii").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    if _HEX40.fullmatch(text):
        return text
    try:
        packed = (git_dir / "packed-refs").read_text("utf-8", "replace")
    except OSError:
        return None
    for line in packed.splitlines():
        oid, _, name = line.partition(" ")
        if name == ref and _HEX40.fullmatch(oid):
            return oid
    return None


def write_ref(git_dir: Path, ref: str, oid: str) -> None:
    """Point ``ref`` at ``oid`` (the caller holds the repository's lock)."""
    path = git_dir / ref
    private_dir(path.parent)
    lock = path.with_name(path.name + ".lock")
    write_private(lock, oid + "\n")
    lock.replace(path)


def commit_tree(git_dir: Path, commit: str) -> str | None:
    """The tree of ``commit`` when it is a loose object, else None (ask git)."""
    path = git_dir / "objects" / commit[:2] / commit[2:]
    try:
        raw = zlib.decompressobj().decompress(path.read_bytes(), 128)
    except (OSError, zlib.error):
        return None
    header, _, body = raw.partition(b"\0")
    if not header.startswith(b"commit ") or not body.startswith(b"tree "):
        return None
    tree = body[5:45].decode("ascii", "replace")
    return tree if _HEX40.fullmatch(tree) else None


def commit_date(env: Mapping[str, str], name: str, now: int) -> str | None:
    """``<epoch> <zone>`` from ``env[name]`` (``GIT_COMMITTER_DATE``...) when set in that
    form, ``<now> +0000`` when unset; None for another form (git parses it)."""
    value = env.get(name)
    if value is None:
        return f"{now} +0000"
    m = _DATE.fullmatch(value.strip().removeprefix("@"))
    return f"{m.group(1)} {m.group(2)}" if m else None


def fan_out(git_dir: Path) -> None:
    """Make the 256 ``objects/xx/`` folders git would make one by one, as the first loose
    object of each prefix arrives (a first snapshot writes a pack, and ``gc`` removes empty
    ones). Each loose object a later snapshot writes is then one new file, not a folder and a
    file: on a file system busy freeing inodes, each of those ~20 folders cost 1.5 ms."""
    objects = git_dir / "objects"
    for prefix in range(256):
        with contextlib.suppress(FileExistsError):
            (objects / f"{prefix:02x}").mkdir(PRIVATE_DIR_MODE)


def write_commit(git_dir: Path, text: bytes) -> str:
    """Store a commit object whose text is ``text``; its id."""
    raw = b"commit %d\0" % len(text) + text
    oid = hashlib.sha1(raw, usedforsecurity=False).hexdigest()
    folder = git_dir / "objects" / oid[:2]
    path = folder / oid[2:]
    if path.exists():
        return oid
    private_dir(folder)
    tmp = folder / f"tmp_obj_zengine_{secrets.token_hex(6)}"
    write_private(tmp, zlib.compress(raw, 1))
    tmp.replace(path)
    return oid
