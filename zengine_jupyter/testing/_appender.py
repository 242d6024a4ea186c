"""Fork server for the store kill test: ``python -m zengine_jupyter.testing._appender``.

It imports the store and builds its models once, then on each
``spawn ROOT SID ACKFILE SEED [MODE]`` line forks a worker and prints the worker's pid. The
worker opens the chat for writing and appends as fast as it can, forever; after each
``append`` returns it stores the record's sequence number in ACKFILE (8 bytes, signed
little-endian) and it prints ``ready`` once before the first append. With MODE ``meta`` it
rewrites ``meta.json`` (an atomic write: temporary file, then rename) as fast as it can
instead, counting in ACKFILE. ``reap PID`` waits for a (killed) worker and prints its wait
status. Forking keeps each kill round at a few milliseconds instead of an interpreter start.
"""

from __future__ import annotations

import os
import random
import sys
import traceback
from pathlib import Path

from zengine_jupyter.protocol._records import MessageRecord
from zengine_jupyter.store import SessionStore
from zengine_jupyter.store._lines import LOG_RECORD, record_line

_SMALL = (20, 400)
_LARGE = (20_000, 90_000)
"""Large records span many pages, so a kill can land inside one ``write``."""


def _work(root: str, session_id: str, ack_path: str, seed: int) -> None:
    writer = SessionStore(Path(root)).open(session_id)
    seq = writer.state().message_count
    ack = os.open(ack_path, os.O_RDWR)
    os.pwrite(ack, (seq - 1).to_bytes(8, "little", signed=True), 0)
    rng = random.Random(seed)
    os.write(1, b"ready\n")
    while True:
        low, high = _LARGE if rng.random() < 0.02 else _SMALL
        text = f"{seq}:" + "x" * rng.randint(low, high)
        writer.append(MessageRecord(id=f"m{seq}", role="user", text=text))
        os.pwrite(ack, seq.to_bytes(8, "little", signed=True), 0)
        seq += 1


def _rewrite_meta(root: str, session_id: str, ack_path: str) -> None:
    writer = SessionStore(Path(root)).open(session_id)
    ack = os.open(ack_path, os.O_RDWR)
    os.pwrite(ack, (0).to_bytes(8, "little", signed=True), 0)
    os.write(1, b"ready\n")
    done = 0
    while True:
        writer.write_meta()
        done += 1
        os.pwrite(ack, done.to_bytes(8, "little", signed=True), 0)


def _spawn(args: list[str]) -> None:
    pid = os.fork()
    if pid == 0:
        try:
            if args[4:] == ["meta"]:
                _rewrite_meta(args[0], args[1], args[2])
            _work(args[0], args[1], args[2], int(args[3]))
        except BaseException:
            os.write(1, f"error {traceback.format_exc()!r}\n".encode())
        finally:
            os._exit(1)
    sys.stdout.write(f"{pid}\n")
    sys.stdout.flush()


def _warm() -> None:
    """Build what every worker uses (models are built on first use) before any fork, so a
    worker appends within microseconds of starting, as the kills' delays assume."""
    line = record_line(MessageRecord(id="m0", role="user", text="0:"))
    LOG_RECORD.validate_json(line)


def main() -> None:
    _warm()
    for line in sys.stdin:
        command, *args = line.split()
        if command == "spawn":
            _spawn(args)
        elif command == "reap":
            _, status = os.waitpid(int(args[0]), 0)
            sys.stdout.write(f"{status}\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
