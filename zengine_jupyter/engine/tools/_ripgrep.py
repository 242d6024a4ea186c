"""Grep's fast path: ripgrep narrows the listed files to those that may match.

The engine's own listing still decides which files Grep sees (ignore rules, symlinks, the
Read rules and the left-out count: ``_listing.py``), and Python's ``re`` still decides every
line shown (``_search.py``), so the output is what it was without ripgrep. ripgrep only reads
the listed files, given by name (``--no-config``; no ignore rule of its own applies to files
named on its command line), and names those with a matching line; only those are read again
in Python. It searches every file as text (``--text``: the NUL check stays Python's) with
``$`` before CRLF (``--crlf``), as Python sees a line.

Without ``rg`` on PATH, for a pattern ripgrep's syntax does not take (look-around,
back-references), when it fails on a file (vanished, unreadable) or takes longer than
:data:`TIMEOUT_S` (a file swapped for a pipe after the listing), the answer is None and every
listed file is searched in Python. Where both accept a pattern they agree on what matches in UTF-8
text, with known gaps: ``^`` or ``$`` beside a line break only Python's ``splitlines`` knows
(a lone ``\r``, a form feed), ``.`` over invalid UTF-8, and the two syntaxes' rare
differences (``[[:alpha:]]`` is a class in ripgrep, a set of characters in Python).
"""

from __future__ import annotations

import os
import shutil
from typing import TYPE_CHECKING

from zengine_jupyter.host import RunOptions, run
from zengine_jupyter.protocol import ProcessError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["TIMEOUT_S", "find_ripgrep", "ripgrep_candidates"]

TIMEOUT_S = 20.0
_ARGS_BYTES = 256 * 1024
"""Paths per ripgrep run, well under the kernel's limit on a command line."""


def find_ripgrep() -> str | None:
    """The ``rg`` program on PATH, or None."""
    return shutil.which("rg")


async def ripgrep_candidates(
    files: list[Path], base: Path, pattern: str, *, case_insensitive: bool
) -> set[Path] | None:
    """Which of ``files`` (real paths, absolute) hold a line ripgrep matches; None: unknown."""
    rg = find_ripgrep()
    if rg is None or not files:
        return None
    head = [rg, "--no-config", "--files-with-matches", "--null", "--text", "--crlf",
            "--no-messages", "--max-filesize", "8M",  # Python reads no larger file either
            *(["--ignore-case"] if case_insensitive else []),
            "--regexp", pattern, "--"]  # fmt: skip
    prefix = f"{base}{os.sep}"
    shown = {(str(f).removeprefix(prefix)): f for f in files}
    found: set[Path] = set()
    chunk: list[str] = []
    size = 0
    for name in shown:
        chunk.append(name)
        size += len(name) + 1
        if size > _ARGS_BYTES:
            if not await _run(head, chunk, base, shown, found):
                return None
            chunk, size = [], 0
    if chunk and not await _run(head, chunk, base, shown, found):
        return None
    return found


async def _run(
    head: list[str], names: list[str], base: Path, shown: dict[str, Path], found: set[Path]
) -> bool:
    try:
        done = await run([*head, *names], RunOptions(cwd=base, timeout_s=TIMEOUT_S))
    except ProcessError:  # includes the timeout
        return False
    if done.returncode not in (0, 1):
        return False  # the pattern is not ripgrep's syntax, or a file could not be read
    for raw in done.stdout.split(b"\0"):
        if raw:
            path = shown.get(os.fsdecode(raw))
            if path is None:
                return False  # not a name we gave: trust none of it
            found.add(path)
    return True
