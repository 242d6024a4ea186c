"""Find processes a test started (and must not leave behind) by a token in their command line."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

__all__ = ["process_gone", "running_processes", "stop_process_group"]


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
