"""Kill a real child process while it appends to a chat, and report what reopening finds.

Used by the store's acceptance test (dozens of kills) and by the soak benchmark
(``python -m benchmarks.bench_store --soak 1000``). Each round: a worker forked
from :mod:`zengine_jupyter.testing._appender` appends as fast as it can; after a
random delay it gets SIGKILL; then this process reopens the chat for writing (which
repairs it), reads back every sequence number, appends one record itself and reads
it back. The next round's worker continues the same chat.

:func:`run_meta_kill_rounds` kills a worker that rewrites ``meta.json`` in a loop instead, so
kills land inside atomic writes and leave their temporary files for the reopen to clear.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from zengine_jupyter.protocol._records import MessageRecord
from zengine_jupyter.protocol._sessions import SessionMeta
from zengine_jupyter.store import SessionStore
from zengine_jupyter.store._meta import check_meta, read_meta

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["KillRound", "MetaKillRound", "run_kill_rounds", "run_meta_kill_rounds"]


@dataclass(frozen=True)
class KillRound:
    """What one kill left behind, as found by reopening the chat."""

    session_id: str
    killed_by_sigkill: bool
    acked: int
    """The last sequence number whose ``append`` had returned before the kill (-1: none)."""
    appended: int
    """How many appends the worker completed in this round before it was killed."""
    kept: int
    """How many records the reopened log holds (sequence numbers 0 .. kept-1 when in order)."""
    in_order: bool
    """The kept sequence numbers are exactly 0, 1, 2, ... with none missing or repeated."""
    skipped_lines: int
    cut_bytes: int
    cut_is_partial_line: bool
    """The cut bytes (kept under artifacts/) hold no newline: at most one partial line."""
    completed_tail: bool
    append_after_works: bool
    lost: int = 0
    """Acknowledged records (sequence numbers 0 .. ``acked``) missing from the reopened log."""


def _read_line(stream: IO[str]) -> str:
    line = stream.readline()
    if not line:
        raise RuntimeError("the appender fork server exited")
    if line.startswith("error"):
        raise RuntimeError(f"the appender worker failed: {line}")
    return line.strip()


def _check(store: SessionStore, session_id: str, acks: tuple[int, int], status: int) -> KillRound:
    start, acked = acks
    writer = store.open(session_id)
    try:
        seqs = [
            int(r.text.split(":", 1)[0])
            for r in writer.state().transcript
            if isinstance(r, MessageRecord)
        ]
        tail = writer.report.tail
        cut = (writer.folder / tail.artifact).read_bytes() if tail.artifact else b""
        writer.append(MessageRecord(id=f"m{len(seqs)}", role="user", text=f"{len(seqs)}:"))
    finally:
        writer.close()
    last = store.read(session_id).state.transcript[-1]
    return KillRound(
        session_id=session_id,
        killed_by_sigkill=os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL,
        acked=acked,
        appended=acked - start,
        kept=len(seqs),
        in_order=seqs == list(range(len(seqs))),
        skipped_lines=len(writer.report.skipped),
        cut_bytes=tail.cut_bytes,
        cut_is_partial_line=b"\n" not in cut and len(cut) == tail.cut_bytes,
        completed_tail=tail.completed,
        append_after_works=isinstance(last, MessageRecord) and last.text == f"{len(seqs)}:",
        lost=len(set(range(acked + 1)) - set(seqs)),
    )


@dataclass(frozen=True)
class MetaKillRound:
    """What a kill during ``meta.json`` rewrites left, and what reopening did with it."""

    killed_by_sigkill: bool
    rewrites: int
    """How many rewrites the worker completed before the kill."""
    temps_left: tuple[str, ...]
    """Temporary files in the chat's folder after the kill (a write was cut)."""
    meta_valid_after_kill: bool
    """``meta.json`` was a whole, valid meta after the kill (the old one or the new one)."""
    removed: tuple[str, ...]
    """What reopening reported as removed."""
    temps_after_reopen: tuple[str, ...]
    meta_current_after_reopen: bool


def _temps(folder: Path) -> tuple[str, ...]:
    return tuple(sorted(p.name for p in folder.glob(".*.tmp")))


def run_meta_kill_rounds(
    root: Path, kills: int, *, seed: int = 0, max_delay_s: float = 0.02, min_cut: int = 0
) -> list[MetaKillRound]:
    """``kills`` rounds of SIGKILL while a worker rewrites one chat's ``meta.json``, and more
    (up to ten times as many) until at least ``min_cut`` kills landed inside a write."""
    rng = random.Random(seed)
    store = SessionStore(root)
    session_id = f"meta-kill-{seed}"
    store.create(session_id=session_id).close()
    folder = store.folder(session_id)
    ack = root / "ack"
    ack.write_bytes(b"\0" * 8)
    rounds: list[MetaKillRound] = []
    with _ForkServer() as server:
        while len(rounds) < kills or (
            sum(bool(r.temps_left) for r in rounds) < min_cut and len(rounds) < 10 * kills
        ):
            pid = server.spawn(f"{root} {session_id} {ack} 0 meta")
            time.sleep(rng.uniform(0, max_delay_s))
            os.kill(pid, signal.SIGKILL)
            status = server.reap(pid)
            left = _temps(folder)
            valid = isinstance(read_meta(folder / "meta.json"), SessionMeta)
            with store.open(session_id) as writer:
                removed = writer.report.removed_temps
                after = _temps(folder)
                current = check_meta(folder / "meta.json", writer.meta()) is None
            rounds.append(
                MetaKillRound(
                    killed_by_sigkill=os.WIFSIGNALED(status)
                    and os.WTERMSIG(status) == signal.SIGKILL,
                    rewrites=int.from_bytes(ack.read_bytes(), "little", signed=True),
                    temps_left=left,
                    meta_valid_after_kill=valid,
                    removed=removed,
                    temps_after_reopen=after,
                    meta_current_after_reopen=current,
                )
            )
    return rounds


class _ForkServer:
    """The :mod:`._appender` fork server: ``spawn`` a worker (its pid), ``reap`` it (status)."""

    def __enter__(self) -> _ForkServer:
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "zengine_jupyter.testing._appender"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        return self

    def _send(self, line: str) -> None:
        assert self._proc.stdin is not None
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()

    def spawn(self, args: str) -> int:
        assert self._proc.stdout is not None
        self._send(f"spawn {args}")
        lines = {_read_line(self._proc.stdout), _read_line(self._proc.stdout)}  # pid, "ready"
        return int((lines - {"ready"}).pop())

    def reap(self, pid: int) -> int:
        assert self._proc.stdout is not None
        self._send(f"reap {pid}")
        return int(_read_line(self._proc.stdout))

    def __exit__(self, *exc: object) -> None:
        assert self._proc.stdin is not None
        assert self._proc.stdout is not None
        self._proc.stdin.close()
        self._proc.wait(timeout=30)
        self._proc.stdout.close()


def run_kill_rounds(
    root: Path, kills: int, *, seed: int = 0, per_chat: int = 5, max_delay_s: float = 0.004
) -> list[KillRound]:
    """``kills`` rounds over chats of ``per_chat`` rounds each, under ``root``."""
    rng = random.Random(seed)
    store = SessionStore(root)
    ack = root / "ack"
    ack.write_bytes(b"\0" * 8)
    rounds: list[KillRound] = []
    with _ForkServer() as server:
        session_id = ""
        for n in range(kills):
            if n % per_chat == 0:
                store.create(session_id=f"kill-{seed}-{n}").close()
                session_id = f"kill-{seed}-{n}"
            pid = server.spawn(f"{root} {session_id} {ack} {rng.getrandbits(32)}")
            start = int.from_bytes(ack.read_bytes(), "little", signed=True)
            time.sleep(rng.uniform(0, max_delay_s))
            os.kill(pid, signal.SIGKILL)
            status = server.reap(pid)
            acked = int.from_bytes(ack.read_bytes(), "little", signed=True)
            rounds.append(_check(store, session_id, (start, acked), status))
    return rounds
