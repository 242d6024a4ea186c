"""SessionStore: the data folder's ``sessions/``, one folder per chat.

::

    sessions/<id>/log.jsonl          the log: one record per line, append-only
    sessions/<id>/meta.json          SessionMeta, derived from the log, written atomically
    sessions/<id>/agents/<a>.jsonl   each subagent's transcript
    sessions/<id>/artifacts/         long outputs, check logs, images, cut torn tails
    sessions/<id>/lock               the writer lock (flock); never deleted
    sessions/.trash/<id>--<time>/    a deleted chat, kept 30 days (``_trash.py``)
    sessions/<id>.jsonl              a v1 chat, imported to a folder on first open

Writers (:meth:`SessionStore.open`, :meth:`SessionStore.create`) take the chat's lock;
a second writer gets :class:`SessionLockedError`. Holding it, opening removes the
temporary files a killed writer's atomic write left in the folder. Readers
(:meth:`SessionStore.read`, :meth:`SessionStore.list`) never lock and never change a
log: they ignore a partial last line that a live writer may be in the middle of.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from zengine_jupyter.config import data_dir, private_dir
from zengine_jupyter.protocol import (
    LogRecord,
    SessionMeta,
    SessionNotFoundError,
    SessionRecord,
    StoreError,
    new_id,
)
from zengine_jupyter.store._files import WriterLock, check_id, is_valid_id, remove_stale_temps
from zengine_jupyter.store._legacy import V1Chat, import_v1, read_v1
from zengine_jupyter.store._lines import SkippedLine, gc_paused, scan_file
from zengine_jupyter.store._meta import check_meta, meta_from_state, read_meta
from zengine_jupyter.store._replay import Replayer, ResumeState, replay
from zengine_jupyter.store._trash import trash_chat
from zengine_jupyter.store._writer import OpenReport, SessionWriter, open_log_for_append

__all__ = ["SessionSnapshot", "SessionStore"]


@dataclass(frozen=True)
class SessionSnapshot:
    """A chat read without locking: its replayed state and what reading skipped."""

    id: str
    folder: Path
    state: ResumeState
    meta: SessionMeta
    skipped: tuple[SkippedLine, ...]
    partial_tail_bytes: int
    """Bytes after the last newline, ignored (a live writer's line, or a torn one)."""


class SessionStore:
    """Every chat under ``root`` (default: the data folder's ``sessions/``)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root if root is not None else data_dir() / "sessions"

    def folder(self, session_id: str) -> Path:
        return self.root / check_id(session_id)

    def _legacy_file(self, session_id: str) -> Path:
        return self.root / f"{session_id}.jsonl"

    def _ensure_folder(self, session_id: str) -> tuple[Path, V1Chat | None]:
        folder = self.folder(session_id)
        if folder.is_dir():
            return folder, None
        if self._legacy_file(session_id).is_file():
            return folder, import_v1(self.root, session_id)
        raise SessionNotFoundError(
            f"no chat {session_id!r} in {self.root}",
            hint="`zengine sessions list` shows the chats there",
        )

    def create(
        self, *, project: Path | str | None = None, session_id: str | None = None
    ) -> SessionWriter:
        """A new chat, open for writing; its first record says which project it is about."""
        sid = check_id(session_id or f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{new_id()[:6]}")
        folder = self.root / sid
        private_dir(self.root)
        if self._legacy_file(sid).exists():
            raise StoreError(f"a v1 chat {sid!r} exists in {self.root}", hint="open it instead")
        try:
            folder.mkdir(0o700)
        except FileExistsError:
            raise StoreError(
                f"a chat {sid!r} already exists in {self.root}", hint="open it, or pick another id"
            ) from None
        (folder / "agents").mkdir(0o700)
        (folder / "artifacts").mkdir(0o700)
        writer = self._open_writer(folder, imported=None)
        writer.append(SessionRecord(project=None if project is None else str(project)))
        writer.write_meta()
        return writer

    def remove(self, session_id: str) -> None:
        """Delete a chat's folder (a chat that never reached the model; its writer closed)."""
        folder = self.folder(session_id)
        if folder.is_dir():
            shutil.rmtree(folder)

    def trash(self, session_id: str) -> Path:
        """Delete a chat: its folder moves to ``.trash/`` (``_trash.py``); returns where."""
        return trash_chat(self.root, session_id)

    def open(self, session_id: str) -> SessionWriter:
        """Open a chat for writing: lock, repair its tail, replay, fix ``meta.json``."""
        folder, imported = self._ensure_folder(session_id)
        return self._open_writer(folder, imported=imported)

    def _open_writer(self, folder: Path, *, imported: V1Chat | None) -> SessionWriter:
        lock = WriterLock.acquire(folder / "lock", folder.name)
        try:
            removed = remove_stale_temps(folder)  # ours now: no live writer can own one
            fd, tail, scan = open_log_for_append(folder / "log.jsonl", folder)
        except BaseException:
            lock.release()
            raise
        replayer = Replayer()
        with gc_paused():
            # with a repaired tail the ids no longer match the records: feed_all collects them
            replayer.feed_all(scan.records, scan.first_lines)
        writer = SessionWriter(folder, lock, fd, replayer)
        try:
            problem = check_meta(folder / "meta.json", writer.meta())
            if problem is not None:
                writer.write_meta()
        except BaseException:
            writer.close()
            raise
        writer.report = OpenReport(
            skipped=tuple(scan.skipped),
            tail=tail,
            meta=problem,
            imported_v1=imported is not None,
            v1_skipped=tuple(imported.skipped) if imported else (),
            removed_temps=removed,
        )
        return writer

    async def aopen(self, session_id: str) -> SessionWriter:
        """:meth:`open` in a worker thread: a long log takes a while to replay."""
        return await asyncio.to_thread(self.open, session_id)

    async def aread(self, session_id: str) -> SessionSnapshot:
        """:meth:`read` in a worker thread."""
        return await asyncio.to_thread(self.read, session_id)

    def read(self, session_id: str) -> SessionSnapshot:
        """Replay a chat without locking or changing it (a v1 chat is imported first)."""
        folder, _ = self._ensure_folder(session_id)
        scan = scan_file(folder / "log.jsonl")
        state = replay(scan.records, scan.first_lines)
        return SessionSnapshot(
            id=folder.name,
            folder=folder,
            state=state,
            meta=meta_from_state(folder.name, state, scan.size),
            skipped=tuple(scan.skipped),
            partial_tail_bytes=len(scan.tail),
        )

    def read_agent(self, session_id: str, agent_id: str) -> list[LogRecord]:
        """A subagent's records (damaged lines and a partial tail skipped)."""
        path = self.folder(session_id) / "agents" / f"{check_id(agent_id, 'agent')}.jsonl"
        return scan_file(path).records

    def list(self) -> list[SessionMeta]:
        """Every chat, most recently updated first; v1 files not yet imported are included.

        Uses ``meta.json`` when it matches the log's size, else replays the log (read-only).
        """
        if not self.root.is_dir():
            return []
        metas: list[SessionMeta] = []
        folders: set[str] = set()
        for entry in os.scandir(self.root):
            if entry.name.startswith("."):
                continue
            if entry.is_dir() and is_valid_id(entry.name):
                folders.add(entry.name)
                metas.append(self._listed_meta(Path(entry.path)))
        for entry in os.scandir(self.root):
            sid = entry.name.removesuffix(".jsonl")
            legacy = entry.name.endswith(".jsonl") and is_valid_id(sid)
            if legacy and entry.is_file() and sid not in folders:
                chat = read_v1(Path(entry.path))
                size = Path(entry.path).stat().st_size
                metas.append(meta_from_state(sid, replay(chat.records), size))
        metas.sort(key=lambda m: (m.updated, m.id), reverse=True)
        return metas

    def _listed_meta(self, folder: Path) -> SessionMeta:
        stored = read_meta(folder / "meta.json")
        try:
            size = (folder / "log.jsonl").stat().st_size
        except FileNotFoundError:
            size = 0
        if isinstance(stored, SessionMeta) and stored.log_size == size and stored.id == folder.name:
            return stored
        scan = scan_file(folder / "log.jsonl")
        return meta_from_state(folder.name, replay(scan.records, scan.first_lines), scan.size)
