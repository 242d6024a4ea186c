"""Find processes a test started (and must not leave behind) by a token in their command line."""

from __future__ import annotations

import contextlib
from pathlib import Path

__all__ = ["running_processes"]


def running_processes(token: str) -> list[int]:
    """Live (not zombie) processes whose command line contains ``token`` (Linux ``/proc``)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if token in cmdline and ") Z " not in (entry / "stat").read_text():
                found.append(int(entry.name))
    return found
