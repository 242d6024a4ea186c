"""Find processes a test started (and must not leave behind) by a token in their command line;
run a Python child that holds something (a lock, a half-written file) while the test looks."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["process_gone", "python_child", "running_processes", "stop_process_group"]


def running_processes(token: str) -> list[int]:
    """Live (not zombie) processes whose command line contains ``token`` (Linux ``/proc``)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if token in cmdline and ") Z " not in (entry / "stat").read_text():
                found.append(int(entry.name))
    return found


def process_gone(pid: int) -> bool:
    """True once ``pid`` no longer exists: exited *and* reaped (a zombie still exists)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def stop_process_group(proc: subprocess.Popen[bytes], grace_s: float = 20) -> None:
    """Stop a server started with ``start_new_session=True``: SIGTERM to its process group,
    SIGKILL if it has not exited after ``grace_s``; reaped either way."""
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@contextlib.contextmanager
def python_child(
    code: str, *args: str, ready: str, kill: bool = False
) -> Iterator[subprocess.Popen[str]]:
    """A Python child running ``code`` (``args`` in ``sys.argv[1:]``), yielded once it printed
    the line ``ready``. On exit it is SIGKILLed if ``kill`` (a crash), and its stdin is closed
    (the signal to end for a child blocked in ``sys.stdin.read()``); reaped either way."""
    child = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None
    assert child.stdout is not None
    try:
        assert child.stdout.readline().strip() == ready
        yield child
    finally:
        if kill:
            child.kill()
        child.stdin.close()
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        child.stdout.close()
