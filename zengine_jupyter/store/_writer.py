"""The one writer of a chat: append-only, one ``os.write`` per record.

``append`` serialises the record to one JSON line and writes it with a single
``os.write`` on an ``O_APPEND`` descriptor before returning, so the line is in the
kernel's page cache (it survives the process being killed; ``sync()`` adds an
fsync for power loss). There is no user-space buffer that a kill could lose and no
thread hop: the call takes microseconds, so the engine may call it from its event
loop. Nothing is ever rewritten in place.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Self

from zengine_jupyter.protocol import StoreError
from zengine_jupyter.store._files import atomic_write, check_id, write_all
from zengine_jupyter.store._lines import (
    LogScan,
    SkippedLine,
    record_line,
    scan_file,
    validate_line,
)
from zengine_jupyter.store._meta import MetaProblem, meta_from_state, write_meta

if TYPE_CHECKING:
    from pathlib import Path
    from types import TracebackType

    from zengine_jupyter.protocol import LogRecord, SessionMeta
    from zengine_jupyter.store._files import WriterLock
    from zengine_jupyter.store._replay import Replayer, ResumeState

__all__ = ["OpenReport", "SessionWriter", "TailRepair", "open_log_for_append"]

_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC


@dataclass(frozen=True)
class TailRepair:
    """What was done with a log's half-written last line."""

    cut_bytes: int = 0
    """Bytes cut off the end (0: nothing cut)."""
    artifact: str | None = None
    """Where the cut bytes were kept, relative to the chat folder."""
    completed: bool = False
    """The tail was a whole record missing only its newline: the newline was added."""


@dataclass(frozen=True)
class OpenReport:
    """What opening a chat found and did; nothing here is ever silent."""

    skipped: tuple[SkippedLine, ...] = ()
    tail: TailRepair = TailRepair()
    meta: MetaProblem | None = None
    """Why ``meta.json`` was rewritten (None: it was fine)."""
    imported_v1: bool = False
    """This open converted a v1 file into the chat's folder."""
    v1_skipped: tuple[SkippedLine, ...] = ()
    """Lines of the v1 file the import could not use (the file itself is kept unchanged)."""
    removed_temps: tuple[str, ...] = ()
    """Temporary files a killed writer left (``.meta.json.<hex>.tmp``...), now removed."""

    @property
    def clean(self) -> bool:
        return not (
            self.skipped
            or self.tail.cut_bytes
            or self.tail.completed
            or self.meta
            or self.removed_temps
        )


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")


def save_artifact(folder: Path, name: str, data: bytes) -> str:
    """Write ``data`` under ``folder/artifacts/`` atomically; the relative path written."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:100] or "artifact"
    artifacts = folder / "artifacts"
    artifacts.mkdir(0o700, exist_ok=True)
    target = artifacts / safe
    n = 1
    while target.exists():
        n += 1
        target = artifacts / f"{n}-{safe}"
    atomic_write(target, data)
    return f"artifacts/{target.name}"


def open_log_for_append(path: Path, folder: Path) -> tuple[int, TailRepair, LogScan]:
    """Repair ``path``'s tail, then open it for appending: ``(fd, what was done, its records)``.

    A tail that is a whole record missing its newline gets the newline (and is in the
    records); any other tail is cut and its bytes kept under ``artifacts/``. The caller
    must hold the chat's writer lock.
    """
    scan = scan_file(path)
    repair = TailRepair()
    if scan.tail:
        try:
            record = validate_line(scan.tail)
        except ValueError:
            name = f"torn-tail-{path.stem}-{_stamp()}.bin"
            artifact = save_artifact(folder, name, scan.tail)
            os.truncate(path, scan.size)
            repair = TailRepair(cut_bytes=len(scan.tail), artifact=artifact)
        else:
            scan.records.append(record)
            repair = TailRepair(completed=True)
    fd = os.open(path, _APPEND_FLAGS, 0o600)
    if repair.completed:
        write_all(fd, b"\n")
    return fd, repair, scan


class SessionWriter:
    """An open chat: append records, save artifacts, keep ``meta.json`` current.

    Get one from :meth:`SessionStore.open` or :meth:`SessionStore.create`. Use it from
    one thread (the engine's loop). ``close()`` / ``aclose()`` are idempotent.
    """

    def __init__(self, folder: Path, lock: WriterLock, log_fd: int, replayer: Replayer) -> None:
        self.id = folder.name
        self.folder = folder
        self.report = OpenReport()
        """What opening found (set by the store)."""
        self._lock: WriterLock | None = lock
        self._replayer = replayer
        self._unfolded: list[LogRecord] = []
        """Appended and not yet folded into the replay: :meth:`state` folds them in one batch
        (an append on a tool call's path is then one list append, not a fold; issue 25)."""
        self._log_path = folder / "log.jsonl"
        self._fd = log_fd
        self._size = os.fstat(log_fd).st_size
        self._agents: dict[str, int] = {}
        self._torn = False

    @property
    def log_path(self) -> Path:
        return self._log_path

    def append(self, record: LogRecord) -> None:
        """Write ``record`` as one line; when this returns, a kill cannot lose it."""
        fd = self._fd
        if fd < 0:
            raise StoreError(f"chat {self.id} is closed", hint="open it again to append")
        line = record_line(record) + b"\n"
        if self._torn:  # an earlier write stopped mid-line: end that line first
            line = b"\n" + line
        try:
            written = os.write(fd, line)
            if written != len(line):
                write_all(fd, line[written:])
        except OSError as exc:
            self._torn = True
            raise StoreError(
                f"could not append to {self._log_path}: {exc.strerror}",
                hint="free disk space or fix the folder's permissions, then retry",
            ) from exc
        self._torn = False
        self._size += len(line)
        self._unfolded.append(record)

    def append_agent(self, agent_id: str, record: LogRecord) -> None:
        """Append ``record`` to the subagent's own log ``agents/<agent_id>.jsonl``."""
        fd = self._agents.get(agent_id)
        if fd is None:
            check_id(agent_id, "agent")
            agents = self.folder / "agents"
            agents.mkdir(0o700, exist_ok=True)
            fd, _, _ = open_log_for_append(agents / f"{agent_id}.jsonl", self.folder)
            self._agents[agent_id] = fd
        write_all(fd, record_line(record) + b"\n")

    def save_artifact(self, name: str, data: bytes) -> str:
        """Keep ``data`` (a long output, a check log, an image) under ``artifacts/``."""
        if self._fd < 0:  # only the lock holder writes in the folder (see remove_stale_temps)
            raise StoreError(f"chat {self.id} is closed", hint="open it again to save")
        return save_artifact(self.folder, name, data)

    def state(self) -> ResumeState:
        """The replayed state, including everything appended since opening."""
        if self._unfolded:
            unfolded, self._unfolded = self._unfolded, []
            self._replayer.feed_all(unfolded)
        return self._replayer.state()

    def meta(self) -> SessionMeta:
        return meta_from_state(self.id, self.state(), self._size)

    def write_meta(self) -> SessionMeta:
        """Rewrite ``meta.json`` atomically (the engine calls this at each turn's end).

        Once closed, this only returns the meta: ``close`` wrote it last, the log cannot
        change any more, and only the lock holder writes in the folder.
        """
        meta = self.meta()
        if self._fd >= 0:
            write_meta(self.folder / "meta.json", meta)
        return meta

    def sync(self) -> None:
        """fsync the log (for power loss; a killed process loses nothing even without it)."""
        if self._fd >= 0:
            os.fsync(self._fd)

    def close(self) -> None:
        """Write ``meta.json``, close the log and release the lock. Idempotent."""
        if self._fd < 0:
            return
        try:
            self.write_meta()
        finally:
            fd, self._fd = self._fd, -1
            os.close(fd)
            for agent_fd in self._agents.values():
                os.close(agent_fd)
            self._agents.clear()
            if self._lock is not None:
                self._lock.release()
                self._lock = None

    async def aclose(self) -> None:
        self.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
