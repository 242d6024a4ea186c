"""Deleting a chat: its folder moves to ``sessions/.trash/`` (the choice, documented in
docs/sessions.md).

A deleted chat leaves every list at once (:meth:`SessionStore.list` skips dot folders, and so
does the other chats' reading in a rewind warning), but its log stays readable for a while:
a wrong click is undone by moving the folder back. Trashed chats older than
:data:`TRASH_DAYS` are removed for good at the next delete. The chat's checkpoints live in the
project's shadow repository, not in the chat's folder: they stay until checkpoint retention
removes them, so a rewind from another chat of the project keeps working.
"""

from __future__ import annotations

import shutil
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from zengine_jupyter.protocol import SessionNotFoundError
from zengine_jupyter.store._files import WriterLock, check_id

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["TRASH_DAYS", "trash_chat"]

TRASH_DAYS = 30
"""How long a deleted chat's folder stays in ``.trash/``."""


def trash_chat(root: Path, session_id: str) -> Path:
    """Move chat ``session_id``'s folder under ``root/.trash/``; returns where it went.

    Refuses (``SessionLockedError``) while a writer holds the chat, in this process or
    another; ``SessionNotFoundError`` when there is no such chat."""
    folder = root / check_id(session_id)
    if not folder.is_dir():
        raise SessionNotFoundError(
            f"no chat {session_id!r} in {root}", hint="refresh the list: it may be deleted already"
        )
    bin_ = root / ".trash"
    bin_.mkdir(exist_ok=True)
    _empty_old(bin_)
    target = bin_ / f"{session_id}--{datetime.now(UTC):%Y%m%d-%H%M%S}"
    lock = WriterLock.acquire(folder / "lock", session_id)
    try:
        folder.rename(target)
    finally:
        lock.release()
    return target


def _empty_old(bin_: Path) -> None:
    cutoff = time.time() - TRASH_DAYS * 86_400
    for entry in bin_.iterdir():
        try:
            if entry.is_dir() and entry.stat().st_mtime < cutoff:
                shutil.rmtree(entry, ignore_errors=True)
        except OSError:
            continue
