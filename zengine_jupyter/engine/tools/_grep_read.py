"""Grep's reading and matching: each file read once, without following a link, and matched
line by line with Python's ``re`` (what decides every line shown), in path order.

:class:`Ahead` reads ripgrep's candidates on a worker thread while ripgrep still searches the
other batches (``_ripgrep.py``), so the answer waits only for the last batch's candidates.
"""

from __future__ import annotations

import asyncio
import os
import stat
from typing import TYPE_CHECKING

from zengine_jupyter.engine.tools._base import in_thread

if TYPE_CHECKING:
    import re
    from collections.abc import Callable

    from zengine_jupyter.engine.tools._listing import Listing
    from zengine_jupyter.engine.tools._search import GrepInput

__all__ = ["AHEAD_FILES", "Ahead", "grep_files"]

AHEAD_FILES = 4096
"""Candidates Python reads while ripgrep still runs (their lines are kept until the answer)."""
_MAX_GREP_BYTES = 8 * 1024 * 1024
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)

_Scan = tuple[list[str], list[int]] | None
"""A file's lines (content mode only) and its matching line numbers; None: not text."""


class Ahead:
    """Python's reading of ripgrep's candidates while ripgrep still reads other files, up to
    :data:`AHEAD_FILES`, on one worker thread at a time (what arrives while it reads waits for
    its next round); :func:`grep_files` reads the rest in path order."""

    def __init__(self, regex: re.Pattern[str], args: GrepInput) -> None:
        self.regex, self.args = regex, args
        self.done: dict[str, _Scan] = {}
        self._room = AHEAD_FILES
        self._waiting: list[str] = []
        self._worker: asyncio.Future[None] | None = None

    def scan(self, reals: set[str]) -> None:
        """Read ``reals`` (candidates ripgrep named) in a thread, within the budget."""
        batch = list(reals)[: self._room]
        self._room -= len(batch)
        self._waiting += batch
        if batch and self._worker is None:
            self._worker = asyncio.ensure_future(self._drain())

    async def finished(self) -> None:
        if self._worker is not None:
            await self._worker

    async def _drain(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, []
                await in_thread(self._scan_all, batch)
        finally:
            self._worker = None

    def _scan_all(self, reals: list[str]) -> None:
        for real in reals:
            self.done[real] = _scan(real, self.regex, self.args)


def _scan(real: str, regex: re.Pattern[str], args: GrepInput) -> _Scan:
    text = _text_of(real)
    if text is None:
        return None
    lines = text.splitlines()
    if args.output_mode == "files_with_matches":  # the first matching line is enough
        return [], [0] if any(map(regex.search, lines)) else []
    hits = [i for i, line in enumerate(lines) if regex.search(line)]
    return (lines if args.output_mode == "content" else []), hits


def grep_files(
    files: list[str],
    listing: Listing,
    ahead: Ahead,
    args: GrepInput,
    display: Callable[[str], str],
) -> list[str]:
    out: list[str] = []
    for path in sorted(files, key=_path_order):
        real = listing.real(path)
        scanned = ahead.done[real] if real in ahead.done else _scan(real, ahead.regex, args)
        if scanned is None:
            continue
        lines, hits = scanned
        if not hits:
            continue
        shown = display(path)
        if args.output_mode == "files_with_matches":
            out.append(shown)
        elif args.output_mode == "count":
            out.append(f"{shown}:{len(hits)}")
        else:
            out.extend(_with_context(shown, lines, hits, args.context))
        if len(out) > args.head_limit + 1:
            break
    return out


def _with_context(shown: str, lines: list[str], hits: list[int], context: int) -> list[str]:
    keep = sorted(
        {j for i in hits for j in range(i - context, i + context + 1) if 0 <= j < len(lines)}
    )
    hit_set = set(hits)
    out, previous = [], -2
    for j in keep:
        if context and previous >= 0 and j != previous + 1:
            out.append("--")
        sep = ":" if j in hit_set else "-"
        out.append(f"{shown}{sep}{j + 1}{sep}{lines[j][:500]}")
        previous = j
    return out


def _read_all(fd: int, size: int) -> bytes:
    """Up to ``size`` bytes, to the end of the file (no buffered file object: one read)."""
    data = os.read(fd, size)
    while len(data) < size:
        more = os.read(fd, size - len(data))
        if not more:
            break
        data += more
    return data


def _path_order(path: str) -> str:
    """The order ``Path`` objects sort in (part by part), without making them or a list of
    parts: with each ``/`` as NUL, which no name holds and every character sorts after, a
    shorter part sorts first, as in a comparison of the parts."""
    return path.replace("/", "\0")


def _text_of(path: str) -> str | None:
    """The file's text; never through a symlink (a link swapped in after the listing)."""
    try:
        fd = os.open(path, _OPEN_FLAGS)  # non-blocking: a fifo swapped in must not hang us
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_GREP_BYTES:
            return None
        data = _read_all(fd, info.st_size + 1)  # not a buffer of the whole limit
    except OSError:
        return None
    finally:
        os.close(fd)
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")
