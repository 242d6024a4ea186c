"""Issue 19.9: two processes racing for a chat's writer lock get a true message.

The holder takes the ``flock`` first and writes its pid just after; a second process that
arrives in between used to read an empty file and say "process ?"."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from zengine_jupyter.protocol import SessionLockedError
from zengine_jupyter.store._files import WriterLock


def test_a_holder_that_has_not_written_its_pid_yet_is_not_called_process_question_mark(
    tmp_path: Path,
) -> None:
    """Race: the lock is held but its pid is not recorded (yet): say so, never "process ?"."""
    path = tmp_path / "lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(SessionLockedError) as err:
            WriterLock.acquire(path, "c1")
    finally:
        os.close(fd)
    assert "?" not in err.value.message
    assert "another process" in err.value.message
    assert err.value.holder_pid is None


def test_a_pid_written_a_moment_after_the_lock_is_named(tmp_path: Path) -> None:
    """Race: the holder writes its pid a few milliseconds after taking the lock: the message
    waits briefly for it and names the process."""
    path = tmp_path / "lock"
    holder = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                              stdin=subprocess.PIPE)  # fmt: skip
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

        def write_pid() -> None:
            time.sleep(0.02)
            os.pwrite(fd, f"{holder.pid}\n".encode(), 0)

        writer = threading.Thread(target=write_pid)
        writer.start()
        with pytest.raises(SessionLockedError) as err:
            WriterLock.acquire(path, "c1")
        writer.join()
    finally:
        os.close(fd)
        holder.communicate(b"")
    assert f"process {holder.pid}" in err.value.message
    assert err.value.holder_pid == holder.pid
