"""Read, compare and shape folder trees, for checkpoint, sandbox and listing tests."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

__all__ = ["bare_repository", "digest_tree", "tree_state"]


def tree_state(root: Path, *, skip: tuple[str, ...] = (".git",)) -> dict[str, tuple[str, str]]:
    """``{relative path: (kind, content)}`` for every file and symlink under ``root``.

    kind is ``file`` / ``exec`` / ``link``; content is the bytes' sha256 or the link target.
    Folders named in ``skip`` are not entered. Empty folders are not listed (git keeps none).
    """
    state: dict[str, tuple[str, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in skip]
        for name in filenames + [d for d in dirnames if Path(dirpath, d).is_symlink()]:
            path = Path(dirpath, name)
            rel = path.relative_to(root).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                state[rel] = ("link", str(path.readlink()))
            elif stat.S_ISREG(info.st_mode):
                kind = "exec" if info.st_mode & stat.S_IXUSR else "file"
                state[rel] = (kind, hashlib.sha256(path.read_bytes()).hexdigest())
    return state


def digest_tree(root: Path) -> dict[str, str]:
    """sha256 of every regular file under ``root``, .git included (for "untouched" checks)."""
    out: dict[str, str] = {}
    for dirpath, _dirs, filenames in os.walk(root):
        for name in filenames:
            path = Path(dirpath, name)
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                out[rel] = f"link:{path.readlink()}"
            else:
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def bare_repository(folder: Path, config: str) -> Path:
    """A folder shaped like a bare git repository (``HEAD``, ``objects``, ``refs``) whose
    ``config`` holds ``config``: the listing must never list its internals."""
    for part in ("objects", "refs"):
        (folder / part).mkdir(parents=True)
    (folder / "HEAD").write_text("ref: refs/heads/main\n")
    (folder / "config").write_text(config)
    return folder
