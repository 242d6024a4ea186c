"""Kill a real child process while it appends to a chat, and report what reopening finds.

Used by the store's acceptance test (dozens of kills) and by the soak benchmark
(``python -m benchmarks.bench_store --soak 1000``). Each round: a worker forked
from :mod:`zengine_jupyter.testing._appender` appends as fast as it can; after a
random delay it gets SIGKILL; then this process reopens the chat for writing (which
repairs it), reads back every sequence number, appends one record itself and reads
it back. The next round's worker continues the same chat.
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
from zengine_jupyter.store import SessionStore

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["KillRound", "run_kill_rounds"]


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
    )


def run_kill_rounds(
    root: Path, kills: int, *, seed: int = 0, per_chat: int = 5, max_delay_s: float = 0.004
) -> list[KillRound]:
    """``kills`` rounds over chats of ``per_chat`` rounds each, under ``root``."""
    rng = random.Random(seed)
    store = SessionStore(root)
    ack = root / "ack"
    ack.write_bytes(b"\0" * 8)
    server = subprocess.Popen(
        [sys.executable, "-m", "zengine_jupyter.testing._appender"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None
    assert server.stdout is not None
    rounds: list[KillRound] = []
    try:
        session_id = ""
        for n in range(kills):
            if n % per_chat == 0:
                store.create(session_id=f"kill-{seed}-{n}").close()
                session_id = f"kill-{seed}-{n}"
            server.stdin.write(f"spawn {root} {session_id} {ack} {rng.getrandbits(32)}\n")
            server.stdin.flush()
            lines = {_read_line(server.stdout), _read_line(server.stdout)}  # pid and "ready"
            pid = int((lines - {"ready"}).pop())
            start = int.from_bytes(ack.read_bytes(), "little", signed=True)
            time.sleep(rng.uniform(0, max_delay_s))
            os.kill(pid, signal.SIGKILL)
            server.stdin.write(f"reap {pid}\n")
            server.stdin.flush()
            status = int(_read_line(server.stdout))
            acked = int.from_bytes(ack.read_bytes(), "little", signed=True)
            rounds.append(_check(store, session_id, (start, acked), status))
    finally:
        server.stdin.close()
        server.wait(timeout=30)
        server.stdout.close()
    return rounds
