"""Small file primitives the store is built on: ids, atomic writes, the writer lock."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import secrets
import time
from typing import TYPE_CHECKING

from zengine_jupyter.protocol import SessionLockedError, SessionNotFoundError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "WriterLock",
    "atomic_write",
    "check_id",
    "is_valid_id",
    "remove_stale_temps",
    "write_all",
]

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
_TEMP = re.compile(r"\..+\.[0-9a-f]{8}\.tmp")
"""The name :func:`atomic_write` gives its temporary file: ``.<name>.<8 hex>.tmp``."""


def is_valid_id(value: str) -> bool:
    """A safe folder/file name: letters, digits, ``_ . -``; no ``..``, not ``*.jsonl``."""
    return bool(_ID.fullmatch(value)) and not value.endswith(".jsonl") and ".." not in value


def check_id(value: str, what: str = "chat") -> str:
    """``value`` if :func:`is_valid_id`, else :class:`SessionNotFoundError`."""
    if not is_valid_id(value):
        raise SessionNotFoundError(
            f"{value!r} is not a valid {what} id",
            hint="ids are letters, digits, '_', '.' and '-' (see `zengine sessions list`)",
        )
    return value


def write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written (a regular file rarely needs a second call)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def atomic_write(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so a reader sees the old file or the new one, never half.

    A kill between creating the temporary file and the rename leaves it behind;
    :func:`remove_stale_temps` clears those in a chat's folder.
    """
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            write_all(fd, data)
        finally:
            os.close(fd)
        tmp.replace(path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise


def remove_stale_temps(folder: Path) -> tuple[str, ...]:
    """Delete the temporary files of :func:`atomic_write` in a chat's ``folder`` and its
    ``artifacts/``; the names removed, relative to ``folder``.

    Call it only while holding the chat's :class:`WriterLock`. The store writes in a chat's
    folder only under that lock (``meta.json``, artifacts), so once this process holds it,
    whoever made a temporary file there is dead or done with it: no live write can be cut.
    Nothing else is touched (only names of that exact shape, only regular files).
    """
    removed: list[str] = []
    for where, prefix in ((folder, ""), (folder / "artifacts", "artifacts/")):
        try:
            entries = list(os.scandir(where))
        except FileNotFoundError:
            continue
        for entry in entries:
            if _TEMP.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    (where / entry.name).unlink()
                    removed.append(prefix + entry.name)
    return tuple(sorted(removed))


class WriterLock:
    """An exclusive ``flock`` on ``<chat>/lock``, held for as long as a writer is open.

    The lock belongs to the open file, so it is released when the holder closes it or
    dies (even by SIGKILL); the file itself is never deleted. It holds the holder's pid
    so the error can name it.
    """

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, path: Path, session_id: str) -> WriterLock:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder_pid(fd)
            os.close(fd)
            who = "this process" if holder == os.getpid() else f"process {holder}"
            if holder is None:
                who = "another process (its id is not recorded yet)"
            raise SessionLockedError(
                f"chat {session_id} is already open for writing by {who} ({path})",
                hint="close it there first, or open it read-only (`zengine sessions show`)",
                holder_pid=holder,
            ) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return cls(fd)

    def release(self) -> None:
        """Idempotent."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


_PID_WAIT_S = 0.25


def _holder_pid(fd: int) -> int | None:
    """The lock holder's pid. A holder writes it just after taking the lock, so a racing
    opener may find the file empty: it looks again for a moment before giving up."""
    deadline = time.monotonic() + _PID_WAIT_S
    while (pid := _read_pid(fd)) is None and time.monotonic() < deadline:
        time.sleep(0.01)
    return pid


def _read_pid(fd: int) -> int | None:
    try:
        return int(os.pread(fd, 32, 0).decode().strip())
    except (ValueError, OSError):
        return None
